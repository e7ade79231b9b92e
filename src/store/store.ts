/**
 * The storage interface. Routes, workers and tools see only `Store`; its
 * parts are the interfaces beside it, one per concern. LMDB details stay in
 * src/store/lmdb/; src/store/memory/ is a second implementation; every
 * implementation passes the shared suite in test/store/*.case.ts.
 */
import type { AccountStore } from './account-store.js'
import type { AuditStore } from './audit-store.js'
import type { ErasureStore } from './erasure-store.js'
import type { InsightStore } from './insight-store.js'
import type { ProjectPatch, ProjectStore } from './project-store.js'
import type { RecordingStore } from './recording-store.js'

export type * from './records.js'
export type * from './erasure-store.js'
export type { AccountStore, AuditStore, ErasureStore, InsightStore, ProjectPatch, ProjectStore, RecordingStore }

export interface Store extends AccountStore, ProjectStore, RecordingStore, InsightStore, AuditStore, ErasureStore {
  close(): Promise<void>
}

/**
 * A write that did not commit because storage failed (disk full, I/O error,
 * an environment that had a fatal error), as opposed to a bad request.
 * `fatal`: this process cannot write again until it restarts.
 */
export class StorageUnavailable extends Error {
  constructor(readonly cause: unknown, readonly fatal: boolean) {
    super(`storage unavailable: ${String(cause)}`)
  }
}

/** A batch of the log that does not continue where the store stands (one before it failed): nothing of it was written. */
export class BatchOutOfOrder extends Error {
  constructor(batch: { stream: string; seq: number; after?: number }, position: number) {
    super(`the batch of ${batch.stream} after ${batch.after} up to ${batch.seq} does not continue the store's position ${position}`)
  }
}
