/**
 * What one run of `npm run bench` measured (Results, filled by bench/run.ts)
 * and the verdicts drawn from it alone: the targets, the ceilings, memory
 * flatness, the writer-pool grid's winner. bench/report.ts renders it.
 */
import type { NatsModeResults } from './nats-stage.js'
import type { Figures, MemorySample } from './load.js'
import type { Mapping } from './proc.js'
import type { MicroFigure } from './micro.js'
import type { ProbeResult } from './oversize-probe.js'

export interface StorageFigures {
  puts: number
  seconds: number
  putsPerSec: number
  p50: number
  p99: number
  bytesPerSec: number
  cpuPct: number
  valueBytes: number
  /** Added by run.ts: CPU used meanwhile by everything else on the machine, % of one core. */
  otherCpuPct: number
}

/**
 * One setting of the writer-pool grid. Each of its runs sits between two runs
 * of the defaults, and is judged against their mean: on a shared machine the
 * load from others drifts within seconds, and the runs on either side see
 * about the same.
 */
export interface GridPoint {
  writerThreads: number
  writeBatchItems: number
  writerTasks: number
  rounds: { figures: Figures; before: Figures; after: Figures }[]
}

/** This setting's req/s over its neighbouring default runs', per round. */
export function gridRatios(point: GridPoint): number[] {
  return point.rounds.map(({ figures, before, after }) => figures.okPerSec / ((before.okPerSec + after.okPerSec) / 2))
}

export const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / (values.length || 1)

export interface Results {
  quick: boolean
  machine: {
    nproc: number
    cpuModel: string
    memoryGiB: number
    node: string
    kernel: string
    filesystem: string
    uws: string
    lmdb: string
    piscina: string
    autocannon: string
  }
  date: string
  commit: string
  workers: number
  /** Where the server and the load generator ran (bench/pin.ts). */
  pinning: string
  connections: number
  seconds: { main: number; oversize: number; memory: number; memoryWarm: number; grid: number; warm: number }
  bodies: { chunk: number; signals: number; oversize: number }
  defaults: { writerThreads: number; writeBatchItems: number; writerTasks: number; writeBatchBytes: number; durability: string }
  micro: MicroFigure[]
  front: { chunk: Figures; signals: Figures; oversize: Figures }
  storage: { commit: StorageFigures; flush: StorageFigures }
  /** The store's appendBatch of the same chunks, no HTTP: in one process, and from as many processes as fronts. */
  storePath: { one: StorageFigures; all: StorageFigures }
  cluster: { ingest: Figures; signals: Figures; oversize: Figures; probes: ProbeResult[]; probesUnderLoad: ProbeResult[]; storedChunks: number }
  /** `commitAfter`: /ingest with commit again, just after the flush run; flush is priced against it and the first commit run. */
  flush: { ingest: Figures; commitAfter: Figures }
  /** /signals with the aggregates off then on, each in a fresh cluster, round after round; and the fold's CPU per batch by content. */
  aggregates: { rounds: { off: Figures; on: Figures }[]; foldCost: FoldCost[] }
  /** With, per front, LMDB's map at the end of the run. */
  memory: Figures & { lmdbMaps: Mapping[] }
  grid: { points: GridPoint[]; defaultRuns: Figures[] }
  /** One front on the native build, then one on the pure-Node fallback (UWS_USE_FALLBACK=1). */
  peer?: PeerResults
  natsMode?: NatsModeResults
  fallback?: { native: { ingest: Figures; signals: Figures }; fallback: { ingest: Figures; signals: Figures } }
  /** CPU the rest of the machine used while the benchmark ran nothing, just before and just after, % of one core. */
  othersIdlePct: { before: number; after: number }
  totalSeconds: number
}

/** Targets of the ingest benchmark. */
export const TARGETS = {
  ingestVsStorage: 0.7,
  signalsVsFront: 0.4,
  p99Ms: 25,
  /**
   * Memory is flat when, for every front, the peak anonymous RSS (heaps, stacks: what the process allocates) of
   * the last 20 s exceeds that of the 20 s before by at most this much: whatever grew at the start has stopped.
   * File-backed RSS is reported beside it but not judged: it is LMDB's memory map, clean pages of the data file
   * that the kernel drops when it needs the memory.
   */
  memoryGrowthFraction: 0.05,
  memoryGrowthFloorBytes: 5 * 1024 * 1024,
} as const


export interface PeerPair {
  ingest: Figures
  signals: Figures
}

export interface PeerRound {
  peer: PeerPair
  /** The fastify peer (bench/fastify-peer.ts): the same contract subset and durability on fastify. */
  fastify: PeerPair
  /** The service with WORKERS unset (its default for the cores it may use). */
  service: PeerPair
  /** The service with `otherWorkers` fronts. */
  other: PeerPair
}

/** The peer stage (bench/peer-stage.ts): the plain peer, the service, and the floor, in one run. */
export interface PeerResults {
  defaultWorkers: number
  otherWorkers: number
  rounds: PeerRound[]
  /** `put`: a raw put of the chunk; `parseAndPut`: the signals batch parsed from its bytes and put (bench/storage-ceiling.ts). */
  floor: { bareChunk: Figures; bareSignals: Figures; put: StorageFigures; parseAndPut: StorageFigures }
}

/** The fold's CPU per stored signals batch, for one variant of the benchmark's batch (bench/fold-cost.ts). */
export interface FoldCost {
  variant: 'full' | 'noRage' | 'noErrors' | 'noViews' | 'clicksOnly' | 'empty' | 'texts'
  name: string
  /** The variant's body, bytes, and what it holds. */
  bytes: number
  entries: { views: number; clicks: number; rage: number; errors: number; texts?: number }
  batches: number
  usPerBatch: number
}

/** CPU per put of the storage ceiling, µs. */
export function cpuPerPutUs(s: StorageFigures): number {
  return s.putsPerSec > 0 ? (s.cpuPct / 100 / s.putsPerSec) * 1e6 : 0
}

/** Server CPU per answer, µs, the work the load left behind (settleCpuSeconds) included. */
export function cpuPerRequestUs(f: Figures): number {
  const answers = f.answersPerSec * f.seconds
  return answers > 0 ? (((f.serverCpuPct / 100) * f.seconds + f.settleCpuSeconds) / answers) * 1e6 : 0
}

/** The fronts' CPU per answer during the load alone: what answering costs, without the fold's catch-up or the control worker. */
export function frontCpuPerRequestUs(f: Figures): number {
  const answers = f.answersPerSec * f.seconds
  return answers > 0 ? (((f.frontCpuPct / 100) * f.seconds) / answers) * 1e6 : 0
}

/** 2xx answers per second over the load and the time its left-behind work took: the rate the server can keep up. */
export function sustainedPerSec(f: Figures): number {
  return (f.okPerSec * f.seconds) / (f.seconds + f.settleSeconds)
}

/** The lower of the two ceilings, in requests (or puts) per second, for a durability. */
export function lowerCeiling(r: Results, durability: 'commit' | 'flush'): { perSec: number; which: string } {
  const front = r.front.chunk.okPerSec
  const storage = r.storage[durability].putsPerSec
  return front <= storage ? { perSec: front, which: 'front (bare uWS, 20 KB)' } : { perSec: storage, which: `storage (lmdb-js, ${durability})` }
}

export interface MemoryVerdict {
  front: number
  start: number
  end: number
  max: number
  anonStart: number
  anonEnd: number
  anonMax: number
  /** Peak anonymous RSS in the 20 s before the last 20 s, and in the last 20 s. */
  warmPeak: number
  latePeak: number
  /** Judged on anonymous memory: see TARGETS. */
  flat: boolean
}

export function memoryVerdicts(samples: MemorySample[]): MemoryVerdict[] {
  const fronts = samples[0]?.total.length ?? 0
  const verdicts: MemoryVerdict[] = []
  for (let i = 0; i < fronts; i++) {
    const total = samples.map((s) => s.total[i]).filter((v) => v > 0)
    const anon = samples.map((s) => s.anon[i]).filter((v) => v > 0)
    const window = Math.min(20, Math.floor(anon.length / 2)) // 20 s, or halves of a --quick run
    const warmPeak = Math.max(...anon.slice(-2 * window, -window))
    const latePeak = Math.max(...anon.slice(-window))
    const allowed = Math.max(TARGETS.memoryGrowthFloorBytes, warmPeak * TARGETS.memoryGrowthFraction)
    verdicts.push({
      front: i + 1,
      start: total[0],
      end: total[total.length - 1],
      max: Math.max(...total),
      anonStart: anon[0],
      anonEnd: anon[anon.length - 1],
      anonMax: Math.max(...anon),
      warmPeak,
      latePeak,
      flat: latePeak - warmPeak <= allowed,
    })
  }
  return verdicts
}

/** A setting beats the defaults only if it was faster than the default runs on both sides of it by this much, in every round. */
export const GRID_MARGIN = 0.1
/** …and only if the default runs agree with one another within this factor (fastest over slowest): otherwise this run cannot tell settings apart. */
export const GRID_MAX_SPREAD = 1.5

export function gridSpread(grid: Results['grid']): number {
  const rates = grid.defaultRuns.map((f) => f.okPerSec)
  return Math.max(...rates) / Math.min(...rates)
}

/** The setting the numbers choose over the defaults, if any: the best of those clear of the margin in every round, on a steady enough run. */
export function gridWinner(grid: Results['grid']): GridPoint | undefined {
  if (gridSpread(grid) > GRID_MAX_SPREAD) return undefined
  return grid.points
    .filter((p) => gridRatios(p).every((ratio) => ratio > 1 + GRID_MARGIN))
    .sort((a, b) => mean(gridRatios(b)) - mean(gridRatios(a)))[0]
}

