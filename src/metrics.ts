/**
 * The metric families of every process, in one registry per process. Each
 * process defines them all (a family a process never touches reports zero),
 * so that the primary's sum over processes (src/cluster/metrics-hub.ts) has
 * one shape whatever the process. Children answer the primary's scrape here.
 */
import { Counter, Gauge, Histogram, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client'
import type { MetricsCollect, MetricsReport } from './messages.js'

export const registry = new Registry()

/** Latency buckets, seconds: ingest answers in about a millisecond, a slow control read in seconds. */
const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

export const metrics = {
  requests: new Counter({ name: 'svc_http_requests_total', help: 'Requests answered, by process role, route (operation id) and status.', labelNames: ['role', 'route', 'status'], registers: [registry] }),
  duration: new Histogram({ name: 'svc_http_request_duration_seconds', help: 'Time from a request\'s handler to its answer, by process role and route.', labelNames: ['role', 'route'], buckets: SECONDS, registers: [registry] }),
  bytesIn: new Counter({ name: 'svc_ingest_bytes_in_total', help: 'Body bytes read by the ingest routes.', labelNames: ['route'], registers: [registry] }),
  queueItems: new Gauge({ name: 'svc_write_queue_items', help: 'Ingest items held by the fronts\' write queues (waiting or being written).', registers: [registry] }),
  queueBytes: new Gauge({ name: 'svc_write_queue_bytes', help: 'Body bytes held by the fronts\' write queues.', registers: [registry] }),
  batchItems: new Histogram({ name: 'svc_write_batch_items', help: 'Items per write transaction handed to a writer thread.', buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], registers: [registry] }),
  commitSeconds: new Histogram({ name: 'svc_lmdb_commit_duration_seconds', help: 'Duration of one ingest write transaction in LMDB (appendBatch, commit included).', buckets: SECONDS, registers: [registry] }),
  stored: new Counter({ name: 'svc_ingest_stored_total', help: 'Ingest items committed, by kind (chunk or signals).', labelNames: ['kind'], registers: [registry] }),
  duplicates: new Counter({ name: 'svc_ingest_duplicates_total', help: 'Chunks acknowledged as duplicates of one already stored.', registers: [registry] }),
  dropped: new Counter({ name: 'svc_ingest_dropped_total', help: 'Ingest payloads answered 200 but not stored (unusable: contract section 7, rule 2).', registers: [registry] }),
  refused: new Counter({ name: 'svc_ingest_refused_total', help: 'Ingest requests refused, by error code.', labelNames: ['code'], registers: [registry] }),
  deriverLag: new Gauge({ name: 'svc_deriver_unfolded_batches', help: 'Signal batches stored but not yet folded into the aggregates.', registers: [registry] }),
  backfillsRunning: new Gauge({ name: 'svc_backfills_running', help: 'Page backfills running now.', registers: [registry] }),
  backfillSessions: new Counter({ name: 'svc_backfill_sessions_rekeyed_total', help: 'Sessions re-keyed by page backfills.', registers: [registry] }),
  backfillsDone: new Counter({ name: 'svc_backfills_done_total', help: 'Page backfills finished.', registers: [registry] }),
  purgeRuns: new Counter({ name: 'svc_purge_runs_total', help: 'Retention passes finished.', registers: [registry] }),
  purgeSessions: new Counter({ name: 'svc_purge_sessions_total', help: 'Sessions whose recordings retention purged.', registers: [registry] }),
  purgeChunks: new Counter({ name: 'svc_purge_chunks_total', help: 'Chunks retention deleted.', registers: [registry] }),
  purgeBytes: new Counter({ name: 'svc_purge_bytes_total', help: 'Chunk bytes retention deleted.', registers: [registry] }),
  restarts: new Counter({ name: 'svc_process_restarts_total', help: 'Child processes the primary restarted after they exited, by child.', labelNames: ['child'], registers: [registry] }),
  // `max`, not the default sum: every front reports the same engine once.
  engine: new Gauge({ name: 'svc_http_engine_info', help: 'The HTTP engine the fronts serve with (1 for the one in use).', labelNames: ['engine'], aggregator: 'max', registers: [registry] }),
}

/** Work done just before a scrape (gauges read from their source: queue depth, deriver lag). */
const beforeScrape: Array<() => void> = []

export function onScrape(update: () => void): void {
  beforeScrape.push(update)
}

export async function snapshot(): Promise<MetricObjectWithValues<MetricValue<string>>[]> {
  for (const update of beforeScrape) update()
  return registry.getMetricsAsJSON()
}

/** Answers the primary's scrapes over the IPC channel (a child process). */
export function answerScrapes(): void {
  process.on('message', (message: MetricsCollect) => {
    if (message?.type !== 'metrics-collect') return
    void snapshot().then((metrics) => process.send?.({ type: 'metrics-report', id: message.id, metrics } satisfies MetricsReport))
  })
}
