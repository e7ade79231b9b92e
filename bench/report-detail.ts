/** bench/RESULTS.md's detailed sections: durability, the signal aggregates, every run in detail, oversize bodies. */
import type { Figures } from './load.js'
import type { Derived } from './report-derive.js'
import { int, pct, ms, mbps, codes, table } from './report-format.js'
import { cpuPerRequestUs, mean, sustainedPerSec, type FoldCost, type Results } from './results.js'

/** What waiting for the sync cost, as a share of the `commit` figure; a negative cost is noise, and said so. */
function cost(commit: number, flush: number): string {
  const c = 1 - flush / commit
  return c >= 0 ? pct(c) : `none measurable (flush ran ${pct(-c)} faster here: noise)`
}

export function sectionDurability(r: Results, d: Derived): string[] {
  const { ingest, commitRuns, commitMean, flushCost } = d
  const out: string[] = []
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
      'are synced, but LMDB\'s meta page, which names the newest tree, waits for the next commit (`noMetaSync`): a power cut or a kernel panic ' +
      'can undo the last transaction, never corrupt the database. `DURABILITY=flush` syncs the meta page with every commit and waits for lmdb-js\'s `flushed` promise, ' +
      `and survives power loss too, at the cost measured above (${flushCost > 0 ? `${pct(flushCost)} of /ingest throughput in this run` : 'which this run could not separate from the noise of the machine'}). ` +
      'A recorder that loses its last transaction of chunks in a power cut loses little, while every tracker waits for each answer, so `commit` is the default; ' +
      'a deployment without a battery-backed disk that must not lose any acknowledged chunk sets `flush`.',
  )
  out.push('')
  return out
}

export function sectionAggregates(r: Results): string[] {
  const out: string[] = []
  const aggregateRounds = r.aggregates.rounds
  const offMean = mean(aggregateRounds.map((round) => sustainedPerSec(round.off)))
  const onMean = mean(aggregateRounds.map((round) => sustainedPerSec(round.on)))
  out.push('## Cost of the signal aggregates (AGGREGATE_SIGNALS)')
  out.push('')
  out.push(
    table(
      ['/signals, 5 KB batches', 'req/s acknowledged', 'fold caught up after, s', 'req/s sustained', 'p50 ms', 'p99 ms', 'server CPU %', 'server CPU per batch, µs', 'others CPU %', 'on vs off'],
      aggregateRounds.flatMap(({ off, on }, i) =>
        (
          [
            [`round ${i + 1}: aggregates off (AGGREGATE_SIGNALS=0)`, off, ''],
            [`round ${i + 1}: aggregates folded in by the fold thread (default)`, on, `${pct(sustainedPerSec(on) / sustainedPerSec(off))}`],
          ] as const
        ).map(([name, f, ratio]) => [name, int(f.okPerSec), f.settleSeconds.toFixed(1), int(sustainedPerSec(f)), ms(f.p50), ms(f.p99), int(f.serverCpuPct), int(cpuPerRequestUs(f)), int(f.otherCpuPct), ratio]),
      ),
    ),
  )
  out.push('')
  out.push(
    `Keeping the heatmap, leaderboard, friction and page aggregates costs **${pct(1 - onMean / offMean)}** of /signals throughput in this run ` +
      `(${int(onMean)} against ${int(offMean)} req/s sustained, the means of ${aggregateRounds.length} alternating rounds, each run in a fresh cluster; ` +
      `server CPU per batch ${int(mean(aggregateRounds.map((round) => cpuPerRequestUs(round.on))))} against ${int(mean(aggregateRounds.map((round) => cpuPerRequestUs(round.off))))} µs). ` +
      'AGGREGATE_SIGNALS=0 exists only to measure this: the read API then misses what was ingested meanwhile. ' +
      "Ingest stores each batch and logs it; the control worker's fold thread (nice +10) folds logged batches into the aggregates, " +
      "`FOLD_BATCHES` per transaction, behind the acknowledgement, in the aggregates' own LMDB environment. Its folds take a share of the same two cores, " +
      "which is what this figure prices (the read API's targets allow 10%); bench/read-results.md measures it with denser batches, and the fold thread's catch-up time.",
  )
  out.push('')
  out.push(...sectionFoldCost(r.aggregates.foldCost))
  return out
}

/** Where a fold's CPU goes: the benchmark's batch against variants without each kind of entry (bench/fold-cost.ts). */
function sectionFoldCost(costs: FoldCost[]): string[] {
  const of = (variant: FoldCost['variant']) => costs.find((c) => c.variant === variant)!
  const full = of('full')
  const us = (x: number) => x.toFixed(1)
  const per = (variant: FoldCost['variant'], count: number) => (count > 0 ? us((full.usPerBatch - of(variant).usPerBatch) / count) : '')
  const { views, clicks, rage, errors } = full.entries
  const plainClicks = of('clicksOnly').usPerBatch - of('empty').usPerBatch
  return [
    '### Where the fold spends it',
    '',
    table(
      ['Batch folded (stored as ingest stores it, folded FOLD_BATCHES to a transaction as the fold thread does, one process)', 'bytes', 'views / clicks (rage) / errors', 'fold CPU per batch, µs'],
      costs.map((c) => [c.name, int(c.bytes), `${c.entries.views} / ${c.entries.clicks} (${c.entries.rage}) / ${c.entries.errors}`, us(c.usPerBatch)]),
    ),
    '',
    `Per entry of the benchmark's batch, from the differences: a rage click ${per('noRage', rage)} µs more than a plain one (its friction item is written twice, in the project's feed and in its page's, each an LMDB put of about 2–3 µs, plus its record), ` +
      `a JS error ${per('noErrors', errors)} µs (an occurrence in two feeds, its message registered, its hour counted), a view ${per('noViews', views)} µs (read back, merged; these views repeat, so nothing is rewritten), ` +
      `a plain click ${clicks > 0 ? us(plainClicks / clicks) : ''} µs (heat bins, its element's counts and session index, held in memory and written once per transaction), ` +
      `and the batch itself ${us(of('empty').usPerBatch)} µs (its log entry read, the batch read from the store and decoded, its session's record). ` +
      "The fold's time is spread over every entry: no one part would pay back a rewrite, and the friction and error feeds' two writes per item are what lets a page's feed be read without scanning the project's.",
    '',
  ]
}

export function sectionDetail(r: Results, d: Derived): string[] {
  const { ingest, acknowledged } = d
  const out: string[] = []
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
      `${Math.max(1, r.defaults.writerThreads) * r.defaults.writerTasks} batches in flight per process), with no HTTP and no writer pool: in one process, then split over ${r.workers} processes like the fronts. ` +
      'It is what the cluster could reach if requests cost nothing.',
  )
  out.push('')
  out.push(
    `Acknowledged and stored: the commit-mode cluster answered ${int(acknowledged)} chunks 200 in the measured /ingest run (plus the warm-up) ` +
      `and its store holds ${int(r.cluster.storedChunks)} chunks for the project afterwards (the 2 MB bodies add none): nothing acknowledged is missing` +
      `${r.cluster.storedChunks >= acknowledged ? '' : ' — **NOT SO IN THIS RUN: fewer chunks stored than acknowledged**'}.`,
  )
  out.push('')
  return out
}

export function sectionOversize(r: Results, d: Derived): string[] {
  const { underLoad, underLoadP50, underLoadMax } = d
  const out: string[] = []
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
  return out
}
