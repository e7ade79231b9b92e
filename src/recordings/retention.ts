/**
 * Retention: recordings (chunk bytes) of sessions inactive for longer than
 * RETENTION_DAYS are deleted by a background job in the control worker.
 * Session metadata and every signal survive (the signals path outlives the
 * recordings, API contract, section 2); a purged session says so.
 */
import { log } from '../log.js'
import { metrics } from '../metrics/registry.js'
import type { PurgeResult, Store } from '../store/store.js'
import { schedulePeriodic } from '../periodic.js'

const DAY_MS = 24 * 60 * 60 * 1000

export async function purgeExpired(store: Store, retentionDays: number, now: number): Promise<PurgeResult> {
  const result = await store.purgeRecordingsBefore(now - retentionDays * DAY_MS, now)
  metrics.purgeSessions.inc(result.sessionsPurged)
  metrics.purgeChunks.inc(result.chunksDeleted)
  metrics.purgeBytes.inc(result.bytesDeleted)
  metrics.purgeRuns.inc()
  return result
}

/** Runs the purge now and then every `intervalMs`; returns a function that stops it. */
export function scheduleRetention(store: Store, retentionDays: number, intervalMs: number, now: () => number = Date.now): () => void {
  return schedulePeriodic('retention pass', intervalMs, async () => {
    const result = await purgeExpired(store, retentionDays, now())
    if (result.sessionsPurged > 0) log.info('retention purged recordings', { ...result, retentionDays })
  })
}
