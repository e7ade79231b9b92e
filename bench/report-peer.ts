/**
 * The section bench/RESULTS.md leads with: the service against the plain
 * peer (bench/plain-peer.ts) and the floor, server and load generator pinned,
 * with the CPU per request of each, and the targets set against them.
 */
import type { Figures } from './load.js'
import { int, met, ms, pct, table } from './report-format.js'
import { cpuPerPutUs, cpuPerRequestUs, mean, sustainedPerSec, type PeerPair, type PeerResults, type Results } from './results.js'

/** Targets against the peer and the floor, pinned, with the default configuration. */
export const PEER_TARGETS = { ingestCpuVsFloor: 1.3, ingestVsPeer: 1.25, signalsVsPeer: 1.25, p99Ms: 25 } as const

/**
 * The targets README defends where the ones above cannot be met on this
 * machine (README, "Benchmarks", says why with figures): what the service's
 * extra records and its aggregates cost against a peer that keeps neither.
 */
export const DEFENDED_TARGETS = {
  ingestCpuVsFloor: 1.6,
  ingestCpuVsPeer: 1.1,
  ingestVsPeer: 0.85,
  signalsOffVsPeer: 1,
  signalsAcknowledgedVsPeer: 0.9,
  signalsVsPeer: 0.55,
  signalsP99Ms: 30,
  ingestP99Ms: 50,
} as const

type Kind = 'ingest' | 'signals'

const avg = (runs: Figures[], of: (f: Figures) => number) => mean(runs.map(of))

export interface PeerSummary {
  floorUs: number
  runs: (who: keyof PeerResults['rounds'][number], kind: Kind) => Figures[]
  rate: (who: keyof PeerResults['rounds'][number], kind: Kind) => number
  us: (who: keyof PeerResults['rounds'][number], kind: Kind) => number
  p99: (who: keyof PeerResults['rounds'][number], kind: Kind) => number
}

export function summarise(p: PeerResults): PeerSummary {
  const runs = (who: keyof PeerResults['rounds'][number], kind: Kind) => p.rounds.map((r) => (r[who] as PeerPair)[kind])
  return {
    floorUs: cpuPerRequestUs(p.floor.bareChunk) + cpuPerPutUs(p.floor.put),
    runs,
    rate: (who, kind) => avg(runs(who, kind), sustainedPerSec),
    us: (who, kind) => avg(runs(who, kind), cpuPerRequestUs),
    p99: (who, kind) => Math.max(...runs(who, kind).map((f) => f.p99)),
  }
}

export function sectionPeer(r: Results, p: PeerResults): string[] {
  const s = summarise(p)
  const fronts = (n: number) => `${n} front${n === 1 ? '' : 's'}`
  const bareUs = cpuPerRequestUs(p.floor.bareChunk)
  const putUs = cpuPerPutUs(p.floor.put)
  const bareSignalsUs = cpuPerRequestUs(p.floor.bareSignals)
  const parseAndPutUs = cpuPerPutUs(p.floor.parseAndPut)
  const signalsFloorUs = bareSignalsUs + parseAndPutUs
  const line = (name: string, who: 'peer' | 'fastify' | 'service' | 'other', kind: Kind, floorUs?: number) => [
    name,
    int(s.rate(who, kind)),
    s.runs(who, kind).map((f) => `${ms(f.p50)} / ${ms(f.p99)}`).join(', '),
    int(s.us(who, kind)),
    floorUs ? `${(s.us(who, kind) / floorUs).toFixed(2)} ×` : '',
    who === 'peer' ? '' : pct(s.rate(who, kind) / s.rate('peer', kind)),
    who === 'peer' || who === 'fastify' ? '' : pct(s.rate(who, kind) / s.rate('fastify', kind)),
    int(avg(s.runs(who, kind), (f) => f.otherCpuPct)),
  ]
  const ingestCpu = s.us('service', 'ingest') / s.floorUs
  const ingestVsPeer = s.rate('service', 'ingest') / s.rate('peer', 'ingest')
  const signalsVsPeer = s.rate('service', 'signals') / s.rate('peer', 'signals')
  const p99s = [s.p99('service', 'ingest'), s.p99('service', 'signals')]
  const ingestCpuVsPeer = s.us('service', 'ingest') / s.us('peer', 'ingest')
  const d = DEFENDED_TARGETS
  const acknowledged = (who: 'peer' | 'service') => avg(s.runs(who, 'signals'), (f) => f.okPerSec)
  const signalsAcknowledgedVsPeer = acknowledged('service') / acknowledged('peer')
  // Aggregates off is measured in its own stage (sectionAggregates), against the peer of this one.
  const signalsOffVsPeer = avg(r.aggregates.rounds.map((round) => round.off), sustainedPerSec) / s.rate('peer', 'signals')
  return [
    '## Headline: against a plain implementation, CPU per request',
    '',
    `${r.pinning}. ${p.rounds.length} round${p.rounds.length === 1 ? '' : 's'}, each running the plain peer, the service with its default (${fronts(p.defaultWorkers)} on the one core it may use) and the service with ${fronts(p.otherWorkers)}, ` +
      `/ingest then /signals, ${r.seconds.main} s each, ${r.connections} connections, the same requests. req/s and CPU are the means over the rounds; p50 / p99 per round. ` +
      'After each run of the service the bench waits for its fold thread to fold the batches it left behind into the aggregates: req/s is the sustained rate (2xx answers over the load and that catch-up) and the CPU per request includes the catch-up, the work a batch costs whenever it is done.',
    '',
    table(
      ['Scenario', 'req/s', 'p50 / p99 ms', 'server CPU µs/req', 'vs floor', 'vs peer', 'vs fastify', 'others CPU %'],
      [
        ['Floor, /ingest: bare uWS handler + raw lmdb-js put', '', '', `${int(bareUs)} + ${int(putUs)} = ${int(s.floorUs)}`, '1.00 ×', '', '', ''],
        line('Plain peer, /ingest (node:http, one put per request)', 'peer', 'ingest', s.floorUs),
        line('Fastify peer, /ingest (fastify, one put per request)', 'fastify', 'ingest', s.floorUs),
        line(`**Service, /ingest, default (${fronts(p.defaultWorkers)})**`, 'service', 'ingest', s.floorUs),
        line(`Service, /ingest, ${fronts(p.otherWorkers)}`, 'other', 'ingest', s.floorUs),
        ['Floor, /signals: bare uWS handler + the batch parsed and put', '', '', `${int(bareSignalsUs)} + ${int(parseAndPutUs)} = ${int(signalsFloorUs)}`, '1.00 ×', '', '', ''],
        line('Plain peer, /signals (JSON.parse, checks by hand, no aggregates)', 'peer', 'signals', signalsFloorUs),
        line('Fastify peer, /signals (the same checks, no aggregates)', 'fastify', 'signals', signalsFloorUs),
        line(`**Service, /signals, default, aggregates on**`, 'service', 'signals', signalsFloorUs),
        line(`Service, /signals, ${fronts(p.otherWorkers)}`, 'other', 'signals', signalsFloorUs),
      ],
    ),
    '',
    table(
      ['Target (pinned, default configuration)', 'Measured', 'Verdict'],
      [
        [`/ingest: server CPU per chunk ≤ ${PEER_TARGETS.ingestCpuVsFloor} × the floor`, `${int(s.us('service', 'ingest'))} µs = ${ingestCpu.toFixed(2)} × ${int(s.floorUs)} µs`, met(ingestCpu <= PEER_TARGETS.ingestCpuVsFloor)],
        [`/ingest: req/s ≥ ${PEER_TARGETS.ingestVsPeer} × the plain peer's`, `${int(s.rate('service', 'ingest'))} = ${ingestVsPeer.toFixed(2)} × ${int(s.rate('peer', 'ingest'))}`, met(ingestVsPeer >= PEER_TARGETS.ingestVsPeer)],
        [`/signals, aggregates on: req/s ≥ ${PEER_TARGETS.signalsVsPeer} × the plain peer's`, `${int(s.rate('service', 'signals'))} = ${signalsVsPeer.toFixed(2)} × ${int(s.rate('peer', 'signals'))}`, met(signalsVsPeer >= PEER_TARGETS.signalsVsPeer)],
        [`p99 < ${PEER_TARGETS.p99Ms} ms at ${r.connections} connections, both`, `/ingest ${ms(p99s[0])} ms, /signals ${ms(p99s[1])} ms (worst round)`, met(p99s.every((x) => x < PEER_TARGETS.p99Ms))],
      ],
    ),
    '',
    ...fastifyTargets(s),
    ...signalsBudget(s, signalsFloorUs, r),
    'Where the targets above cannot be met on this machine (README, "Benchmarks", gives the figures), the ones defended instead: what the service\'s session records and aggregates cost against a peer that keeps neither.',
    '',
    table(
      ['Defended target (pinned, default configuration)', 'Measured', 'Verdict'],
      [
        [`/ingest: server CPU per chunk ≤ ${d.ingestCpuVsFloor} × the floor and ≤ ${d.ingestCpuVsPeer} × the peer's`, `${int(s.us('service', 'ingest'))} µs = ${ingestCpu.toFixed(2)} × the floor, ${ingestCpuVsPeer.toFixed(2)} × the peer's ${int(s.us('peer', 'ingest'))} µs`, met(ingestCpu <= d.ingestCpuVsFloor && ingestCpuVsPeer <= d.ingestCpuVsPeer)],
        [`/ingest: req/s ≥ ${d.ingestVsPeer} × the plain peer's`, `${ingestVsPeer.toFixed(2)} ×`, met(ingestVsPeer >= d.ingestVsPeer)],
        [`/signals, aggregates off (AGGREGATE_SIGNALS=0): req/s ≥ the plain peer's`, `${signalsOffVsPeer.toFixed(2)} × (the aggregates stage's rounds)`, met(signalsOffVsPeer >= d.signalsOffVsPeer)],
        [`/signals, aggregates on: acknowledged req/s ≥ ${d.signalsAcknowledgedVsPeer} × the plain peer's`, `${signalsAcknowledgedVsPeer.toFixed(2)} ×`, met(signalsAcknowledgedVsPeer >= d.signalsAcknowledgedVsPeer)],
        [`/signals, aggregates on: req/s sustained (the fold caught up) ≥ ${d.signalsVsPeer} × the plain peer's`, `${signalsVsPeer.toFixed(2)} ×`, met(signalsVsPeer >= d.signalsVsPeer)],
        [`p99 at ${r.connections} connections: /signals < ${d.signalsP99Ms} ms, /ingest < ${d.ingestP99Ms} ms`, `/ingest ${ms(p99s[0])} ms, /signals ${ms(p99s[1])} ms (worst round)`, met(p99s[0] < d.ingestP99Ms && p99s[1] < d.signalsP99Ms)],
      ],
    ),
    '',
    'Server CPU is utime + stime of every process and thread of the server from /proc, over the answers it gave: with the server on its own core, it is the figure that carries to a bigger machine. ' +
      'The floor is what no implementation of this contract on these parts can go below: reading the body in a bare uWebSockets.js handler, plus one raw lmdb-js put of the chunk, or for /signals of the batch parsed from its bytes (bench/storage-ceiling.ts, 100 writers, lmdb-js batching their puts into transactions). ' +
      '"others CPU %" is what the rest of this shared machine used meanwhile: where it is high, that run was starved.',
    '',
  ]
}

/**
 * What the /signals target leaves for the aggregates, from this run's
 * figures: a server on one core serves at most (its CPU share) / (CPU per
 * batch), so 1.25 × the peer's rate needs at most the peer's CPU per batch
 * / 1.25, all in; the floor takes part of it and the fold of a batch into
 * the aggregates (aggregates on less off, the aggregates stage) another.
 */
function signalsBudget(s: PeerSummary, floorUs: number, r: Results): string[] {
  const budgetUs = s.us('peer', 'signals') / PEER_TARGETS.signalsVsPeer
  const on = mean(r.aggregates.rounds.map((round) => cpuPerRequestUs(round.on)))
  const off = mean(r.aggregates.rounds.map((round) => cpuPerRequestUs(round.off)))
  const foldUs = on - off
  return [
    `What the /signals target leaves: the peer spends ${int(s.us('peer', 'signals'))} µs of server CPU per batch with its core ${int(avg(s.runs('peer', 'signals'), (f) => f.serverCpuPct))}% busy, so serving ${PEER_TARGETS.signalsVsPeer} × its rate on the same core allows at most ${int(budgetUs)} µs per batch, everything included. ` +
      `The floor alone (the body read, parsed and put as data) takes ${int(floorUs)} µs of it, leaving ${int(budgetUs - floorUs)} µs; folding a batch into the aggregates costs ${int(foldUs)} µs (${int(on)} µs per batch with the aggregates on against ${int(off)} µs off, the aggregates stage below), ` +
      `and the service acknowledges a batch for ${int(off)} µs with them off, ${int(off - floorUs)} µs over the floor for the contract's checks, page grouping, session and fold-log records. ` +
      (floorUs + foldUs > budgetUs
        ? `Floor and fold together (${int(floorUs + foldUs)} µs) are over the budget before any check: on this payload the target cannot be met by any design that parses the batch and folds it as this one does, and it is replaced by the defended targets below.`
        : `Floor and fold together (${int(floorUs + foldUs)} µs) fit in the budget: the checks and records would have to fit in the ${int(budgetUs - floorUs - foldUs)} µs left.`),
    '',
  ]
}

/** Issue 44's targets: the service against the fastify peer, at equal durability, with the default fronts. */
function fastifyTargets(s: PeerSummary): string[] {
  const rate = (kind: Kind) => s.rate('service', kind) / s.rate('fastify', kind)
  const cpu = s.us('service', 'ingest') / s.us('fastify', 'ingest')
  const p99 = (who: 'service' | 'fastify') => Math.max(s.p99(who, 'ingest'), s.p99(who, 'signals'))
  return [
    table(
      ['Target against the fastify peer (pinned, default fronts)', 'Measured', 'Verdict'],
      [
        ['/ingest: req/s ≥ 1.0 × the fastify peer\'s', `${int(s.rate('service', 'ingest'))} = ${rate('ingest').toFixed(2)} × ${int(s.rate('fastify', 'ingest'))}`, met(rate('ingest') >= 1)],
        ['/ingest: CPU per chunk ≤ 1.0 × the fastify peer\'s', `${int(s.us('service', 'ingest'))} µs = ${cpu.toFixed(2)} × ${int(s.us('fastify', 'ingest'))} µs`, met(cpu <= 1)],
        ['/signals: req/s ≥ 1.0 × the fastify peer\'s (the service folds its aggregates, the peer keeps none)', `${int(s.rate('service', 'signals'))} = ${rate('signals').toFixed(2)} × ${int(s.rate('fastify', 'signals'))}`, met(rate('signals') >= 1)],
        ['p99 no worse than the fastify peer\'s, both routes', `service ${ms(p99('service'))} ms, fastify ${ms(p99('fastify'))} ms (worst round and route)`, met(p99('service') <= p99('fastify'))],
      ],
    ),
    '',
  ]
}
