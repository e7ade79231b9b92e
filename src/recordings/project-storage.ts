/** A project's storage as /metrics, projects.storage and the dashboard show it, from the store's counters (StorageUse). */
import type { StorageUse } from '../store/store.js'

export interface ProjectStorage {
  chunkBytes: number
  signalsBytes: number
  aggregatesBytes: number
  recordedMinutes: number
  /** Null until something is recorded. */
  bytesPerRecordedMinute: number | null
}

/** Signals and aggregates are measured for the whole store (LMDB's pages); each project is given its share by signal batches. */
export function projectStorage(use: StorageUse, projectId: string): ProjectStorage {
  let batches = 0
  for (const stats of use.projects.values()) batches += stats.signalBatches
  const stats = use.projects.get(projectId)
  const share = stats && batches > 0 ? stats.signalBatches / batches : 0
  const minutes = (stats?.recordedMs ?? 0) / 60_000
  return {
    chunkBytes: stats?.bytes ?? 0,
    signalsBytes: Math.round(use.signalsBytes * share),
    aggregatesBytes: Math.round(use.aggregatesBytes * share),
    recordedMinutes: Math.round(minutes * 10) / 10,
    bytesPerRecordedMinute: minutes > 0 ? Math.round((stats?.bytes ?? 0) / minutes) : null,
  }
}
