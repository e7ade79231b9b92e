/**
 * Entry of a front process (started by the primary, several per machine, all
 * on one port through SO_REUSEPORT).
 */
import { Piscina } from 'piscina'
import { loadConfig } from '../config.js'
import { setDocumentationUrl } from '../errors.js'
import { log } from '../log.js'
import type { ChildMessage, WriterInit } from '../supervisor/messages.js'
import { openStore } from '../store/open.js'
import { answerScrapes, metrics, onScrape } from '../metrics/registry.js'
import { createFrontApp } from './app.js'
import { BodyPool } from './body-pool.js'
import { loadArtifacts } from './artifacts.js'
import { newCounters } from './ingest.js'
import { createMetricsRoute } from './metrics-route.js'
import { UntrustedProxyWatch } from './proxy-warning.js'
import { controlPortOf } from '../supervisor/control-port.js'
import { answerPauses } from '../supervisor/pausing.js'
import { ReopenableStore } from '../store/reopenable.js'
import { LiveBoard, liveBoardPath } from '../live/board.js'
import { createProxy } from './proxy.js'
import { loadHttpEngine, NATIVE_PLATFORMS } from './uws.js'
import type { IngestSink } from '../ingest-sink/sink.js'
import { createWriteBatch } from '../ingest-sink/write-batch.js'
import { bigSignalsAside, inThreadPool, WriteQueue, type WriterPool } from '../ingest-sink/write-queue.js'
import { openJournal } from '../journal/connect.js'
import { JournalIngestSink } from '../ingest-sink/journal-sink.js'
import { groupBytesFor } from '../journal/group-commit.js'
import { NatsLog } from '../journal/nats-log.js'
import { layoutOf, logSealOf } from '../journal/node.js'

const config = loadConfig()
/** Idle body buffers a front keeps: a batch's worth of chunks several times over, a small part of its queue bound. */
const BODY_POOL_BYTES = 32 * 1024 * 1024
setDocumentationUrl(`${config.directUrl}/openapi.json`)
const engine = loadHttpEngine(config.uwsFallback, { maxHeaderBytes: config.maxHeaderBytes })
const uws = engine.uws
if (!engine.native) {
  log.warn('FRONT RUNS ON THE SLOW PURE-NODE FALLBACK OF uWebSockets.js: no native build loads here', {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    skipped: engine.skipped,
    native: NATIVE_PLATFORMS,
  })
}
if (engine.name === 'uws-native 20.30') {
  // Its parser closes an HTTP/1.0 connection without a byte of answer: nginx's default upstream protocol, `curl -0`.
  log.warn('this engine closes HTTP/1.0 requests without an answer: behind nginx set proxy_http_version 1.1 (deploy/nginx/svc.conf)', {
    http: engine.name,
    orAnswerThem: 'UWS_USE_FALLBACK=1 serves on node:http, which answers HTTP/1.0, at the cost docs/operations.md gives',
  })
}
if (config.trustProxy.spec) log.info('client addresses from X-Forwarded-For / Forwarded of trusted proxies', { trustProxy: config.trustProxy.spec })
// Closed and opened again by an online compaction (src/store/reopenable.ts says why modules get a stand-in).
const reopenable = new ReopenableStore(() => openStore(config))
const store = reopenable.store
// Cluster mode: an acknowledgement means the log holds the item (src/journal/); no writer pool here.
const journal = config.natsUrl ? await openJournal(config, layoutOf(config), 120_000) : undefined
let pool: WriterPool | undefined
// Writing on this thread, the front knows when a body is committed and reuses its buffer (body-pool.ts).
const bodies = !config.natsUrl && config.writerThreads === 0 ? new BodyPool(BODY_POOL_BYTES) : undefined
const live = new LiveBoard(liveBoardPath(config.dataDir))
live.startSyncing()
const sink = journal
  ? new JournalIngestSink(store, new NatsLog(journal), {
      layout: layoutOf(config),
      seal: logSealOf(config),
      deadlineMs: config.natsDeadlineMs,
      maxQueuedItems: config.ingestQueueItems,
      maxQueuedBytes: config.ingestQueueBytes,
      group: { ...config.natsGroup, maxBytes: Math.min(config.natsGroup.maxBytes, groupBytesFor(journal.nc.info?.max_payload)) },
      whenStoreOpen: () => reopenable.whenOpen(),
    })
  : undefined
const writeQueue = sink
  ? undefined
  : new WriteQueue(swappable(), {
    maxItems: config.writeBatchItems,
    maxBytes: config.writeBatchBytes,
    maxInFlight: Math.max(1, config.writerThreads) * config.writerTasks,
    maxQueuedItems: config.ingestQueueItems,
    maxQueuedBytes: config.ingestQueueBytes,
    // LMDB keeps a panicked environment unusable for every thread of this process: leave (after answering what is in
    // flight, 429 from here on) so that the primary starts a fresh process that opens it anew.
    onFatal: () => {
      log.error('storage had a fatal error; front restarts')
      void stop()
    },
    recycle: bodies && ((body) => bodies.give(body)),
    parseOnArrival: config.writerThreads === 0,
  })
const queue: IngestSink = sink ?? writeQueue!

/**
 * The writer pool behind a stand-in: an online compaction ends a pool's threads (each has the store open) and
 * starts new ones after it.
 */
function swappable(): WriterPool {
  pool = startWriterPool()
  return { run: (task, options) => pool!.run(task, options), destroy: () => pool!.destroy() }
}

/**
 * WRITER_THREADS=0: the front's own thread writes (lmdb-js still commits off it), with no structured clone or thread
 * hop, but for tasks carrying a large signals body, whose parsing goes to a thread (bigSignalsAside says why).
 */
let inThread: ReturnType<typeof bigSignalsAside> | undefined
function startWriterPool(): WriterPool {
  if (config.writerThreads === 0) return (inThread ??= bigSignalsAside(inThreadPool(createWriteBatch(store)), () => writerThreads(1)))
  return writerThreads(config.writerThreads)
}

function writerThreads(threads: number): WriterPool {
  const writerInit: WriterInit = { dataDir: config.dataDir, mapSizeBytes: config.mapSizeBytes, durability: config.durability, aggregateSignals: config.aggregateSignals, maxPagesPerProject: config.maxPagesPerProject }
  return new Piscina({
    filename: new URL('./writer.js', import.meta.url).href,
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Number.POSITIVE_INFINITY,
    concurrentTasksPerWorker: config.writerTasks,
    workerData: writerInit,
  })
}
const proxies = new UntrustedProxyWatch(config.trustProxy)
const proxy = createProxy(`http://127.0.0.1:${await controlPortOf(config.controlPort)}`, config.controlSecret, config.trustProxy, proxies, config.stalledReaderMs)
const counters = newCounters()
metrics.engine.set({ engine: engine.name }, 1)
onScrape(() => {
  metrics.queueItems.set(queue.queuedItems)
  metrics.queueBytes.set(queue.queuedBytes)
})
answerScrapes()
const artifacts = loadArtifacts(new URL('./public/', import.meta.url), { ...config, http: engine.name })
const lateProject = sink && ((pk: string) => sink.lateProject(pk))
const app = createFrontApp(uws, { store, whenStoreOpen: () => reopenable.whenOpen(), queue, counters, artifacts, proxy, proxies, metrics: createMetricsRoute(config.metricsToken, config.trustProxy, proxies), lateProject, bodies, live, liveFlushMs: config.liveFlushMs })

// An online compaction: the listening socket stays and requests are taken; batches wait in the queue, under its
// bounds, until the store is open again, and nothing is acknowledged before its commit.
answerPauses('front', {
  async pause() {
    await writeQueue?.hold()
    if (config.writerThreads > 0) await pool?.destroy()
    else await inThread?.stopThread()
    await live.suspend()
    await reopenable.close()
  },
  async resume() {
    await reopenable.reopen()
    live.reopen()
    if (config.writerThreads > 0 && writeQueue) pool = startWriterPool()
    writeQueue?.release()
  },
})

let listenSocket: unknown
app.listen(config.host, config.port, (socket) => {
  if (!socket) {
    log.error('front could not listen', { host: config.host, port: config.port })
    process.exit(1)
  }
  listenSocket = socket
  const port = uws.us_socket_local_port(socket)
  log.info('front listening', { port, native: engine.native, http: engine.name })
  const ready: ChildMessage = { type: 'ready', role: 'front', port, native: engine.native, http: engine.name }
  process.send?.(ready)
})

let stopping = false
async function stop(): Promise<void> {
  if (stopping) return
  stopping = true
  if (listenSocket) uws.us_listen_socket_close(listenSocket as never)
  // Let acknowledged work finish: answer what is in flight before leaving.
  const deadline = Date.now() + 10_000
  while (queue.busy && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  log.info('front stopped', { ...counters })
  await pool?.destroy()
  await journal?.close()
  await proxy.close()
  await live.close()
  await reopenable.close()
  process.exit(0)
}
process.on('SIGTERM', () => void stop())
process.on('SIGINT', () => void stop())
// The primary is gone (killed or crashed): do not linger as an orphan.
process.on('disconnect', () => void stop())
