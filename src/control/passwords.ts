/**
 * Dashboard passwords: scrypt (node:crypto) with a per-user random salt,
 * stored as `scrypt$N$r$p$salt$hash`. N = 2^14, r = 8 costs about 16 MiB and
 * tens of milliseconds per check: cheap for a sign-in, expensive for a guesser.
 *
 * Every hash waits its turn in one queue (hash-queue.ts): scrypt runs on
 * libuv's thread pool (4 threads), which the process's file and DNS work
 * share, and unbounded it let 32 parallel requests hold a sign-in for seconds.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { HashQueue, type Turn } from './hash-queue.js'

const N = 16384
const R = 8
const P = 1
const KEY_LENGTH = 32

/**
 * Two hashes at once leave half the thread pool to the rest; 16 more wait in each line (about 0.4 s of work at 50 ms
 * each), the rest are told to come back. One of the two runs only checks from known places, so a flood of guesses
 * from new places never stands between an owner and their sign-in.
 */
export const hashQueue = new HashQueue({ running: 2, waiting: 16, reservedForPriority: 1 })

/** The queue's key for an organisation's hashes, and for a client's before it has one (a guess, a first owner). */
export const orgTurn = (orgId: string) => `org ${orgId}`
export const addressTurn = (address: string) => `address ${address}`

function scrypt(password: string, salt: Buffer, options: ScryptOptions, turn: Turn): Promise<Buffer> {
  return hashQueue.run(() => new Promise((resolve, reject) => scryptCallback(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)))), turn)
}

/** `key`: whose hash it is (hashQueue shares its line by key): the organisation, or the client address before there is one. */
export async function hashPassword(password: string, key?: string): Promise<string> {
  const salt = randomBytes(16)
  const hash = await scrypt(password, salt, { N, r: R, p: P }, { key })
  return ['scrypt', N, R, P, salt.toString('base64'), hash.toString('base64')].join('$')
}

/** A hash of a password nobody knows: checked when the email is unknown, so that both cases cost the same. */
export const DUMMY_HASH = `scrypt$${N}$${R}$${P}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(KEY_LENGTH).toString('base64')}`

/**
 * `turn.priority`: a check from a place that signed in to this account before (hash-queue.ts), served before the rest;
 * `turn.key`: whose check it is, as for hashPassword.
 */
export async function verifyPassword(password: string, stored: string, turn: Turn = {}): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64')
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) }, turn)
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}
