/**
 * The cluster mode beside the embedded mode and beside the engine, in one
 * run: three local nats-server processes (streams replicated three times,
 * all on this machine's disk) and one service node on them, against a node
 * on its embedded LMDB; then a raw JetStream publisher (bench/raw-publisher.ts)
 * on the same servers and streams, the engine's own rate for the same chunks.
 * While the node takes /ingest, a second node on the same log follows it
 * (bench/apply-lag.ts). The server's CPU per request counts the NATS
 * servers: the absolute rate on one 2-core box is no target; the CPU per
 * acknowledged chunk and the ratio to the raw publisher are the figures.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openJournal } from '../src/journal/connect.js'
import { NatsLog } from '../src/journal/nats-log.js'
import { startNatsCluster, type NatsCluster } from '../src/journal/nats-servers.js'
import { DEFAULT_LAYOUT, recordingStream } from '../src/journal/streams.js'
import { freePort } from '../test/helpers/cluster.js'
import { sampleApplyLag, type ApplyLag } from './apply-lag.js'
import type { Figures } from './load.js'
import { clientCommand, PINNED, SERVER_CPUS, serverCommand } from './pin.js'
import { cpuSecondsOf } from './proc.js'
import type { RawPublisherArgs, RawPublisherFigures } from './raw-publisher.js'
import { CONNECTIONS, ingestSpec, MAIN_S, measure, progress, SERVICE_NODE_ARGS, signalsSpec, warm, WARM_S } from './scenarios.js'
import { startBenchCluster, startFollower, type ClusterTarget } from './targets.js'

export interface RawFigures extends RawPublisherFigures {
  /** CPU of the NATS servers over the measured window, % of one core. */
  natsCpuPct: number
}

/** Where the cluster mode's server CPU went during its /ingest run: µs per acknowledged chunk by process. */
export interface CpuShare {
  process: string
  usPerChunk: number
}

export interface NatsModeResults {
  replicas: number
  partitions: number
  embedded: { ingest: Figures; signals: Figures }
  cluster: { ingest: Figures; signals: Figures }
  raw: RawFigures
  /** The raw publisher again, its process on the NATS servers' core (as the service's node is). */
  rawShared?: RawFigures
  lag: ApplyLag
  /** The cluster-mode /ingest run's server CPU by process, and the items per log message (svc_log_group_items). */
  breakdown: CpuShare[]
  groupItems: number
  /** The second node's svc_journal_delivery_seconds and svc_journal_apply_seconds over the stage, ms. */
  followerWaits?: { delivery: { meanMs: number; p99Ms: number }; apply: { meanMs: number; p99Ms: number } }
  /** 1-minute load average at the start and end of the stage. */
  load: { before: number; after: number }
}

const REPLICAS = 3
const PARTITIONS = 3
const HERE = fileURLToPath(new URL('./', import.meta.url))

/**
 * The raw publisher in a process of its own, the NATS servers' CPU read over its measured window: on the load
 * generator's core, or (`onServerCore`) on the NATS servers' core, which it then shares with them as the service's
 * node does, so that both pay for their client on the core under test.
 */
function rawPublisher(nats: NatsCluster, natsPids: number[], onServerCore = false): Promise<RawFigures> {
  const args: RawPublisherArgs = { settings: nats.settings('node'), partitions: PARTITIONS, inFlight: CONNECTIONS, warmSeconds: WARM_S, seconds: MAIN_S }
  progress(`  raw JetStream publisher${onServerCore ? ' on the servers\' core' : ''}: ${CONNECTIONS} publishes in flight, ${MAIN_S} s…`)
  const [command, argv] = (onServerCore ? serverCommand : clientCommand)([join(HERE, 'raw-publisher.js'), JSON.stringify(args)])
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    let cpuBefore = 0
    let pending = ''
    child.stdout.on('data', (data: Buffer) => {
      pending += data.toString()
      const lines = pending.split('\n')
      pending = lines.pop()!
      for (const line of lines) {
        const message = JSON.parse(line) as { phase?: string } & RawPublisherFigures
        if (message.phase === 'measuring') {
          cpuBefore = cpuSecondsOf(natsPids)
          continue
        }
        const figures = { ...message, natsCpuPct: ((cpuSecondsOf(natsPids) - cpuBefore) / message.seconds) * 100 }
        progress(`  raw: ${Math.round(figures.ackedPerSec)} acknowledged/s, p50 ${figures.p50.toFixed(1)} ms, p99 ${figures.p99.toFixed(1)} ms, NATS CPU ${Math.round(figures.natsCpuPct)}%, publisher CPU ${Math.round(figures.clientCpuPct)}%, ${figures.failed} failed`)
        resolve(figures)
      }
    })
    child.once('exit', (code) => code !== 0 && reject(new Error(`raw publisher exited with ${code}`)))
  })
}

/** The node's processes by role (from their command lines), then each NATS server. */
function processRoles(nodePids: number[], natsPids: number[]): { process: string; pids: number[] }[] {
  const named = nodePids.map((pid) => ({ pid, cmdline: readCmdline(pid) }))
  const role = (pattern: RegExp) => named.filter((p) => pattern.test(p.cmdline)).map((p) => p.pid)
  const fronts = role(/front\.js/)
  const control = role(/control/)
  const rest = nodePids.filter((pid) => !fronts.includes(pid) && !control.includes(pid))
  return [
    { process: 'fronts', pids: fronts },
    { process: 'control worker (applier)', pids: control },
    { process: 'primary', pids: rest },
    ...natsPids.map((pid, i) => ({ process: `nats-server ${i + 1}`, pids: [pid] })),
  ]
}

function readCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')
  } catch {
    return ''
  }
}

/** Mean and 99th percentile (the bucket it falls in) of a histogram on a node's /metrics, in ms. */
async function histogramMs(url: string, name: string): Promise<{ meanMs: number; p99Ms: number }> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const value = (suffix: string) => Number(new RegExp(`^${name}_${suffix} (\\S+)$`, 'm').exec(text)?.[1] ?? 0)
  const count = value('count')
  const buckets = [...text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\S+)$`, 'gm'))].map((m) => ({ le: Number(m[1]), n: Number(m[2]) }))
  const p99 = buckets.find((b) => b.n >= 0.99 * count)?.le ?? Number.POSITIVE_INFINITY
  return { meanMs: count > 0 ? (value('sum') / count) * 1000 : 0, p99Ms: p99 * 1000 }
}

/** svc_log_group_items' sum and count on the node's /metrics. */
async function groupItems(url: string): Promise<{ sum: number; count: number }> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0)
  return { sum: value('svc_log_group_items_sum'), count: value('svc_log_group_items_count') }
}

export async function natsStage(workers: number | undefined): Promise<NatsModeResults> {
  const loadBefore = loadavg()[0]
  progress('cluster mode: the embedded node first, then three nats-servers, a node on them, a second node following, and the raw publisher')
  const embeddedNode = await startBenchCluster(workers, { DURABILITY: 'commit' })
  let embedded: NatsModeResults['embedded']
  try {
    await warm(embeddedNode, ingestSpec('warm', embeddedNode.publicKey, WARM_S))
    embedded = {
      ingest: await measure(embeddedNode, ingestSpec('/ingest, 20 KB gzip chunks (embedded)', embeddedNode.publicKey, MAIN_S)),
      signals: await measure(embeddedNode, signalsSpec('/signals, 5 KB batches (embedded)', embeddedNode.publicKey, MAIN_S)),
    }
  } finally {
    await embeddedNode.stop()
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-nats-'))
  const nats = await startNatsCluster({ dir, freePort })
  const natsPids = nats.servers.map((s) => s.child!.pid!)
  // The NATS servers are part of the server under test: on its core, and in its CPU.
  if (PINNED) for (const pid of natsPids) execFileSync('taskset', ['-a', '-p', '-c', SERVER_CPUS, String(pid)], { stdio: 'ignore' })
  const layout = { ...DEFAULT_LAYOUT, partitions: PARTITIONS, replicas: REPLICAS }
  const env = { ...nats.env(), NATS_REPLICAS: String(REPLICAS), NATS_PARTITIONS: String(PARTITIONS) }
  await nats.makeStreams(env)
  try {
    let cluster: NatsModeResults['cluster']
    let lag: ApplyLag
    let breakdown: CpuShare[] = []
    let followerWaits: NatsModeResults['followerWaits']
    let groupSize = 0
    const node = await startBenchCluster(workers, env, SERVICE_NODE_ARGS)
    const withNats: ClusterTarget = { ...node, pids: () => [...node.pids(), ...natsPids] }
    try {
      const follower = await startFollower(env, SERVICE_NODE_ARGS)
      const journal = await openJournal(nats.settings('node'), layout)
      try {
        await warm(withNats, ingestSpec('warm', withNats.publicKey, WARM_S))
        const streams = Array.from({ length: PARTITIONS }, (_, p) => recordingStream(layout, p))
        const sampler = sampleApplyLag(new NatsLog(journal), follower.url, streams)
        sampler.loadStarts()
        const roles = processRoles(node.pids(), natsPids)
        const cpuBefore = roles.map((r) => cpuSecondsOf(r.pids))
        const groupsBefore = await groupItems(node.url)
        const ingest = await measure(withNats, ingestSpec('/ingest, 20 KB gzip chunks (cluster mode)', withNats.publicKey, MAIN_S))
        const acked = ingest.okPerSec * ingest.seconds
        breakdown = roles.map((r, i) => ({ process: r.process, usPerChunk: ((cpuSecondsOf(r.pids) - cpuBefore[i]) * 1e6) / Math.max(1, acked) }))
        const groupsAfter = await groupItems(node.url)
        groupSize = (groupsAfter.sum - groupsBefore.sum) / Math.max(1, groupsAfter.count - groupsBefore.count)
        progress(`  CPU per acknowledged chunk: ${breakdown.map((b) => `${b.process} ${Math.round(b.usPerChunk)} µs`).join(', ')}; ${groupSize.toFixed(1)} items per log message`)
        sampler.loadEnds()
        lag = await sampler.finish(60_000)
        followerWaits = { delivery: await histogramMs(follower.url, 'svc_journal_delivery_seconds'), apply: await histogramMs(follower.url, 'svc_journal_apply_seconds') }
        progress(`  second node: entries reached it ${followerWaits.delivery.meanMs.toFixed(0)} ms after the log stored them (p99 under ${followerWaits.delivery.p99Ms} ms), and were committed ${followerWaits.apply.meanMs.toFixed(0)} ms after that (p99 under ${followerWaits.apply.p99Ms} ms)`)
        progress(`  second node: at most ${lag.maxEntries} entries and ${lag.maxSeconds.toFixed(2)} s behind, ${lag.endEntries} and ${lag.endSeconds.toFixed(2)} s at the end of the load, caught up ${lag.caughtUpAfter === undefined ? 'not within 60 s' : `${lag.caughtUpAfter.toFixed(1)} s after it`}`)
        cluster = { ingest, signals: await measure(withNats, signalsSpec('/signals, 5 KB batches (cluster mode)', withNats.publicKey, MAIN_S)) }
      } finally {
        await journal.close()
        await follower.stop()
      }
    } finally {
      await node.stop()
    }
    // With no node running, so that its entries (not sealed) are applied by none.
    const raw = await rawPublisher(nats, natsPids)
    const rawShared = await rawPublisher(nats, natsPids, true)
    return { replicas: REPLICAS, partitions: PARTITIONS, embedded, cluster, raw, rawShared, lag, followerWaits, breakdown, groupItems: groupSize, load: { before: loadBefore, after: loadavg()[0] } }
  } finally {
    await nats.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}
