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
import { setTimeout as sleep } from 'node:timers/promises'
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

export async function publishUntil(log: Log, subject: string, data: Uint8Array, options: PublishOptions): Promise<Appended> {
  let attempts = 0
  let lastError: unknown
  for (;;) {
    const left = options.deadline - Date.now()
    if (left <= 0) throw new JournalUnavailable(attempts, lastError)
    attempts++
    try {
      return await log.append(subject, data, { id: options.id, timeoutMs: Math.min(ATTEMPT_TIMEOUT_MS, left) })
    } catch (error) {
      // A full stream stays full until an operator or the retention makes room: waiting out the deadline changes nothing.
      if (error instanceof LogFull) throw error
      lastError = error
      await sleep(Math.min(RETRY_PAUSE_MS, Math.max(0, options.deadline - Date.now())))
    }
  }
}
