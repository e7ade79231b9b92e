/**
 * `npm run bench`: the end-to-end benchmark of the ingest hot path. In one
 * run, on one machine, so that the ratios compare, every server pinned to one
 * core and the load generator (autocannon, in this process) to another
 * (bench/pin.ts):
 *   1. micro-benchmark of the pure hot functions (bench/micro.ts);
 *   2. the two ceilings: a bare uWebSockets.js handler (the front's) and raw
 *      lmdb-js puts (the storage's), with both durabilities;
 *   3. the peer: a plain node:http server with one lmdb-js put per request
 *      (bench/plain-peer.ts) against the service, alternating, with the CPU
 *      per request of each beside the floor (bare handler + raw put);
 *   4. the cluster, fresh, with a seeded project: 20 KB gzip chunks to
 *      /ingest, 5 KB batches to /signals, 2 MB bodies refused at the cap;
 *   5. /ingest with DURABILITY=flush (then commit again, to price it against
 *      the commit runs on both sides), and /signals again without the
 *      signal aggregates (AGGREGATE_SIGNALS=0), to price each;
 *   6. the fronts' memory over a 60 s /ingest run;
 *   7. a small grid of WRITER_THREADS × WRITE_BATCH_ITEMS × WRITER_TASKS, each setting run
 *      between two runs of the defaults, twice;
 *   8. one front on the native uWebSockets.js build against one on the pure-Node
 *      fallback (UWS_USE_FALLBACK=1), alternating, to price running without a native build;
 *   9. the cluster mode: one node on three local nats-servers against one on
 *      its embedded LMDB and against a raw JetStream publisher on the same
 *      streams, the NATS servers' CPU counted, with a second node's apply
 *      lag (bench/nats-stage.ts);
 * then writes bench/RESULTS.md. Loopback only; every server is stopped and
 * every data directory removed at the end.
 *
 * Flags: --quick (short runs, a smoke check of the benchmark itself; its
 * figures are not results), --out=FILE (default bench/RESULTS.md),
 * --only=STAGE,… (micro, front, storage, peer, cluster, nats, flush, aggregates, memory, grid, fallback:
 * run those and print their figures, without writing RESULTS.md),
 * --wait-quiet=SECONDS (wait up to that long for the rest of this shared
 * machine to use less than a third of a core before starting),
 * --ab=NAME=VALUE,… [--rounds=N] (only the service's defaults against those
 * settings, alternating, printed; BENCH_MAIN=PATH runs another build's
 * main.js as B; PEER=fastify makes B the fastify peer), --profile=DIR (the service writes V8 CPU
 * profiles there in the peer and A/B stages), --no-pin (pin nothing).
 */
import { execFileSync, execSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { LIMITS, loadConfig } from '../src/config.js'
import type { Figures } from './load.js'
import type { MicroFigure } from './micro.js'
import { probeDeclared, probeOversize, type ProbeResult } from './oversize-probe.js'
import { natsStage } from './nats-stage.js'
import { sectionNatsMode } from './report-nats.js'
import { abStage, peerStage } from './peer-stage.js'
import { pinning, pinSelf, SERVER_CORES } from './pin.js'
import { machineBusySeconds, mappingOf } from './proc.js'
import { chunkMeta, OVERSIZE_BYTES } from './payloads.js'
import { CONNECTIONS, chunk, foldCostRun, ingestSpec, MAIN_S, measure, oversize, oversizeSpec, progress, QUICK, secs, signals, signalsSpec, storageRun, warm, WARM_S } from './scenarios.js'
import { renderResults } from './report.js'
import type { GridPoint, Results, StorageFigures } from './results.js'
import { startBareUws, startBenchCluster, type ClusterTarget } from './targets.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const HERE = fileURLToPath(new URL('./', import.meta.url))
const OUT = process.argv.find((a) => a.startsWith('--out='))?.slice(6) ?? join(ROOT, 'bench', 'RESULTS.md')
const ONLY = process.argv.find((a) => a.startsWith('--only='))?.slice(7).split(',')
const stage = (name: string) => !ONLY || ONLY.includes(name)
const AB_FLAG = process.argv.find((a) => a.startsWith('--ab='))?.slice(5)
const AB = AB_FLAG ? Object.fromEntries(AB_FLAG.split(',').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])) : undefined
/** --rounds=N: rounds of --ab (default 4, 1 with --quick). */
const AB_ROUNDS = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? (QUICK ? 1 : 4))
const WAIT_QUIET_S = Number(process.argv.find((a) => a.startsWith('--wait-quiet='))?.slice(13) ?? 0)

/** The cluster's default where it runs: one front per core it may use (WORKERS unset, pinned to SERVER_CORES). */
const WORKERS = SERVER_CORES
const OVERSIZE_S = secs(6)
const MEMORY_S = QUICK ? 10 : 60
/** The memory run's warm-up: heaps and allocator arenas grow to the load's size in the first seconds. */
const MEMORY_WARM_S = QUICK ? 1 : 10
const GRID_S = secs(5)
const GRID_ROUNDS = QUICK ? 1 : 2
/** Rounds of the peer stage: the plain peer and the service, alternating. */
const PEER_ROUNDS = QUICK ? 1 : 2
/** Rounds of /signals with the aggregates off, then on. */
const AGGREGATE_ROUNDS = QUICK ? 1 : 2
/**
 * Settings tried against the defaults, [WRITER_THREADS, WRITE_BATCH_ITEMS, WRITER_TASKS]: a piscina writer thread
 * per front (the default before the front wrote its own batches), two, one transaction in flight, and smaller
 * batches. With 100 connections no front has more than about 50 items waiting, so limits above that (the default
 * is 64) all behave alike.
 */
const GRID_POINTS: [number, number, number][] = [
  [1, 64, 4],
  [2, 64, 2],
  [0, 64, 1],
  [0, 16, 4],
  [0, 32, 4],
]


// ---- stages ----

function machine(): Results['machine'] {
  const version = (pkg: string) => JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).version as string
  return {
    nproc: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: totalmem() / 1024 ** 3,
    node: process.version,
    kernel: execSync('uname -sr').toString().trim(),
    filesystem: execSync(`df -T ${tmpdir()} | tail -1 | awk '{print $2}'`).toString().trim(),
    uws: version('uWebSockets.js'),
    lmdb: version('lmdb'),
    piscina: version('piscina'),
    autocannon: version('autocannon'),
  }
}

function commit(): string {
  const head = execSync('git rev-parse --short HEAD', { cwd: ROOT }).toString().trim()
  const dirty = execSync('git status --porcelain -- src workers package.json', { cwd: ROOT }).toString().trim()
  return dirty ? `${head} (with uncommitted changes to src/, workers/ or package.json)` : head
}

/** The hot pure functions (bench/micro.ts) and URL grouping (bench/group-urls.ts), each in a fresh process. */
function micro(): MicroFigure[] {
  progress('micro-benchmarks of the hot pure functions…')
  const figures: MicroFigure[] = []
  for (const entry of ['micro.js', 'group-urls.js']) {
    if (!existsSync(join(HERE, entry))) continue
    figures.push(...(JSON.parse(execFileSync(process.execPath, [join(HERE, entry), '--json']).toString()) as MicroFigure[]))
  }
  for (const f of figures) progress(`  ${f.name}: ${Math.round(f.opsPerSec).toLocaleString('en-US')} ops/s`)
  return figures
}

async function frontCeiling(): Promise<Results['front']> {
  progress(`front ceiling: bare uWebSockets.js handler, ${WORKERS} processes on one port`)
  const bare = await startBareUws(WORKERS)
  try {
    // The same requests as the cluster's, path, query and X-Svc-Meta included: only the handler differs.
    const pk = 'svc_pk_0000000000000000'
    await warm(bare, ingestSpec('warm', pk, WARM_S))
    const chunkFigures = await measure(bare, ingestSpec('bare uWS, 20 KB body', pk, MAIN_S))
    const signalsFigures = await measure(bare, signalsSpec('bare uWS, 5 KB body', pk, MAIN_S))
    const oversizeFigures = await measure(bare, oversizeSpec('bare uWS, 2 MB body read whole', pk, secs(5)))
    return { chunk: chunkFigures, signals: signalsFigures, oversize: oversizeFigures }
  } finally {
    await bare.stop()
  }
}

/** The service's defaults (WRITER_THREADS, WRITER_TASKS, …), as a cluster started without settings has them. */
const defaults = loadConfig({})

/** The store's write path (appendBatch) from `processes` processes, each with WRITER_TASKS batches of `batch` chunks pending, commit durability. */
function storePath(processes: number, batch: number): StorageFigures {
  const inFlight = Math.max(1, defaults.writerThreads) * defaults.writerTasks
  progress(`store write path: appendBatch of ${batch} × ${chunk.byteLength} B chunks, ${processes} process(es) × ${inFlight} in flight, ${MAIN_S} s…`)
  return storageRun('store-path.js', 'chunks/s', (dir) => [dir, String(MAIN_S), String(processes), String(inFlight), String(batch)])
}

function storageCeiling(durability: 'commit' | 'flush'): StorageFigures {
  progress(`storage ceiling: raw lmdb-js puts of the ${chunk.byteLength} B chunk, durability ${durability}, ${CONNECTIONS} writers, ${MAIN_S} s…`)
  return storageRun('storage-ceiling.js', 'puts/s', (dir) => [dir, durability, String(MAIN_S), String(CONNECTIONS)])
}

/** The /signals floor's storage part: the batch parsed from its bytes and put, commit durability. */
function signalsStorageFloor(): StorageFigures {
  progress(`signals storage floor: the ${signals.byteLength} B batch parsed and put as data, ${CONNECTIONS} writers, ${MAIN_S} s…`)
  return storageRun('storage-ceiling.js', 'batches/s', (dir) => [dir, 'commit', String(MAIN_S), String(CONNECTIONS), 'signals'])
}


async function clusterCommit(): Promise<Results['cluster']> {
  progress(`cluster (WORKERS=${WORKERS}, DURABILITY=commit): start and seed a project`)
  const cluster = await startBenchCluster(WORKERS, { DURABILITY: 'commit' })
  try {
    await warm(cluster, ingestSpec('warm', cluster.publicKey, WARM_S))
    const ingest = await measure(cluster, ingestSpec('/ingest, 20 KB gzip chunks', cluster.publicKey, MAIN_S))
    const signalsFigures = await measure(cluster, signalsSpec('/signals, 5 KB batches', cluster.publicKey, MAIN_S))
    // While 100 connections push 2 MB bodies, probe now and then with headers alone: the 413 must still come back at once.
    const ingestPath = `/api/v1/ingest?pk=${cluster.publicKey}`
    const probeHeaders = { 'X-Svc-Meta': chunkMeta('probe', 0) }
    let loading = true
    const oversizeRun = measure(cluster, oversizeSpec('/ingest, 2 MB bodies (413)', cluster.publicKey, OVERSIZE_S)).finally(() => (loading = false))
    const probesUnderLoad: ProbeResult[] = []
    await sleep(1000)
    while (loading) {
      probesUnderLoad.push(await probeDeclared(cluster.port, ingestPath, probeHeaders, OVERSIZE_BYTES))
      await sleep(250)
    }
    const oversizeFigures = await oversizeRun
    progress(`  ${probesUnderLoad.length} probes under that load: ${probesUnderLoad.filter((p) => p.status === 413).length} answered 413 with no body byte sent`)
    progress('  oversize probes on a raw socket, unloaded…')
    const probes = await probeOversize(cluster.port, ingestPath, probeHeaders, OVERSIZE_BYTES, LIMITS.chunkBytes)
    for (const p of probes) progress(`  ${p.name}: ${p.status} after ${p.ms.toFixed(1)} ms, ${p.bodyBytesSent} of ${p.bodyBytesTotal} body bytes sent`)
    const storedChunks = await cluster.storedChunks()
    return { ingest, signals: signalsFigures, oversize: oversizeFigures, probes, probesUnderLoad, storedChunks }
  } finally {
    await cluster.stop()
  }
}

function withCluster<T>(env: Record<string, string>, what: string, fn: (cluster: ClusterTarget) => Promise<T>, warmSeconds = WARM_S): Promise<T> {
  return withClusterOf(WORKERS, env, what, fn, warmSeconds)
}

async function withClusterOf<T>(workers: number, env: Record<string, string>, what: string, fn: (cluster: ClusterTarget) => Promise<T>, warmSeconds = WARM_S): Promise<T> {
  progress(`cluster (WORKERS=${workers}, ${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(', ')}): ${what}`)
  const cluster = await startBenchCluster(workers, env)
  try {
    await warm(cluster, { ...ingestSpec('warm', cluster.publicKey, warmSeconds), seconds: warmSeconds })
    return await fn(cluster)
  } finally {
    await cluster.stop()
  }
}

/** CPU the rest of the machine uses while the benchmark runs nothing, % of one core, over `seconds`. */
async function othersIdle(seconds: number): Promise<number> {
  const before = machineBusySeconds()
  await sleep(seconds * 1000)
  return ((machineBusySeconds() - before) / seconds) * 100
}

async function waitQuiet(): Promise<number> {
  const deadline = performance.now() + WAIT_QUIET_S * 1000
  let others = await othersIdle(3)
  while (others > 33 && performance.now() < deadline) {
    progress(`  the rest of the machine uses ${Math.round(others)}% of a core; waiting for it to quieten…`)
    others = await othersIdle(5)
  }
  return others
}

async function main(): Promise<void> {
  if (QUICK) progress('--quick: short runs, a smoke check of the benchmark; the figures are not results')
  pinSelf()
  progress(`pinning: ${pinning()}`)
  const othersBefore = await waitQuiet()
  progress(`before starting, the rest of the machine used ${Math.round(othersBefore)}% of a core`)
  const started = performance.now()
  const results: Partial<Results> = {
    quick: QUICK,
    machine: machine(),
    date: new Date().toISOString(),
    commit: commit(),
    workers: WORKERS,
    pinning: pinning(),
    connections: CONNECTIONS,
    seconds: { main: MAIN_S, oversize: OVERSIZE_S, memory: MEMORY_S, memoryWarm: MEMORY_WARM_S, grid: GRID_S, warm: WARM_S },
    bodies: { chunk: chunk.byteLength, signals: signals.byteLength, oversize: oversize.byteLength },
    defaults: { writerThreads: defaults.writerThreads, writeBatchItems: defaults.writeBatchItems, writerTasks: defaults.writerTasks, writeBatchBytes: defaults.writeBatchBytes, durability: defaults.durability },
  }
  progress(`machine: ${results.machine!.nproc} cores, ${results.machine!.cpuModel}, Node ${results.machine!.node}; chunk ${chunk.byteLength} B, signals ${signals.byteLength} B`)

  if (AB) {
    // Only the A/B: the other stages are for a full run.
    await abStage(AB, AB_ROUNDS)
    return
  }
  if (stage('micro')) results.micro = micro()
  if (stage('front')) results.front = await frontCeiling()
  if (stage('storage')) {
    results.storage = { commit: storageCeiling('commit'), flush: storageCeiling('flush') }
    // The connections split over the fronts, and over each front's batches in flight.
    const perBatch = Math.max(1, Math.floor(CONNECTIONS / WORKERS / (Math.max(1, defaults.writerThreads) * defaults.writerTasks)))
    results.storePath = { one: storePath(1, perBatch * WORKERS), all: storePath(WORKERS, perBatch) }
  }
  if (stage('peer')) {
    results.peer = await peerStage(WORKERS, PEER_ROUNDS, { front: results.front, put: results.storage?.commit, measurePut: () => storageCeiling('commit'), measureParseAndPut: signalsStorageFloor })
  }
  if (stage('cluster')) results.cluster = await clusterCommit()
  if (stage('nats')) results.natsMode = await natsStage(WORKERS)
  if (stage('flush')) {
    // Flush sits between the commit run above and one more commit run after it, and is priced against both:
    // the load from others drifts too much within a minute for one pair of runs to compare.
    const flush = await withCluster({ DURABILITY: 'flush' }, '/ingest with the disk sync awaited', (cluster) =>
      measure(cluster, ingestSpec('/ingest, 20 KB gzip chunks, flush', cluster.publicKey, MAIN_S)),
    )
    const commitAfter = await withCluster({ DURABILITY: 'commit' }, '/ingest again, for the price of flush', (cluster) =>
      measure(cluster, ingestSpec('/ingest, 20 KB gzip chunks, commit again', cluster.publicKey, MAIN_S)),
    )
    results.flush = { ingest: flush, commitAfter }
  }
  if (stage('memory')) {
    results.memory = await withCluster(
      { DURABILITY: 'commit' },
      `front memory over a ${MEMORY_S} s /ingest run`,
      async (cluster) => {
        const figures = await measure(cluster, ingestSpec(`/ingest, ${MEMORY_S} s, RSS sampled every second`, cluster.publicKey, MEMORY_S, true))
        return { ...figures, lmdbMaps: cluster.frontPids().map((pid) => mappingOf(pid, '/data.mdb')) }
      },
      MEMORY_WARM_S,
    )
  }
  if (stage('aggregates')) {
    // Off and on alternating, each in a fresh cluster, so that each ratio compares neighbouring runs
    // (the cluster stage's /signals ran minutes earlier, under whatever load the machine had then).
    const rounds: Results['aggregates']['rounds'] = []
    for (let round = 1; round <= AGGREGATE_ROUNDS; round++) {
      const run = (on: boolean) =>
        withCluster({ DURABILITY: 'commit', AGGREGATE_SIGNALS: on ? '1' : '0' }, `/signals, signal aggregates ${on ? 'on' : 'off'} (round ${round} of ${AGGREGATE_ROUNDS})`, (cluster) =>
          measure(cluster, signalsSpec(`/signals, 5 KB batches, AGGREGATE_SIGNALS=${on ? 1 : 0}, round ${round}`, cluster.publicKey, MAIN_S)),
        )
      const off = await run(false)
      rounds.push({ off, on: await run(true) })
    }
    results.aggregates = { rounds, foldCost: foldCostRun() }
  }
  if (stage('grid')) {
    // D A D B D C …: each setting between two runs of the defaults, so that both see about the same load from others.
    const run = (threads: number, items: number, tasks: number, label: string) =>
      withCluster(
        { DURABILITY: 'commit', WRITER_THREADS: String(threads), WRITE_BATCH_ITEMS: String(items), WRITER_TASKS: String(tasks) },
        label,
        (cluster) => measure(cluster, ingestSpec(`/ingest, WRITER_THREADS=${threads} WRITE_BATCH_ITEMS=${items} WRITER_TASKS=${tasks}`, cluster.publicKey, GRID_S)),
        1,
      )
    const isDefault = ([t, i, k]: [number, number, number]) => t === defaults.writerThreads && i === defaults.writeBatchItems && k === defaults.writerTasks
    const points = GRID_POINTS.filter((point) => !isDefault(point)).map(
      ([writerThreads, writeBatchItems, writerTasks]): GridPoint => ({ writerThreads, writeBatchItems, writerTasks, rounds: [] }),
    )
    const defaultRuns: Figures[] = []
    for (let round = 1; round <= GRID_ROUNDS; round++) {
      let before = await run(defaults.writerThreads, defaults.writeBatchItems, defaults.writerTasks, `grid round ${round} of ${GRID_ROUNDS}, the defaults`)
      defaultRuns.push(before)
      for (const point of points) {
        const figures = await run(point.writerThreads, point.writeBatchItems, point.writerTasks, `grid round ${round} of ${GRID_ROUNDS}`)
        const after = await run(defaults.writerThreads, defaults.writeBatchItems, defaults.writerTasks, `grid round ${round} of ${GRID_ROUNDS}, the defaults`)
        defaultRuns.push(after)
        point.rounds.push({ figures, before, after })
        before = after
      }
    }
    results.grid = { points, defaultRuns }
  }
  if (stage('fallback')) {
    // One front each: Node 20 cannot share a port between node:http servers (no SO_REUSEPORT before 22.12).
    const run = (fallback: boolean) =>
      withClusterOf(1, { DURABILITY: 'commit', UWS_USE_FALLBACK: fallback ? '1' : '0' }, `one front, ${fallback ? 'pure-Node fallback' : 'native uWebSockets.js'}`, async (cluster) => ({
        ingest: await measure(cluster, ingestSpec(`/ingest, 1 front, ${fallback ? 'fallback' : 'native'}`, cluster.publicKey, MAIN_S)),
        signals: await measure(cluster, signalsSpec(`/signals, 1 front, ${fallback ? 'fallback' : 'native'}`, cluster.publicKey, MAIN_S)),
      }))
    const native = await run(false)
    results.fallback = { native, fallback: await run(true) }
  }
  if (ONLY) {
    // The stage's own section, to place in RESULTS.md by hand: a partial run does not rewrite the others' figures.
    if (results.natsMode) console.log('\n' + sectionNatsMode(results.natsMode).join('\n'))
    progress(`--only=${ONLY.join(',')}: ${OUT} not written`)
    return
  }
  results.othersIdlePct = { before: othersBefore, after: await othersIdle(3) }
  results.totalSeconds = (performance.now() - started) / 1000

  const markdown = renderResults(results as Results)
  writeFileSync(OUT, markdown)
  progress(`wrote ${OUT}`)
  console.log('\n' + markdown.slice(markdown.indexOf('## Headline'), markdown.indexOf('## Reading the figures')).trim())
}

await main()
// autocannon and undici may keep sockets alive; every server is stopped by now.
process.exit(0)
