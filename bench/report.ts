/**
 * Turns one benchmark run into bench/RESULTS.md: the machine, every figure in
 * tables, and the targets of issue 2 marked met or not met from the figures
 * of this run alone (the machine is shared and noisy; only ratios within one
 * run compare).
 */
import type { Figures, MemorySample } from './load.js'
import type { Mapping } from './proc.js'
import type { MicroFigure } from './micro.js'
import type { ProbeResult } from './oversize-probe.js'
import type { PeerResults } from './peer-stage.js'

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

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / (values.length || 1)

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
  /** /signals with the aggregates off then on, each in a fresh cluster, round after round. */
  aggregates: { rounds: { off: Figures; on: Figures }[] }
  /** With, per front, LMDB's map at the end of the run. */
  memory: Figures & { lmdbMaps: Mapping[] }
  grid: { points: GridPoint[]; defaultRuns: Figures[] }
  /** One front on the native build, then one on the pure-Node fallback (UWS_USE_FALLBACK=1). */
  peer?: PeerResults
  fallback?: { native: { ingest: Figures; signals: Figures }; fallback: { ingest: Figures; signals: Figures } }
  /** CPU the rest of the machine used while the benchmark ran nothing, just before and just after, % of one core. */
  othersIdlePct: { before: number; after: number }
  totalSeconds: number
}

/** Targets of issue 2. */
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

const MiB = 1024 * 1024
const int = (n: number) => Math.round(n).toLocaleString('en-US')
const pct = (ratio: number) => `${(ratio * 100).toFixed(0)}%`
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1))
const mbps = (bytesPerSec: number) => (bytesPerSec / MiB).toFixed(1)
const mib = (bytes: number) => (bytes / MiB).toFixed(1)
const met = (ok: boolean) => (ok ? '**met**' : '**not met**')
const codes = (f: Figures) =>
  Object.entries(f.statusCodes)
    .map(([code, n]) => `${code}: ${int(n)}`)
    .join(', ') || 'none'

const settings = (s: { writerThreads: number; writeBatchItems: number; writerTasks: number }) =>
  `WRITER_THREADS=${s.writerThreads}, WRITE_BATCH_ITEMS=${s.writeBatchItems}, WRITER_TASKS=${s.writerTasks}`

/** What the grid says about more writer threads per front. */
function threadsSentence(r: Results): string {
  const more = r.grid.points.filter((p) => p.writerThreads > r.defaults.writerThreads)
  if (more.length === 0) return ''
  if (gridSpread(r.grid) > GRID_MAX_SPREAD) return 'The grid below was too noisy in this run to say whether more writer threads per front help.'
  const ratio = mean(more.flatMap(gridRatios))
  return ratio < 1
    ? `More writer threads per front were slower in the grid below (${pct(ratio)} of the defaults' throughput on average): they cut the same requests into more, smaller transactions.`
    : `More writer threads per front were not slower in the grid below (${pct(ratio)} of the defaults' throughput on average).`
}

/** What waiting for the sync cost, as a share of the `commit` figure; a negative cost is noise, and said so. */
function cost(commit: number, flush: number): string {
  const c = 1 - flush / commit
  return c >= 0 ? pct(c) : `none measurable (flush ran ${pct(-c)} faster here: noise)`
}

/** Server CPU time per answered request, µs. */
export function cpuPerRequestUs(f: Figures): number {
  return f.answersPerSec > 0 ? (f.serverCpuPct / 100 / f.answersPerSec) * 1e6 : 0
}

function table(head: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n')
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

export function renderResults(r: Results): string {
  const commitCeiling = lowerCeiling(r, 'commit')
  const flushCeiling = lowerCeiling(r, 'flush')
  const ingest = r.cluster.ingest
  const ingestRatio = ingest.okPerSec / commitCeiling.perSec
  const flushRatio = r.flush.ingest.okPerSec / flushCeiling.perSec
  const signalsRatio = r.cluster.signals.okPerSec / r.front.signals.okPerSec
  const [declaredProbe, chunkedProbe] = r.cluster.probes
  const underLoad = r.cluster.probesUnderLoad
  const underLoadMs = underLoad.map((p) => p.ms).sort((a, b) => a - b)
  const underLoadP50 = underLoadMs[underLoadMs.length >> 1] ?? NaN
  const underLoadMax = underLoadMs[underLoadMs.length - 1] ?? NaN
  const oversizeOk =
    declaredProbe.status === 413 &&
    declaredProbe.bodyBytesSent === 0 &&
    chunkedProbe.status === 413 &&
    chunkedProbe.bodyBytesSent < chunkedProbe.bodyBytesTotal &&
    underLoad.length > 0 &&
    underLoad.every((p) => p.status === 413)
  const samples = r.memory.memory ?? []
  const memory = memoryVerdicts(samples)
  const memoryFlat = memory.length > 0 && memory.every((m) => m.flat)
  const p99Ok = ingest.p99 < TARGETS.p99Ms && r.cluster.signals.p99 < TARGETS.p99Ms
  const commitRuns = [ingest, r.flush.commitAfter]
  const commitMean = mean(commitRuns.map((f) => f.okPerSec))
  const flushCost = 1 - r.flush.ingest.okPerSec / commitMean
  const winner = gridWinner(r.grid)
  const acknowledged = ingest.statusCodes['200'] ?? 0

  const row = (name: string, f: Figures, vs: string) => [
    name,
    int(f.answersPerSec),
    ms(f.p50),
    ms(f.p99),
    mbps(f.bodyBytesPerSec),
    int(f.serverCpuPct),
    vs,
  ]
  const storageRow = (name: string, s: StorageFigures) => [name, int(s.putsPerSec), ms(s.p50), ms(s.p99), mbps(s.bytesPerSec), int(s.cpuPct), '(ceiling)']

  const out: string[] = []
  out.push('# Benchmark results')
  out.push('')
  out.push(
    `Written by \`npm run bench\` (bench/run.ts) on ${r.date.slice(0, 16).replace('T', ' ')} UTC at commit ${r.commit}, in ${Math.round(r.totalSeconds)} s. ` +
      'Do not edit by hand: run the benchmark again. The machine is shared and noisy, so absolute figures move from run to run; ' +
      'the ratios, all taken within this one run, are what the targets are checked against.',
  )
  if (r.quick) out.push('', '> **--quick run: short durations, a smoke check of the benchmark itself. These figures are not results.**')
  out.push('')
  out.push('## Machine')
  out.push('')
  out.push(
    table(
      ['', ''],
      [
        ['CPU', `${r.machine.nproc} × ${r.machine.cpuModel} (\`nproc\` = ${r.machine.nproc})`],
        ['Memory', `${r.machine.memoryGiB.toFixed(1)} GiB`],
        ['OS', `${r.machine.kernel}, data directory on ${r.machine.filesystem}`],
        ['Node.js', r.machine.node],
        ['Packages', `uWebSockets.js ${r.machine.uws}, lmdb ${r.machine.lmdb}, piscina ${r.machine.piscina}, autocannon ${r.machine.autocannon}`],
        ['Commit', r.commit],
        ['Date', r.date],
        ['Other load', `the rest of the machine used ${int(r.othersIdlePct.before)}% of a core just before the run and ${int(r.othersIdlePct.after)}% just after (see "others CPU %" per run below)`],
      ],
    ),
  )
  out.push('')
  out.push('## How it was measured')
  out.push('')
  out.push(
    [
      `- Every server runs on loopback on this machine, beside the load generator (autocannon, one thread, ${r.connections} connections, no pipelining), which competes with it for the ${r.machine.nproc} cores; its own CPU is in the detailed tables.`,
      `- The cluster is \`dist/main.js\` with its defaults (WORKERS=${r.workers}, one front per core; WRITER_THREADS=${r.defaults.writerThreads}, WRITER_TASKS=${r.defaults.writerTasks}, WRITE_BATCH_ITEMS=${r.defaults.writeBatchItems}, WRITE_BATCH_BYTES=${int(r.defaults.writeBatchBytes)}), started fresh with its own temporary data directory and a project seeded through the store module; every run is preceded by a warm-up that is not counted (${r.seconds.warm} s; ${r.seconds.memoryWarm} s before the memory run, 1 s in the grid).`,
      `- Bodies: a ${int(r.bodies.chunk)} B gzip recording chunk (rrweb-like events), a ${int(r.bodies.signals)} B signals batch (views, clicks, an error; sent as text/plain like sendBeacon), a ${int(r.bodies.oversize)} B body over both caps. Each chunk carries its own X-Svc-Meta (20 chunks per session, every (session, seq) distinct), so none is an idempotent repeat.`,
      `- Runs: ${r.seconds.main} s each for the ceilings, /ingest and /signals; ${r.seconds.oversize} s for 2 MB bodies; ${r.seconds.memory} s for memory; ${r.seconds.grid} s per grid run.`,
      `- **Front ceiling**: a bare uWebSockets.js handler (bench/bare-uws.ts: same package and binary, ${r.workers} processes on one port like the fronts) that reads the body as the front does and answers {ok:true}, driven by the very same requests (path, query, X-Svc-Meta).`,
      `- **Storage ceiling**: raw lmdb-js puts of the same ${int(r.bodies.chunk)} B chunk in one process (bench/storage-ceiling.ts), ${r.connections} concurrent writers each waiting for its put, batched into transactions by lmdb-js itself; \`commit\` waits for the put (the commit), \`flush\` also for \`flushed\` (the disk sync), as the store does.`,
      '- req/s counts every answer; for /ingest and /signals every answer was a 200 (status counts below). Latency is autocannon\'s, per request. Body MB/s is answers × body size. Server CPU is utime + stime of every process of the server (primary, control worker, fronts and their writer threads) from /proc/<pid>/stat, before and after, as % of one core (200% = both cores).',
      '- "others CPU %" in the detailed tables is what the rest of this shared machine used meanwhile (other people\'s builds and tests, and kernel network work not charged to a process), from /proc/stat: where it is high, that run was starved and its figures are low.',
      `- "vs ceiling" divides by the lower of the two ceilings for the same durability: with \`commit\` that is the ${commitCeiling.which} at ${int(commitCeiling.perSec)}/s; with \`flush\` the ${flushCeiling.which} at ${int(flushCeiling.perSec)}/s.`,
    ].join('\n'),
  )
  out.push('')
  out.push('## Headline')
  out.push('')
  out.push(
    table(
      ['Scenario', 'req/s (puts/s)', 'p50 ms', 'p99 ms', 'body MB/s', 'server CPU %', 'vs ceiling'],
      [
        row('Front ceiling: bare uWS, 20 KB body', r.front.chunk, '(ceiling)'),
        row('Front ceiling: bare uWS, 5 KB body', r.front.signals, '(ceiling)'),
        storageRow('Storage ceiling: lmdb-js puts, 20 KB, commit', r.storage.commit),
        storageRow('Storage ceiling: lmdb-js puts, 20 KB, flush', r.storage.flush),
        row('**/ingest 20 KB gzip, DURABILITY=commit (default)**', ingest, `**${pct(ingestRatio)}** of ${int(commitCeiling.perSec)}`),
        row('/ingest 20 KB gzip, DURABILITY=flush', r.flush.ingest, `${pct(flushRatio)} of ${int(flushCeiling.perSec)}`),
        row('**/signals 5 KB**', r.cluster.signals, `**${pct(signalsRatio)}** of the 5 KB front ceiling`),
        row('/ingest 2 MB body, refused 413', r.cluster.oversize, `p50 ${ms(r.cluster.oversize.p50)} ms vs ${ms(r.front.oversize.p50)} ms to send and read 2 MB`),
      ],
    ),
  )
  out.push('')
  out.push('## Targets (issue 2)')
  out.push('')
  out.push(
    table(
      ['Target', 'Measured', 'Verdict'],
      [
        [
          '/ingest ≥ 70% of the lower ceiling (storage)',
          `${int(ingest.okPerSec)} req/s = ${pct(ingestRatio)} of ${int(commitCeiling.perSec)}/s (${commitCeiling.which}); with flush ${pct(flushRatio)}`,
          met(ingestRatio >= TARGETS.ingestVsStorage),
        ],
        [
          '/signals ≥ 40% of the front ceiling, 5 KB bodies',
          `${int(r.cluster.signals.okPerSec)} req/s = ${pct(signalsRatio)} of ${int(r.front.signals.okPerSec)} req/s`,
          met(signalsRatio >= TARGETS.signalsVsFront),
        ],
        [
          'p99 < 25 ms at 100 connections',
          `/ingest ${ms(ingest.p99)} ms, /signals ${ms(r.cluster.signals.p99)} ms (commit); /ingest with flush ${ms(r.flush.ingest.p99)} ms`,
          met(p99Ok),
        ],
        [
          'Oversize body answered before its bytes are read',
          `413 with 0 of ${int(declaredProbe.bodyBytesTotal)} body bytes sent (${ms(declaredProbe.ms)} ms), also under 2 MB load (${underLoad.filter((p) => p.status === 413).length}/${underLoad.length} probes, p50 ${ms(underLoadP50)} ms); chunked: 413 at ${int(chunkedProbe.bodyBytesSent)} bytes with the rest withheld (${ms(chunkedProbe.ms)} ms)`,
          met(oversizeOk),
        ],
        [
          `Front memory flat over ${r.seconds.memory} s`,
          memory
            .map((m) => `front ${m.front}: anonymous ${mib(m.anonStart)} → ${mib(m.anonEnd)} MiB (max ${mib(m.anonMax)}; last 20 s peak ${mib(m.latePeak)} vs ${mib(m.warmPeak)} before); whole RSS ${mib(m.start)} → ${mib(m.end)} MiB, the growth being LMDB's map (clean file pages)`)
            .join('; '),
          met(memoryFlat),
        ],
      ],
    ),
  )
  out.push('')
  out.push('## Reading the figures')
  out.push('')
  const cores = r.machine.nproc * 100
  const ingestBusy = ingest.serverCpuPct + ingest.clientCpuPct + ingest.otherCpuPct
  const signalsUs = cpuPerRequestUs(r.cluster.signals)
  const bareSignalsUs = cpuPerRequestUs(r.front.signals)
  out.push(
    [
      `- **/ingest.** During the /ingest run the server used ${int(ingest.serverCpuPct)}% of the ${cores}% this machine has, autocannon ${int(ingest.clientCpuPct)}% and everything else ${int(ingest.otherCpuPct)}% ` +
        `(${int(ingestBusy)}% in all), at ${int(cpuPerRequestUs(ingest))} µs of server CPU per chunk; with ${r.connections} connections each waiting for its answer, ${int(ingest.okPerSec)} req/s means ${ms((r.connections / ingest.okPerSec) * 1000)} ms per request. ` +
        (ingestBusy < cores * 0.85
          ? 'The machine had idle CPU meanwhile: /ingest was waiting for LMDB, not computing. '
          : `The machine was nearly saturated meanwhile (${ingest.otherCpuPct > ingest.serverCpuPct ? 'mostly by other work' : 'by the server and the load generator, with other work beside them'}), so this run cannot tell waiting from computing; the CPU per chunk is the steadier figure. `) +
        `Why the write path trails the storage ceiling: the store's own write path, the same chunks appended with their bookkeeping (chunk info, session record, counters) and no HTTP, ` +
        `reached ${int(r.storePath.one.putsPerSec)} chunks/s in one process (${pct(r.storePath.one.putsPerSec / r.storage.commit.putsPerSec)} of the ceiling) and ${int(r.storePath.all.putsPerSec)}/s from ${r.workers} processes like the fronts (${pct(r.storePath.all.putsPerSec / r.storage.commit.putsPerSec)}), ` +
        `at ${int((r.storePath.all.cpuPct / 100 / r.storePath.all.putsPerSec) * 1e6)} µs of CPU per chunk against ${int((r.storage.commit.cpuPct / 100 / r.storage.commit.putsPerSec) * 1e6)} µs for a raw put` +
        (r.storePath.all.putsPerSec < 0.9 * r.storePath.one.putsPerSec
          ? ': LMDB has one write lock, which the processes\' writers take in turn, each with its own smaller transactions. '
          : '; splitting the writes over processes cost little here. ') +
        `The cluster then adds, per request, the HTTP exchange (${int(cpuPerRequestUs(r.front.chunk))} µs of server CPU in the bare handler), the meta validation and the hand-over to the writer thread and back, all on the same ${r.machine.nproc} cores as the load generator; ` +
        `and with ${r.connections} connections each waiting for its answer, a transaction holds only the requests that arrived while the previous one committed. ` +
        threadsSentence(r),
      `- **/signals computes.** The server spent ${int(signalsUs)} µs of CPU per 5 KB batch, against ${int(bareSignalsUs)} µs for the bare handler to read the same body: ` +
        'the body handed to the writer thread as bytes, JSON parsing and AJV validation of each entry there, page grouping, msgpack encoding and the LMDB transaction, ' +
        `and, behind the acknowledgement, the fold thread's fold of the batch into the signal aggregates (its share is measured below). At that cost the ${r.machine.nproc} cores, shared with the load generator, cannot serve more than about ` +
        `${int((cores - r.cluster.signals.clientCpuPct) / 100 / (signalsUs / 1e6))} batches/s, while the target asks for ${int(TARGETS.signalsVsFront * r.front.signals.okPerSec)}.`,
      `- **Latency tails.** p99 includes waiting for a whole batch's commit, garbage collection pauses, and whatever else this machine ran (the "others CPU %" column): the same code's p99 moves by a factor of several between a quiet and a busy machine.`,
    ].join('\n'),
  )
  out.push('')
  out.push('## Durability: `commit` (the default) or `flush`')
  out.push('')
  out.push(
    table(
      ['', 'commit', 'flush', 'cost of waiting for the sync'],
      [
        ['Storage ceiling, puts/s', int(r.storage.commit.putsPerSec), int(r.storage.flush.putsPerSec), cost(r.storage.commit.putsPerSec, r.storage.flush.putsPerSec)],
        ['Storage ceiling p99, ms', ms(r.storage.commit.p99), ms(r.storage.flush.p99), ''],
        [
          '/ingest req/s (commit: the runs before and after flush)',
          `${int(ingest.okPerSec)}, ${int(r.flush.commitAfter.okPerSec)}`,
          int(r.flush.ingest.okPerSec),
          cost(commitMean, r.flush.ingest.okPerSec),
        ],
        ['/ingest p50 / p99, ms', commitRuns.map((f) => `${ms(f.p50)} / ${ms(f.p99)}`).join(', '), `${ms(r.flush.ingest.p50)} / ${ms(r.flush.ingest.p99)}`, ''],
        ['/ingest others CPU %', commitRuns.map((f) => int(f.otherCpuPct)).join(', '), int(r.flush.ingest.otherCpuPct), ''],
        ['/ingest server CPU %', commitRuns.map((f) => int(f.serverCpuPct)).join(', '), int(r.flush.ingest.serverCpuPct), ''],
      ],
    ),
  )
  out.push('')
  out.push(
    'The default is `DURABILITY=commit`: a chunk is acknowledged once the LMDB transaction that holds it has committed, ' +
      'which makes it visible to every process and safe from a killed process (SIGKILL, a crash, an OOM kill): the committed pages ' +
      'are in the kernel\'s page cache and reach the disk without the process. It is not safe from a power cut or a kernel panic ' +
      'in the few seconds before the OS writes them back. `DURABILITY=flush` waits for lmdb-js\'s `flushed` promise, after the ' +
      `sync to the disk, and survives power loss too, at the cost measured above (${flushCost > 0 ? `${pct(flushCost)} of /ingest throughput in this run` : 'which this run could not separate from the noise of the machine'}). ` +
      'A recorder that loses a few seconds of sessions in a power cut loses little, while every tracker waits for each answer, so `commit` is the default; ' +
      'a deployment without a battery-backed disk that must not lose any acknowledged chunk sets `flush`.',
  )
  out.push('')
  const aggregateRounds = r.aggregates.rounds
  const offMean = mean(aggregateRounds.map((round) => round.off.okPerSec))
  const onMean = mean(aggregateRounds.map((round) => round.on.okPerSec))
  out.push('## Cost of the signal aggregates (AGGREGATE_SIGNALS)')
  out.push('')
  out.push(
    table(
      ['/signals, 5 KB batches', 'req/s', 'p50 ms', 'p99 ms', 'server CPU %', 'server CPU per batch, µs', 'others CPU %', 'on vs off'],
      aggregateRounds.flatMap(({ off, on }, i) =>
        (
          [
            [`round ${i + 1}: aggregates off (AGGREGATE_SIGNALS=0)`, off, ''],
            [`round ${i + 1}: aggregates folded in by the fold thread (default)`, on, `${pct(on.okPerSec / off.okPerSec)}`],
          ] as const
        ).map(([name, f, ratio]) => [name, int(f.okPerSec), ms(f.p50), ms(f.p99), int(f.serverCpuPct), int(cpuPerRequestUs(f)), int(f.otherCpuPct), ratio]),
      ),
    ),
  )
  out.push('')
  out.push(
    `Keeping the heatmap, leaderboard, friction and page aggregates costs **${pct(1 - onMean / offMean)}** of /signals throughput in this run ` +
      `(${int(onMean)} against ${int(offMean)} req/s, the means of ${aggregateRounds.length} alternating rounds, each run in a fresh cluster; ` +
      `server CPU per batch ${int(mean(aggregateRounds.map((round) => cpuPerRequestUs(round.on))))} against ${int(mean(aggregateRounds.map((round) => cpuPerRequestUs(round.off))))} µs). ` +
      'AGGREGATE_SIGNALS=0 exists only to measure this: the read API then misses what was ingested meanwhile. ' +
      "Ingest stores each batch and logs it; the control worker's fold thread (nice +10) folds logged batches into the aggregates, " +
      "`FOLD_BATCHES` per transaction, behind the acknowledgement, in the aggregates' own LMDB environment. Its folds take a share of the same two cores, " +
      "which is what this figure prices (issue 6 allows 10%); bench/read-results.md measures it with denser batches, and the fold thread's catch-up time.",
  )
  out.push('')
  if (r.fallback) out.push(...fallbackSection(r.fallback), '')
  out.push('## Front ceiling and cluster, in detail')
  out.push('')
  const detail = (name: string, f: Figures) => [
    name,
    int(f.answersPerSec),
    ms(f.p50),
    ms(f.p99),
    ms(f.max),
    mbps(f.bodyBytesPerSec),
    mbps(f.responseBytesPerSec),
    int(f.serverCpuPct),
    int(cpuPerRequestUs(f)),
    int(f.clientCpuPct),
    int(f.otherCpuPct),
    codes(f),
    `${f.errors} / ${f.timeouts}`,
  ]
  out.push(
    table(
      ['Run', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'body MB/s', 'response MB/s', 'server CPU %', 'server CPU µs/req', 'autocannon CPU %', 'others CPU %', 'statuses', 'errors / timeouts'],
      [
        detail('bare uWS, 20 KB', r.front.chunk),
        detail('bare uWS, 5 KB', r.front.signals),
        detail('bare uWS, 2 MB read whole', r.front.oversize),
        detail('/ingest 20 KB, commit', ingest),
        detail('/ingest 20 KB, flush', r.flush.ingest),
        detail('/ingest 20 KB, commit again (after flush)', r.flush.commitAfter),
        detail('/signals 5 KB', r.cluster.signals),
        ...r.aggregates.rounds.flatMap(({ off, on }, i) => [
          detail(`/signals 5 KB, AGGREGATE_SIGNALS=0, round ${i + 1}`, off),
          detail(`/signals 5 KB, AGGREGATE_SIGNALS=1, round ${i + 1}`, on),
        ]),
        detail('/ingest 2 MB (413)', r.cluster.oversize),
        detail(`/ingest 20 KB, ${r.seconds.memory} s (memory run)`, r.memory),
      ],
    ),
  )
  out.push('')
  out.push(
    table(
      ['Storage ceiling', 'puts/s', 'p50 ms', 'p99 ms', 'MB/s', 'CPU %', 'others CPU %'],
      (['commit', 'flush'] as const).map((d) => {
        const s = r.storage[d]
        return [`lmdb-js puts, ${d}, ${r.connections} writers`, int(s.putsPerSec), ms(s.p50), ms(s.p99), mbps(s.bytesPerSec), int(s.cpuPct), int(s.otherCpuPct)]
      }),
    ),
  )
  out.push('')
  out.push(
    table(
      ['Store write path (bench/store-path.ts), commit', 'chunks/s', 'batch p50 ms', 'batch p99 ms', 'MB/s', 'CPU %', 'others CPU %', 'vs storage ceiling'],
      ([['one', 1], ['all', r.workers]] as const).map(([which, processes]) => {
        const s = r.storePath[which]
        return [
          `appendBatch, ${processes} process${processes === 1 ? '' : 'es'}`,
          int(s.putsPerSec),
          ms(s.p50),
          ms(s.p99),
          mbps(s.bytesPerSec),
          int(s.cpuPct),
          int(s.otherCpuPct),
          pct(s.putsPerSec / r.storage.commit.putsPerSec),
        ]
      }),
    ),
  )
  out.push('')
  out.push(
    'The store write path appends the same chunks through the store module as a front\'s writer thread does (chunk, chunk info, session record, project counters, in batches, ' +
      `${r.defaults.writerThreads * r.defaults.writerTasks} batches in flight per process), with no HTTP and no writer pool: in one process, then split over ${r.workers} processes like the fronts. ` +
      'It is what the cluster could reach if requests cost nothing.',
  )
  out.push('')
  out.push(
    `Acknowledged and stored: the commit-mode cluster answered ${int(acknowledged)} chunks 200 in the measured /ingest run (plus the warm-up) ` +
      `and its store holds ${int(r.cluster.storedChunks)} chunks for the project afterwards (the 2 MB bodies add none): nothing acknowledged is missing` +
      `${r.cluster.storedChunks >= acknowledged ? '' : ' — **NOT SO IN THIS RUN: fewer chunks stored than acknowledged**'}.`,
  )
  out.push('')
  out.push('## Oversize bodies (2 MB against the 1,000,000-byte cap)')
  out.push('')
  out.push(
    table(
      ['Probe (raw socket)', 'Answer', 'Time to answer', 'Body bytes sent when answered'],
      r.cluster.probes.map((p) => [p.name, `${p.status} ${p.answer.slice(0, 60).replace(/\|/g, '\\|')}`, `${ms(p.ms)} ms`, `${int(p.bodyBytesSent)} of ${int(p.bodyBytesTotal)}`]),
    ),
  )
  out.push('')
  const over = r.cluster.oversize
  out.push(
    `Under load (${r.connections} connections each sending 2 MB bodies back to back for ${r.seconds.oversize} s), ${underLoad.length} more probes sent headers alone: ` +
      `${underLoad.filter((p) => p.status === 413 && p.bodyBytesSent === 0).length} were answered 413 without a body byte sent, p50 ${ms(underLoadP50)} ms, max ${ms(underLoadMax)} ms. ` +
      `The load itself: ${int(over.answersPerSec)} answers/s (${codes(over)}), p50 ${ms(over.p50)} ms, p99 ${ms(over.p99)} ms, server CPU ${int(over.serverCpuPct)}%, ` +
      `against the bare handler's p50 ${ms(r.front.oversize.p50)} ms to receive a whole 2 MB body (${int(r.front.oversize.answersPerSec)}/s). ` +
      'autocannon times a request from its first byte written to the answer, and keeps writing the rest of the body after the 413 (the front lets uWebSockets.js discard it as it arrives, never buffered or parsed, ' +
      'rather than closing with unread bytes, which would make the kernel reset the connection and could destroy the 413 before the client reads it); ' +
      'the next request on that connection waits behind those bytes, so under this load a 413 costs the client about as much time as an accepted 2 MB body, and the probes above are what shows when the answer was given.',
  )
  out.push('')
  out.push(`## Front memory over ${r.seconds.memory} s of /ingest`)
  out.push('')
  out.push(
    table(
      ['Front', 'RSS start MiB', 'RSS end MiB', 'RSS max MiB', 'anon start MiB', 'anon end MiB', 'anon max MiB', 'anon peak, 20 s before → last 20 s', 'LMDB map at the end: resident / clean MiB', 'Flat'],
      memory.map((m) => [
        m.front,
        mib(m.start),
        mib(m.end),
        mib(m.max),
        mib(m.anonStart),
        mib(m.anonEnd),
        mib(m.anonMax),
        `${mib(m.warmPeak)} → ${mib(m.latePeak)}`,
        r.memory.lmdbMaps[m.front - 1] ? `${mib(r.memory.lmdbMaps[m.front - 1].rss)} / ${mib(r.memory.lmdbMaps[m.front - 1].clean)}` : '',
        m.flat ? 'yes' : 'no',
      ]),
    ),
  )
  out.push('')
  out.push(
    'RSS is sampled from /proc/<pid>/status every second. "anon" is RssAnon: heaps and stacks, what the process allocates and what a leak grows. ' +
      'The rest is file-backed: the code, and LMDB\'s memory map of the data file, in which pages the writers touch stay mapped; they are clean page cache ' +
      'that the kernel drops under memory pressure, and they grow with the data written, not with time. ' +
      `The run followed a ${r.seconds.memoryWarm} s warm-up. "Flat" means the anonymous peak of the last 20 s is within ${pct(TARGETS.memoryGrowthFraction)} (or ${mib(TARGETS.memoryGrowthFloorBytes)} MiB) of the anonymous peak of the 20 s before: whatever grew at the start has stopped growing.`,
  )
  out.push('')
  out.push(
    table(
      ['Second', ...memory.map((m) => `front ${m.front} RSS / anon MiB`)],
      samples.filter((s) => s.second === 1 || s.second % 10 === 0).map((s) => [s.second, ...s.total.map((t, i) => `${mib(t)} / ${mib(s.anon[i])}`)]),
    ),
  )
  out.push('')
  out.push(`The run stored ${int(((r.memory.statusCodes['200'] ?? 0) * r.bodies.chunk) / MiB)} MiB of chunks.`)
  out.push('')
  out.push('## Writer pool: WRITER_THREADS × WRITE_BATCH_ITEMS × WRITER_TASKS')
  out.push('')
  const rounds = r.grid.points[0]?.rounds.length ?? 0
  const defaultMean = mean(r.grid.defaultRuns.map((f) => f.okPerSec))
  out.push(
    table(
      [
        'WRITER_THREADS',
        'WRITE_BATCH_ITEMS',
        'WRITER_TASKS',
        ...Array.from({ length: rounds }, (_, i) => `round ${i + 1}: req/s (defaults on either side)`),
        'vs the defaults beside it',
        'p99 ms',
        'others CPU %',
        'vs ceiling',
      ],
      [
        [
          r.defaults.writerThreads,
          r.defaults.writeBatchItems,
          `${r.defaults.writerTasks} (defaults)`,
          ...Array.from({ length: rounds }, () => ''),
          `${r.grid.defaultRuns.length} runs: ${r.grid.defaultRuns.map((f) => int(f.okPerSec)).join(', ')}`,
          ms(mean(r.grid.defaultRuns.map((f) => f.p99))),
          int(mean(r.grid.defaultRuns.map((f) => f.otherCpuPct))),
          pct(defaultMean / commitCeiling.perSec),
        ],
        ...r.grid.points.map((p) => [
          p.writerThreads,
          p.writeBatchItems,
          p.writerTasks,
          ...p.rounds.map(({ figures, before, after }) => `${int(figures.okPerSec)} (${int(before.okPerSec)}, ${int(after.okPerSec)})`),
          gridRatios(p).map(pct).join(', '),
          ms(mean(p.rounds.map(({ figures }) => figures.p99))),
          int(mean(p.rounds.map(({ figures }) => figures.otherCpuPct))),
          pct(mean(p.rounds.map(({ figures }) => figures.okPerSec)) / commitCeiling.perSec),
        ]),
      ],
    ),
  )
  out.push('')
  out.push(
    `Each run is a fresh cluster (DURABILITY=commit, ${r.workers} fronts) and ${r.seconds.grid} s of /ingest. Every setting ran ${rounds === 1 ? 'once' : `${rounds} times`}, each time between two runs of the defaults, ` +
      'and is judged against their mean, since the load from others on this machine drifts within seconds. ' +
      `With ${r.connections} connections over ${r.workers} fronts, a front never has more than about ${Math.ceil(r.connections / r.workers)} requests waiting, so batch limits above that behave alike; ` +
      'a front hands a batch over as soon as one of its WRITER_THREADS × WRITER_TASKS slots is free, so batches form by themselves under load. ' +
      `A setting replaces the defaults only if it beat the default runs beside it by more than ${pct(GRID_MARGIN)} in every round, and only if the default runs themselves agree within a factor of ${GRID_MAX_SPREAD}. ` +
      (gridSpread(r.grid) > GRID_MAX_SPREAD
        ? `**Here they did not (fastest ${gridSpread(r.grid).toFixed(1)} × the slowest, as the load from others came and went): this run cannot tell the settings apart, and the defaults (${settings(r.defaults)}) stay.**`
        : winner
          ? `**${settings(winner)} did** (${gridRatios(winner).map(pct).join(', ')} of the defaults).`
          : `**None did: the defaults (${settings(r.defaults)}) stay.**`),
  )
  out.push('')
  out.push('## Micro-benchmark of the hot pure functions (bench/micro.ts)')
  out.push('')
  out.push(
    table(
      ['Function', 'ops/s (one core)', 'µs/op'],
      r.micro.map((m) => [m.name, int(m.opsPerSec), m.usPerOp.toFixed(2)]),
    ),
  )
  out.push('')
  return out.join('\n')
}

/** What serving on the pure-Node fallback costs (src/front/fallback.ts), one front each. */
function fallbackSection(f: NonNullable<Results['fallback']>): string[] {
  const row = (name: string, x: Figures, base?: Figures) => [name, int(x.okPerSec), ms(x.p50), ms(x.p99), int(cpuPerRequestUs(x)), base ? pct(x.okPerSec / base.okPerSec) : '']
  return [
    '## Without a native uWebSockets.js build (the pure-Node fallback)',
    '',
    table(
      ['one front', 'req/s', 'p50 ms', 'p99 ms', 'server CPU per request, µs', 'vs native'],
      [
        row('/ingest, native', f.native.ingest),
        row('/ingest, fallback', f.fallback.ingest, f.native.ingest),
        row('/signals, native', f.native.signals),
        row('/signals, fallback', f.fallback.signals, f.native.signals),
      ],
    ),
    '',
    'Where no native build loads (Node 22 or 24 on glibc older than 2.38, say), a front serves on node:http through src/front/fallback.ts, ' +
      'announced in the log and in `/health` (`"http": "fallback"`). One front each here, because Node 20 cannot share a port between node:http servers.',
  ]
}
