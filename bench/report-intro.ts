/** bench/RESULTS.md from its title to the targets: the machine, the method, the headline table, the targets and how to read them. */
import type { Derived } from './report-derive.js'
import { int, pct, ms, mib, met, table, row, storageRow } from './report-format.js'
import { TARGETS, cpuPerRequestUs, mean, sustainedPerSec, gridRatios, gridSpread, GRID_MAX_SPREAD, type Results } from './results.js'

/** What the grid says about more writer threads per front. */
function threadsSentence(r: Results): string {
  const more = r.grid.points.filter((p) => p.writerThreads > r.defaults.writerThreads)
  if (more.length === 0) return ''
  if (gridSpread(r.grid) > GRID_MAX_SPREAD) return 'The grid below was too noisy in this run to say whether more writer threads per front help.'
  const ratio = mean(more.flatMap(gridRatios))
  return ratio < 1
    ? `Writer threads per front (piscina, WRITER_THREADS ≥ 1) were slower in the grid below (${pct(ratio)} of the defaults' throughput on average): each batch is cloned to another thread, and each body is a fresh buffer there, which V8 must collect.`
    : `Writer threads per front (piscina, WRITER_THREADS ≥ 1) were not slower in the grid below (${pct(ratio)} of the defaults' throughput on average).`
}

export function sectionIntro(r: Results, d: Derived): string[] {
  const { commitCeiling, flushCeiling } = d
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
      `- Every server runs on loopback on this machine with the load generator (autocannon, one thread, ${r.connections} connections, no pipelining): ${r.pinning}. Other work on the machine is not pinned away; its CPU is in the detailed tables.`,
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
  return out
}

export function sectionHeadline(r: Results, d: Derived): string[] {
  const { commitCeiling, flushCeiling, ingest, ingestRatio, flushRatio, signalsRatio, declaredProbe, chunkedProbe, underLoad, underLoadP50, oversizeOk, memory, memoryFlat, p99Ok } = d
  const out: string[] = []
  out.push('## Against the ceilings')
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
  out.push('## Targets against the ceilings')
  out.push('')
  out.push(
    table(
      ['Target', 'Measured', 'Verdict'],
      [
        [
          '/ingest ≥ 70% of the lower ceiling (front or storage)',
          `${int(ingest.okPerSec)} req/s = ${pct(ingestRatio)} of ${int(commitCeiling.perSec)}/s (${commitCeiling.which}); with flush ${pct(flushRatio)}`,
          met(ingestRatio >= TARGETS.ingestVsStorage),
        ],
        [
          '/signals ≥ 40% of the front ceiling, 5 KB bodies',
          `${int(sustainedPerSec(r.cluster.signals))} req/s sustained = ${pct(signalsRatio)} of ${int(r.front.signals.okPerSec)} req/s`,
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
  return out
}

export function sectionReading(r: Results, d: Derived): string[] {
  const { ingest } = d
  const out: string[] = []
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
  return out
}
