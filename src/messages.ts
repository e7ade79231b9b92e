/** Messages between the processes and threads of the cluster, in one place. */
import type { IngestItem, IngestOutcome } from './store/store.js'
import type { StoreConfig } from './store/open.js'

/** piscina `workerData` of the ingest writer threads. */
export type WriterInit = StoreConfig

/** One piscina task: several ingest items committed in one transaction. Bodies are transferred, not copied. */
export interface WriteTask {
  items: IngestItem[]
}

export interface WriteResult {
  outcomes: IngestOutcome[]
}

/** A child process tells the primary it is serving. */
export interface ReadyMessage {
  type: 'ready'
  role: 'front' | 'control'
  port: number
  /** Fronts: true when the native uWebSockets.js binary serves. */
  native?: boolean
}

export type ChildMessage = ReadyMessage
