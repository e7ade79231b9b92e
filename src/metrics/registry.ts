/**
 * The metric families of every process, in one registry per process. Each
 * process defines them all (a family a process never touches reports zero),
 * so that the primary's sum over processes (src/supervisor/metrics-hub.ts) has
 * one shape whatever the process. Children answer the primary's scrape here.
 */
import { Counter, Gauge, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client'
import { LocalCounter, LocalHistogram } from './local.js'
import type { MetricsCollect, MetricsReport } from '../supervisor/messages.js'

export const registry = new Registry()

/** Latency buckets, seconds: ingest answers in about a millisecond, a slow control read in seconds. */
const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

export const metrics = {
  // Per request on the ingest path: local families (./local-metrics.ts), summed into the scrape like prom-client's.
  requests: new LocalCounter('svc_http_requests_total', 'Requests answered, by process role, route (operation id) and status (aborted: the client left first).', ['role', 'route', 'status']),
  duration: new LocalHistogram('svc_http_request_duration_seconds', 'Time from a request\'s handler to its answer, by process role and route.', ['role', 'route'], SECONDS),
  bytesIn: new LocalCounter('svc_ingest_bytes_in_total', 'Body bytes read by the ingest routes.', ['route']),
  stored: new LocalCounter('svc_ingest_stored_total', 'Ingest items committed, by kind (chunk or signals).', ['kind']),
  duplicates: new LocalCounter('svc_ingest_duplicates_total', 'Chunks acknowledged as duplicates of one already stored.'),
  dropped: new LocalCounter('svc_ingest_dropped_total', 'Ingest payloads answered 200 but not stored (unusable: contract section 7, rule 2).'),
  refused: new LocalCounter('svc_ingest_refused_total', 'Ingest requests refused, by error code.', ['code']),
  batchItems: new LocalHistogram('svc_write_batch_items', 'Items per write transaction handed to a writer thread.', [], [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]),
  journalDelivery: new LocalHistogram('svc_journal_delivery_seconds', 'Cluster mode: from the log storing an ingest entry to this node receiving it (the NATS servers\' clock against this node\'s).', [], [...SECONDS, 10, 30]),
  journalApply: new LocalHistogram('svc_journal_apply_seconds', 'Cluster mode: from this node receiving an ingest entry to its commit in this node\'s LMDB.', [], [...SECONDS, 10, 30]),
  logGroupItems: new LocalHistogram('svc_log_group_items', 'Cluster mode: ingest items per log message (group commit).', [], [1, 2, 4, 8, 16, 32, 64, 128, 256]),
  commitSeconds: new LocalHistogram('svc_lmdb_commit_duration_seconds', 'Duration of one ingest write transaction in LMDB (appendBatch, commit included).', [], SECONDS),
  queueItems: new Gauge({ name: 'svc_write_queue_items', help: 'Ingest items held by the fronts\' write queues (waiting or being written).', registers: [registry] }),
  queueBytes: new Gauge({ name: 'svc_write_queue_bytes', help: 'Body bytes held by the fronts\' write queues.', registers: [registry] }),
  turnsQueued: new Gauge({ name: 'svc_control_turns_waiting', help: 'Operations waiting for their organisation\'s turn on the control worker (src/control/turns.ts).', registers: [registry] }),
  foldLag: new Gauge({ name: 'svc_deriver_unfolded_batches', help: 'Signal batches stored but not yet folded into the aggregates.', registers: [registry] }),
  backfillsRunning: new Gauge({ name: 'svc_backfills_running', help: 'Page backfills running now.', registers: [registry] }),
  backfillSessions: new Counter({ name: 'svc_backfill_sessions_rekeyed_total', help: 'Sessions re-keyed by page backfills.', registers: [registry] }),
  backfillsDone: new Counter({ name: 'svc_backfills_done_total', help: 'Page backfills finished.', registers: [registry] }),
  purgeRuns: new Counter({ name: 'svc_purge_runs_total', help: 'Retention passes finished.', registers: [registry] }),
  purgeSessions: new Counter({ name: 'svc_purge_sessions_total', help: 'Sessions whose recordings retention purged.', registers: [registry] }),
  purgeChunks: new Counter({ name: 'svc_purge_chunks_total', help: 'Chunks retention deleted.', registers: [registry] }),
  purgeBytes: new Counter({ name: 'svc_purge_bytes_total', help: 'Chunk bytes retention deleted.', registers: [registry] }),
  storageBytes: new Gauge({ name: 'svc_storage_bytes', help: 'Bytes stored, by project and kind (chunks: counted exactly; signals, aggregates: the store\'s pages for them, shared out by signal batches).', labelNames: ['project', 'kind'], registers: [registry] }),
  bytesPerMinute: new Gauge({ name: 'svc_storage_bytes_per_recorded_minute', help: 'Chunk bytes held per minute of recording they span, by project.', labelNames: ['project'], registers: [registry] }),
  completeSessions: new Gauge({ name: 'svc_sessions_complete_ratio', help: 'Share of the project\'s sessions whose recording is complete (sessions.list completeness.complete), by project.', labelNames: ['project'], registers: [registry] }),
  storageFileBytes: new Gauge({ name: 'svc_storage_file_bytes', help: 'Size of the store\'s data files on disk (LMDB files do not shrink; freed pages are reused).', registers: [registry] }),
  storageBudget: new Gauge({ name: 'svc_storage_budget_bytes', help: 'STORAGE_BUDGET in bytes (0: none).', registers: [registry] }),
  evictedSessions: new Counter({ name: 'svc_storage_evicted_sessions_total', help: 'Sessions whose recordings the disk budget deleted, by project.', labelNames: ['project'], registers: [registry] }),
  evictedBytes: new Counter({ name: 'svc_storage_evicted_bytes_total', help: 'Chunk bytes the disk budget deleted, by project.', labelNames: ['project'], registers: [registry] }),
  journalFollowerFailures: new Counter({ name: 'svc_journal_follower_failures_total', help: 'Cluster mode: times a stream\'s follower failed (the log\'s reader, or storage while applying) and resumed from the applied position, by stream.', labelNames: ['stream'], registers: [registry] }),
  logStreamBytes: new Gauge({ name: 'svc_log_stream_bytes', help: 'Cluster mode: bytes each stream of the log holds, as JetStream counts them, read at the scrape.', labelNames: ['stream'], registers: [registry] }),
  logStreamMaxBytes: new Gauge({ name: 'svc_log_stream_max_bytes', help: 'Cluster mode: each stream\'s max_bytes (-1: none); a stream at it refuses new entries, and ingest answers 429.', labelNames: ['stream'], registers: [registry] }),
  journalBehind: new Gauge({ name: 'svc_journal_behind_entries', help: 'Cluster mode: entries each stream of the log holds past what this node has applied (the stream\'s last sequence minus the applied position), read at the scrape.', labelNames: ['stream'], registers: [registry] }),
  journalDiverged: new Counter({ name: 'svc_journal_diverged_total', help: "Cluster mode: log places where a replica this node read held another message than the stream's leader; the leader's was applied (src/journal/diverged.ts, applied-check.ts).", registers: [registry] }),
  journalChecked: new Counter({ name: 'svc_journal_checked_total', help: "Cluster mode: applied ingest messages checked against the stream's leader (src/journal/applied-check.ts).", registers: [registry] }),
  journalControlDiverged: new Counter({ name: 'svc_journal_control_diverged_total', help: "Cluster mode: control entries this node applied that are not the stream leader's at their place: rebuild the node (docs/cluster-mode.md).", registers: [registry] }),
  journalUnchecked: new Counter({ name: 'svc_journal_unchecked_total', help: "Cluster mode: applied ingest messages never checked against the leader: more arrived than the check's budget reads (src/journal/applied-check.ts).", registers: [registry] }),
  journalRefused: new Counter({ name: 'svc_journal_entries_refused_total', help: 'Cluster mode: log entries skipped without being applied, by reason (unauthenticated, malformed, unknown_operation, replayed).', labelNames: ['reason'], registers: [registry] }),
  signInRefused: new Counter({ name: 'svc_signin_refused_total', help: 'Sign-in attempts refused by a throttle budget before any password check, by budget (address, pair, account).', labelNames: ['budget'], registers: [registry] }),
  restarts: new Counter({ name: 'svc_process_restarts_total', help: 'Child processes the primary restarted after they exited, by child.', labelNames: ['child'], registers: [registry] }),
  // `max`, not the default sum: every front reports the same engine once.
  engine: new Gauge({ name: 'svc_http_engine_info', help: 'The HTTP engine the fronts serve with (1 for the one in use).', labelNames: ['engine'], aggregator: 'max', registers: [registry] }),
}

/** Work done just before a scrape (gauges read from their source: queue depth, fold lag, the log's streams). */
const beforeScrape: Array<() => void | Promise<void>> = []

/** `update` runs before each scrape, which waits for it when it answers a promise (bound its wait: a scrape waits too). */
export function onScrape(update: () => void | Promise<void>): void {
  beforeScrape.push(update)
}

const LOCAL = [metrics.requests, metrics.duration, metrics.bytesIn, metrics.stored, metrics.duplicates, metrics.dropped, metrics.refused, metrics.batchItems, metrics.logGroupItems, metrics.journalDelivery, metrics.journalApply, metrics.commitSeconds]

export async function snapshot(): Promise<MetricObjectWithValues<MetricValue<string>>[]> {
  await Promise.all(beforeScrape.map((update) => update()))
  return [...(await registry.getMetricsAsJSON()), ...LOCAL.map((family) => family.toJSON())]
}

/** Answers the primary's scrapes over the IPC channel (a child process). */
export function answerScrapes(): void {
  process.on('message', (message: MetricsCollect) => {
    if (message?.type !== 'metrics-collect') return
    void snapshot().then((metrics) => process.send?.({ type: 'metrics-report', id: message.id, metrics } satisfies MetricsReport))
  })
}
