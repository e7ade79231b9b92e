/**
 * The storage gauges of /metrics, and the share of complete recordings, set
 * from the store's counters on each scrape in the control worker. Labelled by project id: projects are bounded
 * per organisation (MAX_PROJECTS_PER_ORG), so the series are too.
 */
import { projectStorage } from '../recordings/project-storage.js'
import type { StorageUse } from '../store/store.js'
import { metrics } from './registry.js'

export function recordStorageUse(use: StorageUse): void {
  metrics.storageBytes.reset()
  metrics.bytesPerMinute.reset()
  metrics.completeSessions.reset()
  for (const [projectId, stats] of use.projects) {
    // Kept at ingest (store/session-losses.ts), so a scrape reads a counter rather than every session.
    if (stats.sessionCount > 0) metrics.completeSessions.labels(projectId).set(1 - Math.min(stats.sessionCount, stats.incompleteSessions ?? 0) / stats.sessionCount)
    const storage = projectStorage(use, projectId)
    metrics.storageBytes.labels(projectId, 'chunks').set(storage.chunkBytes)
    metrics.storageBytes.labels(projectId, 'signals').set(storage.signalsBytes)
    metrics.storageBytes.labels(projectId, 'aggregates').set(storage.aggregatesBytes)
    if (storage.bytesPerRecordedMinute !== null) metrics.bytesPerMinute.labels(projectId).set(storage.bytesPerRecordedMinute)
  }
  metrics.storageFileBytes.set(use.fileBytes)
}
