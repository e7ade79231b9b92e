/**
 * Every entry of the log is sealed with a secret all nodes hold
 * (NATS_LOG_SECRET_FILE): AES-256-GCM, so that a client able to read a
 * stream (an operator's NATS user, a copied disk) reads no recording, signal
 * or account in clear, and one able to publish to it cannot write an entry
 * that any node applies: an entry that does not open is skipped and counted.
 * The associated data names the entry's kind, so a sealed ingest entry copied
 * into the control stream does not open there either. The key id (4 bytes of
 * a digest of the key) lets a node say which secret an entry needs.
 *
 * Layout: 'S1' | key id (4) | nonce (12) | ciphertext | tag (16).
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'

/** `live`: the watches nodes tell each other of (src/live/relay.ts), never a log entry. */
export type EntryKind = 'control' | 'ingest' | 'live'

/** The entry does not open with this node's secret: forged, damaged, or sealed with another secret. */
export class UnsealedEntry extends Error {
  override name = 'UnsealedEntry'
}

export interface LogSeal {
  seal(kind: EntryKind, plain: Uint8Array): Uint8Array
  /** Throws UnsealedEntry when `sealed` was not sealed for `kind` with this secret. */
  open(kind: EntryKind, sealed: Uint8Array): Uint8Array
  /**
   * A message id that only holders of the secret can compute (128 bits of
   * an HMAC of `parts`): the same on every node and every retry, where they
   * must name one entry, and never guessed by a client that can publish.
   */
  messageId(prefix: string, ...parts: (string | number)[]): string
}

const MAGIC = Buffer.from('S1')
const KEY_ID_BYTES = 4
const NONCE_BYTES = 12
const TAG_BYTES = 16
const HEAD_BYTES = MAGIC.byteLength + KEY_ID_BYTES + NONCE_BYTES
/** Below this a secret is guessable, whatever its encoding: 32 bytes is the key size itself. */
export const MIN_SECRET_BYTES = 32

export function logSeal(secret: Uint8Array): LogSeal {
  if (secret.byteLength < MIN_SECRET_BYTES) throw new Error(`the log secret must hold at least ${MIN_SECRET_BYTES} bytes`)
  const key = Buffer.from(hkdfSync('sha256', secret, 'svc-recorder log', 'entry seal v1', 32))
  const keyId = createHash('sha256').update(key).digest().subarray(0, KEY_ID_BYTES)
  const aad = (kind: EntryKind) => Buffer.concat([MAGIC, keyId, Buffer.from(kind)])
  const idKey = Buffer.from(hkdfSync('sha256', secret, 'svc-recorder log', 'message ids v1', 32))

  return {
    seal(kind, plain) {
      const nonce = randomBytes(NONCE_BYTES)
      const cipher = createCipheriv('aes-256-gcm', key, nonce)
      cipher.setAAD(aad(kind))
      const body = cipher.update(plain)
      const last = cipher.final()
      return Buffer.concat([MAGIC, keyId, nonce, body, last, cipher.getAuthTag()])
    },
    open(kind, sealed) {
      const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength)
      if (bytes.byteLength < HEAD_BYTES + TAG_BYTES || !bytes.subarray(0, MAGIC.byteLength).equals(MAGIC)) throw new UnsealedEntry('not a sealed log entry')
      if (!bytes.subarray(MAGIC.byteLength, MAGIC.byteLength + KEY_ID_BYTES).equals(keyId)) throw new UnsealedEntry('sealed with another secret')
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(MAGIC.byteLength + KEY_ID_BYTES, HEAD_BYTES))
      decipher.setAAD(aad(kind))
      decipher.setAuthTag(bytes.subarray(bytes.byteLength - TAG_BYTES))
      try {
        return Buffer.concat([decipher.update(bytes.subarray(HEAD_BYTES, bytes.byteLength - TAG_BYTES)), decipher.final()])
      } catch {
        throw new UnsealedEntry(`a ${kind} entry that does not authenticate`)
      }
    },
    messageId(prefix, ...parts) {
      return prefix + createHmac('sha256', idKey).update(parts.join('\0')).digest().subarray(0, 16).toString('base64url')
    },
  }
}

/**
 * Reads the secret from its file: at least 32 bytes once trimmed, and not
 * readable by other users (the file holds what lets anyone append to the log).
 */
export function readLogSecret(path: string): Buffer {
  const mode = statSync(path).mode
  if (mode & 0o077) throw new Error(`NATS_LOG_SECRET_FILE ${path} is readable by others (mode ${(mode & 0o777).toString(8)}): chmod 600 it`)
  const secret = Buffer.from(readFileSync(path, 'utf8').trim())
  if (secret.byteLength < MIN_SECRET_BYTES) throw new Error(`NATS_LOG_SECRET_FILE ${path} holds ${secret.byteLength} bytes; it needs at least ${MIN_SECRET_BYTES} (openssl rand -hex 32)`)
  return secret
}
