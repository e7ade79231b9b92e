/** Entry of the control worker: every route that is not ingest (projects, setup, admin, website). */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import type { Duplex } from 'node:stream'
import { errorBody, STATUS_LINES, statusOf } from '../errors.js'
import { loadConfig } from '../config.js'
import { setDocumentationUrl } from '../errors.js'
import { log } from '../log.js'
import type { ChildMessage } from '../supervisor/messages.js'
import { answerScrapes, metrics, onScrape } from '../metrics/registry.js'
import { openStore } from '../store/open.js'
import { ReopenableStore } from '../store/reopenable.js'
import { answerPauses } from '../supervisor/pausing.js'
import { joinCluster, layoutOf, type ClusterNode } from '../journal/node.js'
import { scrubLog } from '../journal/log-scrub.js'
import { removedAnything, subjectOf, type ErasureRecord } from '../store/erasure-store.js'
import { journalChunkBytes } from '../journal/chunk-bytes.js'
import { BackfillRunner } from '../grouping/backfill.js'
import { ErasureRunner } from '../recordings/erasure-runner.js'
import { erasureIdKey } from '../recordings/erasure-ids.js'
import { lastCompactionAt, wantCompaction } from '../store/lmdb/compaction.js'
import { scheduleRetention } from '../recordings/retention.js'
import { budgetBytes, scheduleBudget } from '../recordings/budget.js'
import { recordStorageUse } from '../metrics/storage.js'
import { scheduleHousekeeping } from '../accounts/housekeeping.js'
import { createControl } from './control.js'
import { loadDashboardFiles } from './dashboard-files.js'
import { startFoldThread } from './fold-thread.js'
import { threadReads } from './read-pool.js'
import { fromFront } from './front-link.js'
import { routeOf, writeError } from './router.js'
import { LiveBoard, liveBoardPath } from '../live/board.js'
import { relayWatches } from '../live/relay.js'

const config = loadConfig()
if (!config.controlSecret) throw new Error('SVC_CONTROL_SECRET is not set: the control worker is started by the primary (npm start), which sets it')
setDocumentationUrl(`${config.directUrl}/openapi.json`)
// Closed and opened again by an online compaction (src/store/reopenable.ts says why modules get a stand-in).
const reopenable = new ReopenableStore(() => openStore(config))
const local = reopenable.store
// Cluster mode: mutations go through the log, and this node's LMDB follows it (src/journal/).
// Which sessions are in progress and watched, shared with this node's fronts (src/live/board.ts). In the cluster mode
// what the applier writes is what is in progress, whichever node took it, and watches travel between nodes (relay.ts).
const live = new LiveBoard(liveBoardPath(config.dataDir))
const cluster = config.natsUrl ? await joinCluster(config, local, (projectId, sessionKey) => live.seen(projectId, sessionKey)) : undefined
const relay = cluster && relayWatches(cluster.log.journal.nc, cluster.seal, live)
if (cluster) live.startSyncing()
const store = cluster?.store ?? local
const backfill = new BackfillRunner(store, { batch: config.backfillBatch, pauseMs: config.backfillPauseMs })
// Erasure ids, confirmations and the keyed hashes requests name their subject by (src/store/erasure-subjects.ts).
const idKey = erasureIdKey(config)
const erasures = new ErasureRunner(store, {
  batch: config.backfillBatch,
  pauseMs: config.backfillPauseMs,
  subjectKey: idKey,
  // An erasure that removed nothing has nothing to compact away: sent again and again, it stops nothing.
  onDone: (erasure) => removedAnything(erasure) && requestCompaction(),
  beforeSteps: cluster && ((erasure) => scrubErasure(cluster, erasure)),
  storeOpen: () => !reopenable.whenOpen(),
})
// An erasure's bytes leave this node's files by a compaction (src/store/lmdb/compaction.ts); in the cluster mode the
// log's copies went before its first step (scrubErasure).
const scrubbed = (erasure: { finishedAt?: number }) => erasure.finishedAt !== undefined && lastCompactionAt(config.dataDir) >= erasure.finishedAt
// The aggregate reads run in threads of their own, on this node's LMDB (src/control/read-pool.ts).
const reads = threadReads(config, config.readThreads, config.readDeadlineMs)
const control = createControl({ store, config, reads, backfill, erasures, scrubbed, live, erasureIdKey: idKey, chunkBytes: cluster && journalChunkBytes(local, cluster.log, cluster.seal), site: { pagesDir: new URL('./site/', import.meta.url), publicDir: new URL('./public/', import.meta.url), docsDir: new URL('./docs/', import.meta.url) } })
// Backfills and erasures a killed worker left running go on from their last committed step.
backfill.resumeAll()
erasures.resumeAll()
// Cluster mode: an erasure another node was asked for reaches this one through the log; start it here too (a look at
// the running erasures, a small table, twice a second).
const stopPickingUp = cluster ? erasures.pickUpEvery(500) : undefined

/** The log's messages holding what `erasure` names, rewritten without it (src/journal/log-scrub.ts). */
async function scrubErasure(node: ClusterNode, erasure: ErasureRecord): Promise<void> {
  const by = subjectOf(erasure)
  const places = local.erasedPlaces(erasure.projectId, by, idKey)
  const result = await scrubLog(node.log, node.seal, layoutOf(config), { projectId: erasure.projectId, by, places, subjectKey: idKey }, config.natsDeadlineMs)
  // Ids and counts only, as every erasure line.
  log.info('erasure: the log no longer holds what it names', { id: erasure.id, projectId: erasure.projectId, messages: places.messages.length, rewritten: result.rewritten, items: result.items })
}

let compactionTimer: NodeJS.Timeout | undefined
/**
 * After COMPACTION_DELAY_MS (at once by default), and at least COMPACTION_INTERVAL_MS after the last compaction, the
 * primary pauses every process, compacts and resumes them (src/supervisor/compaction-round.ts): a lone erasure's bytes
 * leave the files within seconds, and however many organisations erase, the store is copied at most once an interval.
 * Noted first, so a stop meanwhile does not lose it.
 */
function requestCompaction(): void {
  wantCompaction(config.dataDir)
  const wait = Math.max(config.compactionDelayMs, lastCompactionAt(config.dataDir) + config.compactionIntervalMs - Date.now())
  compactionTimer ??= setTimeout(() => {
    compactionTimer = undefined
    process.send?.({ type: 'compact' } satisfies ChildMessage)
  }, wait)
}
const stopRetention = scheduleRetention(store, config.retentionDays, config.retentionIntervalMs)
// Cluster mode: the budget is the recording streams' max_bytes (src/journal/streams.ts); the log refuses past it, and a
// node evicting from its own LMDB alone would answer differently from the others.
const stopBudget = config.storageBudget && !cluster ? scheduleBudget(store, budgetBytes(config.storageBudget, config.dataDir)) : undefined
if (config.storageBudget && cluster) metrics.storageBudget.set(budgetBytes(config.storageBudget, config.dataDir))
const stopHousekeeping = scheduleHousekeeping(store, config.auditRetentionDays)
// The aggregates are folded in behind ingest by one thread for the whole machine (src/store/lmdb/fold-log.ts).
let foldThread = config.aggregateSignals ? startFoldThread(config) : undefined
const dashboard = loadDashboardFiles(new URL('./public/app/', import.meta.url))
// The head limit above the front's (MAX_HEADER_BYTES): what a front accepted and forwards is never refused here as too large.
onScrape(() => {
  // While a compaction has the store closed, the gauges keep their last values.
  if (reopenable.whenOpen()) return
  metrics.foldLag.set(store.derivationLag())
  metrics.backfillsRunning.set(backfill.runningCount)
  recordStorageUse(store.storageUse())
})
// How full the log's streams are: what a self-hoster watches to raise a limit before ingest answers 429.
if (cluster) onScrape(() => cluster.recordLogUsage())
answerScrapes()

/** Counts and times the request as it finishes; `fallback` names what answered it outside the API table. */
function measure(res: ServerResponse): { fallback: string } {
  const started = performance.now()
  const named = { fallback: 'unmatched' }
  res.once('finish', () => {
    const label = routeOf(res) ?? named.fallback
    metrics.requests.labels('control', label, String(res.statusCode)).inc()
    metrics.duration.labels('control', label).observe((performance.now() - started) / 1000)
  })
  return named
}

const server = createServer({ maxHeaderSize: Math.max(64 * 1024, config.maxHeaderBytes * 2) }, (req, res) => {
  const named = measure(res)
  // Any local user can reach a loopback port: only the fronts, which hold this start's secret, are answered.
  if (!fromFront(req, config.controlSecret)) return writeError(res, 'unauthorized', { error: 'The control port serves the service\'s own front processes only.', hint: `Send requests to the service's address (${config.directUrl}).` })
  try {
    if (dashboard.serve(req, res)) return void (named.fallback = 'dashboard')
  } catch (error) {
    // A throw in a node:http request listener is uncaught and ends the worker; end only this request.
    log.error('dashboard handler failed', { error: String(error), stack: (error as Error)?.stack })
    return writeError(res, 'internal_error')
  }
  // A compaction has the store closed: the request waits for it (a second or two) rather than being refused.
  const closed = reopenable.whenOpen()
  if (closed) return void closed.then(() => handle(req, res))
  handle(req, res)
})

function handle(req: IncomingMessage, res: ServerResponse): void {
  if (!cluster) return void control.handle(req, res)
  // Read your writes: whatever any node acknowledged before this request is applied here first (bounded).
  void cluster.applier.caughtUp(config.natsDeadlineMs).then(() => control.handle(req, res))
}
server.keepAliveTimeout = 60_000
// A request node:http cannot parse gets the contract's JSON error, not Node's bare-text 400.
server.on('clientError', (error: NodeJS.ErrnoException, socket) => answerClientError(error, socket))

// An online compaction: requests wait at the door, those in flight finish their store calls, and the fold thread, the
// read threads and the live board close their environments too; all open again on resume.
answerPauses('control', {
  async pause() {
    await Promise.all([reopenable.close(), foldThread?.stop(), reads.pause(), live.suspend()])
    foldThread = undefined
  },
  async resume() {
    await reopenable.reopen()
    live.reopen()
    reads.resume()
    if (config.aggregateSignals && !stopping) foldThread = startFoldThread(config)
  },
})

server.listen(config.controlPort, '127.0.0.1', () => {
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : config.controlPort
  log.info('control listening', { port })
  const ready: ChildMessage = { type: 'ready', role: 'control', port }
  process.send?.(ready)
})

function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy()
  const body = JSON.stringify(errorBody('invalid_request', { error: 'The request is not valid HTTP/1.1.' }))
  socket.end(`HTTP/1.1 ${STATUS_LINES[statusOf('invalid_request')]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
}

let stopping = false
function stop(): void {
  if (stopping) return
  stopping = true
  backfill.stop()
  erasures.stop()
  stopPickingUp?.()
  clearTimeout(compactionTimer)
  stopRetention()
  stopBudget?.()
  stopHousekeeping()
  server.close(() => {
    relay?.close()
    void Promise.all([foldThread?.stop(), reads.close(), cluster?.close(), live.close()])
      .then(() => reopenable.close())
      .then(() => process.exit(0))
  })
  server.closeIdleConnections()
  setTimeout(() => process.exit(0), 5_000).unref()
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
process.on('disconnect', stop)
