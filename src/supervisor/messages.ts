/** Messages between the processes and threads of the cluster, in one place. */
import type { IngestItem, IngestOutcome, SignalsRecord } from '../store/store.js'
import type { StoreConfig } from '../store/open.js'
import type { MetricObjectWithValues, MetricValue } from 'prom-client'

/** piscina `workerData` of the ingest writer threads. */
export type WriterInit = StoreConfig

/** What the fold thread (workers/fold.ts) starts with: the store, its niceness, the pause between folds once caught up, the batches per fold. */
export type FoldThreadInit = StoreConfig & { nice: number; intervalMs: number; batches: number }

/** Control worker ↔ fold thread: stop (then `stopped` once its store is closed). */
export type FoldThreadMessage = { type: 'stop' } | { type: 'stopped' }

/**
 * A signals body as it arrived. A writer thread parses and validates it: its
 * bytes cross to the thread by transfer, where a parsed batch would be copied
 * by structured clone. A front that writes on its own thread parses an
 * ordinary body as it arrives instead (`batch`), so that the work is spread
 * over the requests rather than gathered into each transaction's turn.
 */
export interface SignalsBodyItem {
  kind: 'signals-body'
  projectId: string
  receivedAt: number
  body: Uint8Array
  /** Parsed and checked already as it was queued (write-queue.ts, parseOnArrival); the body stays for the queue's byte bounds and the body pool. */
  batch?: SignalsRecord
}

export type WriteItem = Exclude<IngestItem, { kind: 'signals' }> | SignalsBodyItem

/** One piscina task: several ingest items committed in one transaction. Bodies are transferred, not copied. */
export interface WriteTask {
  items: WriteItem[]
}

/** `invalid`: a signals body that is no signals batch, with what is wrong (answered 400; nothing stored). */
export type WriteOutcome = IngestOutcome | { invalid: string }

export interface WriteResult {
  outcomes: WriteOutcome[]
  /** The environment is unusable in this process until it restarts (MDB_PANIC): the front stops and the primary starts it afresh. */
  fatal?: boolean
  /** How long appendBatch took, ms (absent when nothing was written): the front observes it as LMDB commit duration. */
  commitMs?: number
}

/** A child process tells the primary it is serving. */
export interface ReadyMessage {
  type: 'ready'
  role: 'front' | 'control'
  port: number
  /** Fronts: true when the native uWebSockets.js binary serves. */
  native?: boolean
  /** Fronts: the HTTP engine serving (src/front/uws.ts). */
  http?: string
}

/** A front asks the primary for the cluster's metrics (GET /metrics); answered by MetricsAnswer with the same id. */
export interface MetricsRequest {
  type: 'metrics-request'
  id: number
}

/** Primary → every child: report your registry (MetricsReport with the same id). */
export interface MetricsCollect {
  type: 'metrics-collect'
  id: number
}

export interface MetricsReport {
  type: 'metrics-report'
  id: number
  metrics: MetricObjectWithValues<MetricValue<string>>[]
}

/** Primary → the asking front: the cluster's metrics in the Prometheus text format. */
export interface MetricsAnswer {
  type: 'metrics-answer'
  id: number
  text: string
}

/** Control worker → primary: an erasure finished; compact the store (src/store/lmdb/compaction.ts). */
export interface CompactRequest {
  type: 'compact'
}

/**
 * Front → primary: which port does the control worker listen on? It chooses
 * one itself at its first start (port 0), so no other process can take it
 * between a choice and the listen; the primary answers once it is known.
 */
export interface ControlPortRequest {
  type: 'control-port-request'
}

/** Primary → the asking front. */
export interface ControlPortAnswer {
  type: 'control-port'
  port: number
}

/**
 * Primary → every child, for an online compaction (src/supervisor/compaction-round.ts): `pause` asks it to finish
 * the writes in flight, hold the next ones and close every LMDB environment it has open (answered by `paused` with
 * the same round); `resume` to open them anew (the compacted files) and go on. The listening sockets stay open.
 */
export interface PauseRequest {
  type: 'pause' | 'resume'
  round: number
}

/** Child → primary: every environment of this process is closed for the round. */
export interface PausedAnswer {
  type: 'paused'
  round: number
}

export type ChildMessage = ReadyMessage | MetricsRequest | MetricsReport | CompactRequest | ControlPortRequest | PausedAnswer
export type PrimaryMessage = MetricsCollect | MetricsAnswer | ControlPortAnswer | PauseRequest

/**
 * Front → control worker, on every forwarded request. The front sets these and
 * overwrites any copy a client sent: the secret proves the request came from a
 * front (the control worker refuses it otherwise), the address is the client's.
 */
export const CONTROL_SECRET_HEADER = 'x-svc-control-secret'
export const CLIENT_IP_HEADER = 'x-svc-client-ip'
/** The Host the client sent the front (the forwarded request's own Host names the control worker). */
export const CLIENT_HOST_HEADER = 'x-svc-client-host'
