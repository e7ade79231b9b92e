/**
 * The primary process: starts the control worker, then WORKERS front
 * processes on one port, restarts any that dies, and stops them all on
 * SIGTERM/SIGINT. It opens the store only while every child has it closed, to
 * compact it after an erasure (src/store/lmdb/compaction.ts): at start-up
 * before any child starts, and online while they are paused (compaction-round.ts).
 */
import { fork, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import type { Config } from '../config.js'
import { log } from '../log.js'
import type { ChildMessage, PrimaryMessage, ReadyMessage } from './messages.js'
import { metrics } from '../metrics/registry.js'
import { createMetricsHub } from './metrics-hub.js'
import { CompactionRounds } from './compaction-round.js'

// Paths are relative to the built bundle in dist/.
const FRONT_ENTRY = new URL('./front.js', import.meta.url)
const CONTROL_ENTRY = new URL('./control.js', import.meta.url)

/** Restart backoff: 100 ms doubling to 5 s; a child that lived 30 s starts again from 100 ms. */
const BACKOFF_MIN_MS = 100
const BACKOFF_MAX_MS = 5_000
const STABLE_MS = 30_000

interface Supervised {
  name: string
  entry: URL
  child?: ChildProcess
  backoff: number
  startedAt: number
  /** Restarts of this child so far: logged with each one, so a test or an operator counts them from the output. */
  restarts: number
  /** Answered `ready` since its last start: a compaction round waits for it to pause (compaction-round.ts). */
  ready: boolean
}

/**
 * Compacts the store while no child has it open. A failure is logged, and the erased bytes wait for the next one; a
 * process outside the service holding the store open is named, for the operator to stop, and answers false: try later.
 */
async function compact(config: Config): Promise<boolean> {
  // Loaded here only: the primary opens the store for this alone.
  const { compactStore, StoreHeldElsewhere } = await import('../store/lmdb/compaction.js')
  try {
    const started = Date.now()
    const sizes = await compactStore(config.dataDir, config.mapSizeBytes)
    log.info('store compacted', { bytesBefore: sizes.before, bytesAfter: sizes.after, ms: Date.now() - started })
    return true
  } catch (error) {
    if (error instanceof StoreHeldElsewhere) log.error('another process has the store open: not compacted; stop it (npm run admin, a backup) and the compaction runs at the next try', { pids: error.pids })
    else log.error('compaction failed; erased bytes may stay in the files until the next one', { error: String(error) })
    // A failing copy (a full disk) is not tried again every minute with every process paused for it.
    return !(error instanceof StoreHeldElsewhere)
  }
}

/**
 * A port free now, for a child to listen on a moment later. Drawn at random
 * below Linux's ephemeral range (32768 and up), where the kernel hands out
 * ports to every listen(0) of every process: a port it had just given us
 * would be the next it gives another, which could take it before the child
 * listens.
 */
async function freePort(host: string): Promise<number> {
  for (let tries = 0; tries < 20; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000)
    if ((await listenOn(host, port).catch(() => undefined)) !== undefined) return port
  }
  return listenOn(host, 0)
}

function listenOn(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(port, host, () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

export async function runPrimary(config: Config): Promise<void> {
  const port = config.port || (await freePort(config.host))
  // Unset: the control worker listens on a port the kernel gives it, tells us, and keeps it across its restarts.
  let controlPort = config.controlPort
  let controlPortKnown: (port: number) => void = () => {}
  const controlPortReady = controlPort ? Promise.resolve(controlPort) : new Promise<number>((resolve) => (controlPortKnown = resolve))
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    CONTROL_PORT: String(controlPort),
    DATA_DIR: config.dataDir,
    UWS_HTTP_MAX_HEADERS_SIZE: String(config.maxHeaderBytes),
    // Only the children learn it (their environment is readable by this user alone).
    SVC_CONTROL_SECRET: randomBytes(32).toString('hex'),
  }
  let stopping = false
  let started = false
  const children: Supervised[] = []
  const hub = createMetricsHub(() => children.map((unit) => unit.child))
  const rounds = new CompactionRounds(() => children, () => compact(config), () => stopping)

  /**
   * A front (and its writer thread, V8 flags being per process) gets a larger
   * young generation: each request leaves a body and a few objects that die
   * within a batch, and with V8's default semi-space they were scavenged over
   * and over (FRONT_SEMI_SPACE_MB, docs/configuration.md).
   */
  function execArgvOf(entry: URL): string[] {
    if (entry !== FRONT_ENTRY || config.frontSemiSpaceMb === 0) return process.execArgv
    return [...process.execArgv, `--max-semi-space-size=${config.frontSemiSpaceMb}`]
  }

  function start(entry: URL, unit: Supervised, onReady?: (message: ReadyMessage) => void): void {
    unit.startedAt = Date.now()
    unit.ready = false
    const child = fork(entry, [], { env, execArgv: execArgvOf(entry), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    unit.child = child
    child.on('message', (message: ChildMessage) => {
      if (message?.type === 'ready') {
        unit.ready = true
        if (message.role === 'control' && !controlPort) {
          controlPort = message.port
          env.CONTROL_PORT = String(controlPort)
          controlPortKnown(controlPort)
        }
        onReady?.(message)
      } else if (message?.type === 'control-port-request') {
        void controlPortReady.then((port) => child.connected && child.send({ type: 'control-port', port } satisfies PrimaryMessage))
      } else if (message?.type === 'compact') compactWhenServing()
      else if (message?.type === 'paused') rounds.paused(child, message.round)
      else hub.handle(child, message)
    })
    child.on('exit', (code, signal) => {
      rounds.exited(child)
      if (stopping) return
      if (!started) {
        // A child that dies before the cluster first serves will not do better on a restart: fail loudly.
        log.error('child exited during start-up; stopping', { name: unit.name, code, signal })
        void stop('SIGTERM', 1)
        return
      }
      const lived = Date.now() - unit.startedAt
      unit.backoff = lived > STABLE_MS ? BACKOFF_MIN_MS : Math.min(unit.backoff * 2, BACKOFF_MAX_MS)
      unit.restarts += 1
      metrics.restarts.inc({ child: unit.name })
      log.warn('child exited; restarting', { name: unit.name, code, signal, restartInMs: unit.backoff, restarts: unit.restarts })
      // Not while a compaction has the store closed: the child would open the file about to be replaced.
      setTimeout(() => !stopping && rounds.whenOpen(() => !stopping && start(entry, unit)), unit.backoff)
    })
  }

  function launch(name: string, entry: URL): Promise<ReadyMessage> {
    const unit: Supervised = { name, entry, backoff: BACKOFF_MIN_MS / 2, startedAt: 0, restarts: 0, ready: false }
    // Present from the start, so that a scrape shows 0 rather than no series for a child never restarted.
    metrics.restarts.inc({ child: name }, 0)
    children.push(unit)
    return new Promise((resolve) => start(entry, unit, resolve))
  }

  const stopChild = ({ child }: Supervised) =>
    new Promise<void>((resolve) => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
      setTimeout(() => child.kill('SIGKILL'), 15_000).unref()
    })

  async function stop(signal: NodeJS.Signals, exitCode = 0): Promise<void> {
    if (stopping) return
    stopping = true
    log.info('stopping', { signal })
    // A compaction under way ends first: its children resume, then write what they held before they stop.
    await rounds.settled()
    await Promise.all(children.map(stopChild))
    process.exit(exitCode)
  }

  let compactOnceStarted = false

  /** Not while starting: the fronts being launched would not yet answer a pause. */
  function compactWhenServing(): void {
    if (started) rounds.request()
    else compactOnceStarted = true
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))

  // An erasure finished but the service stopped before its compaction: nothing has the store open yet.
  if ((await import('../store/lmdb/compaction.js')).compactionWanted(config.dataDir)) await compact(config)
  // The fronts start beside the control worker, not after it: each takes a second or so to load, and the
  // service announces itself only once all are ready (a control route asked meanwhile is answered 500 with a retry hint).
  const [, ...fronts] = await Promise.all([launch('control', CONTROL_ENTRY), ...Array.from({ length: config.workers }, (_, i) => launch(`front-${i + 1}`, FRONT_ENTRY))])
  started = true
  if (compactOnceStarted) rounds.request()
  const native = fronts.every((m) => m.native === true)
  const http = fronts[0]?.http
  log.info('listening', { url: `http://${config.host}:${port}`, port, workers: config.workers, native, http, dataDir: config.dataDir })
  if (!native) log.warn('serving on the pure-Node fallback of uWebSockets.js: expect a fraction of the native throughput (docs/benchmarks.md)', { http, node: process.version })
  process.send?.({ type: 'ready', role: 'front', port, native } satisfies ChildMessage)
}
