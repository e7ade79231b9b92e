/**
 * Appending to the log with a deadline. While a stream elects a new leader
 * (a NATS server died) appends fail for a few seconds with "jetstream is not
 * enabled", no responders or a timeout; the entry is appended again, with the
 * same id, until it is acknowledged or the request's deadline passes. The id
 * is the caller's, minted once per logical entry: an attempt that landed but
 * lost its acknowledgement is then answered as a duplicate by the retry, never
 * stored twice. Only an acknowledgement means the log holds the entry. A
 * stream with no room (LogFull) is not retried: the caller answers at once.
 */
import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { log } from '../log.js'
import { LogFull, type Appended, type Log } from './log.js'

/** The log could not take the entry before the deadline: nothing is acknowledged, the client sends it again. */
export class JournalUnavailable extends Error {
  constructor(readonly attempts: number, readonly lastError: unknown) {
    super(`journal unavailable after ${attempts} attempts: ${String(lastError)}`)
  }
}

export interface PublishOptions {
  /** Identifies the logical entry across attempts (and across nodes, for a chunk: its project, session and seq). */
  id: string
  /** Epoch ms after which the publish gives up. */
  deadline: number
}

/** Pause between attempts: short, since an election takes a few seconds and a request waits on it. */
const RETRY_PAUSE_MS = 100
/** One attempt's wait for its acknowledgement; a lost leader answers nothing, so this bounds each try. */
const ATTEMPT_TIMEOUT_MS = 2_000

export async function publishUntil(journal: Log, subject: string, data: Uint8Array, options: PublishOptions): Promise<Appended> {
  let attempts = 0
  let lastError: unknown
  for (;;) {
    const left = options.deadline - Date.now()
    if (left <= 0) throw new JournalUnavailable(attempts, lastError)
    attempts++
    try {
      return await journal.append(subject, data, { id: options.id, timeoutMs: Math.min(ATTEMPT_TIMEOUT_MS, left) })
    } catch (error) {
      // A full stream stays full until an operator or the retention makes room: waiting out the deadline changes nothing.
      if (error instanceof LogFull) throw error
      lastError = error
      await sleep(Math.min(RETRY_PAUSE_MS, Math.max(0, options.deadline - Date.now())))
    }
  }
}

/** A message id nothing in the log lets anyone predict: 128 random bits. */
export function randomMessageId(prefix: string): string {
  return `${prefix}${randomBytes(16).toString('base64url')}`
}

export interface VerifiedOptions extends PublishOptions {
  /** The stream that takes the subject: where a duplicate's first copy is read back. */
  stream: string
  /** Whether the log's copy (its bytes as stored) is this entry. */
  isOurs(held: Uint8Array): boolean
  /** The new id's prefix when the entry goes again. */
  prefix: string
}

/**
 * publishUntil, with a "duplicate" answer checked against what the log holds
 * at that sequence. A client that may publish to the stream could have
 * appended something else under this id first (a junk entry no node
 * applies): taking its acknowledgement would drop the change while the
 * caller believes it made. The entry then goes again under a new random id.
 */
export async function publishVerified(journal: Log, subject: string, data: Uint8Array, options: VerifiedOptions): Promise<Appended> {
  let id = options.id
  for (;;) {
    const ack = await publishUntil(journal, subject, data, { id, deadline: options.deadline })
    if (!ack.duplicate) return ack
    const held = await journal.get(options.stream, ack.seq)
    if (held && options.isOurs(held)) return ack
    log.warn('a log message id was taken by an entry that is not ours; publishing again under a new id', { stream: options.stream, seq: ack.seq })
    id = randomMessageId(options.prefix)
  }
}
