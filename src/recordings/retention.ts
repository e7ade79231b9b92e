/**
 * Retention: recordings (chunk bytes) of sessions inactive for longer than
 * RETENTION_DAYS are deleted by a background job in the control worker.
 * Session metadata and every signal survive (the signals path outlives the
 * recordings, API contract, section 2); a purged session says so.
 */
import { log } from '../log.js'
import { metrics } from '../metrics/registry.js'
import type { PurgeResult, Store } from '../store/store.js'

const DAY_MS = 24 * 60 * 60 * 1000
/** Sessions examined per transaction: keeps each write-lock hold short for ingest. */
const PURGE_BATCH = 500

export async function purgeExpired(store: Store, retentionDays: number, now: number): Promise<PurgeResult> {
  const cutoff = now - retentionDays * DAY_MS
  const total: PurgeResult = { sessionsPurged: 0, chunksDeleted: 0, bytesDeleted: 0, done: true }
  for (;;) {
    const step = await store.purgeRecordings(cutoff, PURGE_BATCH, now)
    total.sessionsPurged += step.sessionsPurged
    total.chunksDeleted += step.chunksDeleted
    total.bytesDeleted += step.bytesDeleted
    metrics.purgeSessions.inc(step.sessionsPurged)
    metrics.purgeChunks.inc(step.chunksDeleted)
    metrics.purgeBytes.inc(step.bytesDeleted)
    if (step.done) {
      metrics.purgeRuns.inc()
      return total
    }
    await new Promise((r) => setImmediate(r))
  }
}

/** Runs the purge now and then every `intervalMs`; returns a function that stops it. */
export function scheduleRetention(store: Store, retentionDays: number, intervalMs: number, now: () => number = Date.now): () => void {
  let running = false
  const run = async () => {
    if (running) return
    running = true
    try {
      const result = await purgeExpired(store, retentionDays, now())
      if (result.sessionsPurged > 0) log.info('retention purged recordings', { ...result, retentionDays })
    } catch (error) {
      log.error('retention pass failed; it runs again at the next interval', { error: String(error) })
    } finally {
      running = false
    }
  }
  const timer = setInterval(run, intervalMs)
  timer.unref()
  void run()
  return () => clearInterval(timer)
}
