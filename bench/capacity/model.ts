/**
 * The capacity model: from the measured costs (figures.ts) and a visit's
 * shape, what a site of V visitors a day needs of one embedded machine and
 * of a cluster, where one machine stops, and how evenly a partitioned read
 * side would spread a large deployment's day (partition.ts). Every table is
 * made here; docs/capacity.md holds them as `npm run bench:capacity` last
 * wrote them, and test/docs/capacity.test.ts checks that they still agree.
 */
import { FIGURES, VISIT } from './figures.js'
import { balance, byProjectHash, shardedBalanced } from './partition.js'
import { largeSiteDay, peakFactor } from './traffic.js'

const SITES = [10_000, 100_000, 1_000_000, 10_000_000]
/** A server class to scale to: 16 cores, 64 GiB, 4 TB of NVMe. */
const SERVER = { cores: 16, memoryGiB: 64, diskTB: 4 }
const THIS_BOX = { cores: 2, memoryGiB: 24, diskTB: 0.1 }

const DAY = largeSiteDay({ seed: 1, count: 2_000, totalMinutes: 10_000_000 * VISIT.sessionsPerVisitor * VISIT.recordedMinutesPerSession, s: 1.1 })
const PEAK = peakFactor(DAY)

const int = (n: number) => Math.round(n).toLocaleString('en-US')
const one = (n: number) => (n >= 100 ? int(n) : n >= 10 ? n.toFixed(1) : n.toFixed(2))
const bytes = (n: number) => (n >= 1e12 ? `${one(n / 1e12)} TB` : n >= 1e9 ? `${one(n / 1e9)} GB` : `${one(n / 1e6)} MB`)

interface Load {
  minutesPerDay: number
  /** Chunks and batches a second at the peak hour. */
  chunksPerSecond: number
  batchesPerSecond: number
}

function load(visitors: number): Load {
  const minutesPerDay = visitors * VISIT.sessionsPerVisitor * VISIT.recordedMinutesPerSession
  const peakMinutesPerSecond = (minutesPerDay / 86_400) * PEAK
  return { minutesPerDay, chunksPerSecond: peakMinutesPerSecond * VISIT.chunksPerMinute, batchesPerSecond: peakMinutesPerSecond * VISIT.batchesPerMinute }
}

/** Cores busy at the peak hour, planned to VISIT.plannedUtilisation. */
const cores = (cpuUsPerSecond: number) => cpuUsPerSecond / 1e6 / VISIT.plannedUtilisation
const embeddedCpu = (l: Load) => l.chunksPerSecond * FIGURES.chunkCpu.value + l.batchesPerSecond * FIGURES.signalsCpu.value
const diskFor = (l: Load, kbPerMinute: number) => l.minutesPerDay * kbPerMinute * 1000 * VISIT.retentionDays
const networkIn = (l: Load, kbPerMinute: number) => ((l.chunksPerSecond * (kbPerMinute * 1000)) / VISIT.chunksPerMinute + l.batchesPerSecond * VISIT.batchBytes) * 8

export function figuresTable(): string {
  const rows = Object.entries(FIGURES).map(([name, fig]) => `| \`${name}\` | ${int(fig.value)} ${fig.unit} | ${fig.source} |`)
  return ['| Figure | Value | Measured in bench/RESULTS.md |', '| --- | --- | --- |', ...rows].join('\n')
}

export function embeddedTable(): string {
  const lines = [
    `| Visitors a day | Recorded minutes a day | Peak chunks/s, batches/s | Cores at the peak (${VISIT.plannedUtilisation * 100}% busy) | Memory | Disk, ${VISIT.retentionDays} days: documentation app / churny app | Network in at the peak |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
  ]
  for (const visitors of SITES) {
    const l = load(visitors)
    const need = cores(embeddedCpu(l))
    const fronts = Math.max(1, Math.ceil(need))
    const memory = (fronts * FIGURES.frontMemory.value + FIGURES.controlMemory.value) / 1024
    lines.push(`| ${int(visitors)} | ${int(l.minutesPerDay)} | ${one(l.chunksPerSecond)}, ${one(l.batchesPerSecond)} | ${one(need)} | ${one(memory)} GiB + page cache | ${bytes(diskFor(l, FIGURES.storedDocApp.value))} / ${bytes(diskFor(l, FIGURES.storedChurnyApp.value))} | ${one(networkIn(l, FIGURES.storedChurnyApp.value) / 1e6)} Mbit/s |`)
  }
  return lines.join('\n')
}

/** Visitors a day one machine can take, by each resource; the smallest is where it stops. */
function limits(machine: { cores: number; diskTB: number }, kbPerMinute: number): { cpu: number; disk: number } {
  const perVisitor = load(1)
  return { cpu: (machine.cores * 1e6 * VISIT.plannedUtilisation) / embeddedCpu(perVisitor), disk: (machine.diskTB * 1e12) / diskFor(perVisitor, kbPerMinute) }
}

export function limitsTable(): string {
  const lines = ['| Machine | App | Visitors a day by CPU | by disk (30 days) | Stops first at |', '| --- | --- | --- | --- | --- |']
  for (const [name, machine] of [['this box (2 cores, 100 GB free)', THIS_BOX], [`a ${SERVER.cores}-core server, ${SERVER.memoryGiB} GiB, ${SERVER.diskTB} TB NVMe`, SERVER]] as const) {
    for (const [app, kb] of [['documentation app', FIGURES.storedDocApp.value], ['churny app', FIGURES.storedChurnyApp.value]] as const) {
      const l = limits(machine, kb)
      lines.push(`| ${name} | ${app} | ${int(l.cpu)} | ${int(l.disk)} | ${l.cpu < l.disk ? `CPU, ${int(l.cpu)}` : `disk, ${int(l.disk)}`} |`)
    }
  }
  return lines.join('\n')
}

export function clusterTable(): string {
  // The cluster's /signals figure is node and NATS together; split as a chunk's is (an inference, not a measurement).
  const natsShare = FIGURES.natsChunkCpu.value / (FIGURES.natsChunkCpu.value + FIGURES.clusterNodeChunkCpu.value)
  const lines = [
    '| Visitors a day | Node cores, ingest (spread over the nodes) | Node cores, fold (on every node) | Cores per NATS server (R3) |',
    '| --- | --- | --- | --- |',
  ]
  for (const visitors of SITES) {
    const l = load(visitors)
    const ingest = cores(l.chunksPerSecond * FIGURES.clusterNodeChunkCpu.value + l.batchesPerSecond * FIGURES.clusterSignalsCpu.value * (1 - natsShare))
    const fold = cores(l.batchesPerSecond * FIGURES.foldCpu.value)
    const nats = cores((l.chunksPerSecond * FIGURES.natsChunkCpu.value + l.batchesPerSecond * FIGURES.clusterSignalsCpu.value * natsShare) / 3)
    lines.push(`| ${int(visitors)} | ${one(ingest)} | ${one(fold)} | ${one(nats)} |`)
  }
  return lines.join('\n')
}

export function partitionTable(): string {
  const lines = ['| Node groups | By project hash: busiest group / mean, day | peak hour | Sharded and balanced: day | peak hour | Shards of the largest project |', '| --- | --- | --- | --- | --- | --- |']
  for (const groups of [1, 3, 10, 30]) {
    const a = balance(byProjectHash(DAY, groups))
    const b = balance(shardedBalanced(DAY, groups))
    lines.push(`| ${groups} | ${a.daily.toFixed(2)} | ${a.peakHour.toFixed(2)} | ${b.daily.toFixed(2)} | ${b.peakHour.toFixed(2)} | ${b.largestProjectShards} |`)
  }
  const largest = DAY.projects[0].minutes / DAY.totalMinutes
  lines.push('', `The day: ${DAY.projects.length.toLocaleString('en-US')} projects, ${int(DAY.totalMinutes)} recorded minutes (10,000,000 visitors), project sizes by a Zipf law of exponent 1.1 (the largest ${(largest * 100).toFixed(1)}% of all traffic, the smallest ${(DAY.projects.at(-1)!.minutes / DAY.totalMinutes * 1e6).toFixed(1)} per million), each project in one of eight time zones; peak hour / mean hour ${PEAK.toFixed(2)}.`)
  return lines.join('\n')
}

export const peak = () => PEAK

/** Every generated table, keyed by the marker that holds it in docs/capacity.md. */
export function capacityTables(): Record<string, string> {
  return { figures: figuresTable(), embedded: embeddedTable(), limits: limitsTable(), cluster: clusterTable(), partition: partitionTable() }
}
