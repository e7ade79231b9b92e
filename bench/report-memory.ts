/** bench/RESULTS.md's sections on front memory, the writer-pool grid, the micro-benchmarks and the pure-Node fallback. */
import type { Figures } from './load.js'
import type { Derived } from './report-derive.js'
import { MiB, int, pct, ms, mib, settings, table } from './report-format.js'
import { TARGETS, cpuPerRequestUs, mean, gridRatios, gridSpread, GRID_MARGIN, GRID_MAX_SPREAD, type Results } from './results.js'

export function sectionMemory(r: Results, d: Derived): string[] {
  const { samples, memory } = d
  const out: string[] = []
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
  return out
}

export function sectionGrid(r: Results, d: Derived): string[] {
  const { commitCeiling, winner } = d
  const out: string[] = []
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
      'a front hands a batch over as soon as one of its WRITER_TASKS slots (per writer thread, or on its own thread with WRITER_THREADS=0) is free, so batches form by themselves under load. ' +
      `A setting replaces the defaults only if it beat the default runs beside it by more than ${pct(GRID_MARGIN)} in every round, and only if the default runs themselves agree within a factor of ${GRID_MAX_SPREAD}. ` +
      (gridSpread(r.grid) > GRID_MAX_SPREAD
        ? `**Here they did not (fastest ${gridSpread(r.grid).toFixed(1)} × the slowest, as the load from others came and went): this run cannot tell the settings apart, and the defaults (${settings(r.defaults)}) stay.**`
        : winner
          ? `**${settings(winner)} did** (${gridRatios(winner).map(pct).join(', ')} of the defaults).`
          : `**None did: the defaults (${settings(r.defaults)}) stay.**`),
  )
  out.push('')
  return out
}

export function sectionMicro(r: Results): string[] {
  const out: string[] = []
  out.push('## Micro-benchmark of the hot pure functions (bench/micro.ts)')
  out.push('')
  out.push(
    table(
      ['Function', 'ops/s (one core)', 'µs/op'],
      r.micro.map((m) => [m.name, int(m.opsPerSec), m.usPerOp.toFixed(2)]),
    ),
  )
  out.push('')
  return out
}

/** What serving on the pure-Node fallback costs (src/front/fallback.ts), one front each. */
export function fallbackSection(f: NonNullable<Results['fallback']>): string[] {
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
