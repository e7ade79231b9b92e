/**
 * Publishing to the log with a deadline. While a stream elects a new leader
 * (a NATS server died) publishes fail for a few seconds with "jetstream is not
 * enabled", no responders or a timeout; the entry is published again, with the
 * same message id, until it is acknowledged or the request's deadline passes.
 * Only a PubAck means the log holds the entry on a quorum of replicas.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { JetStreamClient, PubAck } from '@nats-io/jetstream'

/** The log could not take the entry before the deadline: nothing is acknowledged, the client sends it again. */
export class JournalUnavailable extends Error {
  constructor(readonly attempts: number, readonly lastError: unknown) {
    super(`journal unavailable after ${attempts} attempts: ${String(lastError)}`)
  }
}

export interface PublishOptions {
  /** Identifies the entry: a resend with the same id inside the stream's duplicate window is not stored again. */
  msgID?: string
  /** Epoch ms after which the publish gives up. */
  deadline: number
}

/** Pause between attempts: short, since an election takes a few seconds and a request waits on it. */
const RETRY_PAUSE_MS = 100
/** One attempt's wait for its PubAck; a lost leader answers nothing, so this bounds each try. */
const ATTEMPT_TIMEOUT_MS = 2_000

export async function publishUntil(js: JetStreamClient, subject: string, data: Uint8Array, options: PublishOptions): Promise<PubAck> {
  let attempts = 0
  let lastError: unknown
  for (;;) {
    const left = options.deadline - Date.now()
    if (left <= 0) throw new JournalUnavailable(attempts, lastError)
    attempts++
    try {
      return await js.publish(subject, data, { msgID: options.msgID, timeout: Math.min(ATTEMPT_TIMEOUT_MS, left) })
    } catch (error) {
      lastError = error
      await sleep(Math.min(RETRY_PAUSE_MS, Math.max(0, options.deadline - Date.now())))
    }
  }
}
