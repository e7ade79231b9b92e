/**
 * The `peer` stage: the service against the plain peer (bench/plain-peer.ts),
 * the fastify peer (bench/fastify-peer.ts) and the floor, with the same requests, server and load generator pinned to
 * their own cores. Each round runs the two peers, the service with its default
 * number of fronts and the service with the other count (one front where the
 * default is more, two where it is one), /ingest then /signals, so that every
 * comparison is between neighbouring runs. The floor is the bare
 * uWebSockets.js handler's CPU per request plus a raw lmdb-js put's (for
 * /signals, of the batch parsed from its bytes), taken from the front and
 * storage stages of the same run, or measured here when those stages are not
 * run.
 */
import type { Figures } from './load.js'
import { cpuPerPutUs, cpuPerRequestUs, frontCpuPerRequestUs, type PeerPair, type PeerResults, type PeerRound, type StorageFigures } from './results.js'
import { ingestSpec, MAIN_S, measure, progress, SERVICE_NODE_ARGS, signalsSpec, warm, WARM_S } from './scenarios.js'
import { startBareUws, startBenchCluster, startPlainPeer, type Target } from './targets.js'

async function pair(target: Target, publicKey: string, label: string): Promise<PeerPair> {
  await warm(target, ingestSpec('warm', publicKey, WARM_S))
  const ingest = await measure(target, ingestSpec(`/ingest, 20 KB gzip chunks, ${label}`, publicKey, MAIN_S))
  const signals = await measure(target, signalsSpec(`/signals, 5 KB batches, ${label}`, publicKey, MAIN_S))
  return { ingest, signals }
}

async function peerPair(fastify = false): Promise<PeerPair> {
  progress(fastify ? 'fastify peer: fastify + one lmdb-js put per request' : 'plain peer: node:http + one lmdb-js put per request')
  // Profiled as the service is, when the run asks (--profile=DIR): the peers' profiles sit beside its processes'.
  const peer = await startPlainPeer(fastify, SERVICE_NODE_ARGS)
  try {
    return await pair(peer, peer.publicKey, fastify ? 'fastify peer' : 'plain peer')
  } finally {
    await peer.stop()
  }
}

async function servicePair(workers: number | undefined, label: string): Promise<PeerPair> {
  progress(`service: ${label}`)
  const cluster = await startBenchCluster(workers, { DURABILITY: 'commit' }, SERVICE_NODE_ARGS)
  try {
    return await pair(cluster, cluster.publicKey, label)
  } finally {
    await cluster.stop()
  }
}

async function bareFloor(workers: number): Promise<{ chunk: Figures; signals: Figures }> {
  const bare = await startBareUws(workers)
  try {
    const pk = 'svc_pk_0000000000000000'
    await warm(bare, ingestSpec('warm', pk, WARM_S))
    return { chunk: await measure(bare, ingestSpec('bare uWS, 20 KB body', pk, MAIN_S)), signals: await measure(bare, signalsSpec('bare uWS, 5 KB body', pk, MAIN_S)) }
  } finally {
    await bare.stop()
  }
}

export async function peerStage(
  defaultWorkers: number,
  rounds: number,
  floorRuns: { front?: { chunk: Figures; signals: Figures }; put?: StorageFigures; measurePut: () => StorageFigures; measureParseAndPut: () => StorageFigures },
): Promise<PeerResults> {
  const otherWorkers = defaultWorkers === 1 ? 2 : 1
  const results: PeerRound[] = []
  for (let round = 1; round <= rounds; round++) {
    progress(`peer round ${round} of ${rounds}`)
    const peer = await peerPair()
    const fastify = await peerPair(true)
    const service = await servicePair(undefined, `service, default (${defaultWorkers} front${defaultWorkers === 1 ? '' : 's'})`)
    const other = await servicePair(otherWorkers, `service, WORKERS=${otherWorkers}`)
    results.push({ peer, fastify, service, other })
  }
  const front = floorRuns.front ?? (await bareFloor(defaultWorkers))
  const put = floorRuns.put ?? floorRuns.measurePut()
  const parseAndPut = floorRuns.measureParseAndPut()
  const out: PeerResults = { defaultWorkers, otherWorkers, rounds: results, floor: { bareChunk: front.chunk, bareSignals: front.signals, put, parseAndPut } }
  for (const line of peerLines(out)) progress(`  ${line}`)
  return out
}

/** One line per run, for the log. */
export function peerLines(p: PeerResults): string[] {
  const f = (name: string, x: Figures) => `${name}: ${Math.round(x.answersPerSec)} req/s, p50 ${x.p50} ms, p99 ${x.p99} ms, ${Math.round(cpuPerRequestUs(x))} µs/req`
  const lines = [`floor /ingest: bare uWS ${Math.round(cpuPerRequestUs(p.floor.bareChunk))} + raw put ${Math.round(cpuPerPutUs(p.floor.put))} µs; /signals bare uWS ${Math.round(cpuPerRequestUs(p.floor.bareSignals))} + parse and put ${Math.round(cpuPerPutUs(p.floor.parseAndPut))} µs`]
  p.rounds.forEach((r, i) => {
    for (const kind of ['ingest', 'signals'] as const) {
      lines.push(`round ${i + 1} /${kind}: ` + [f('peer', r.peer[kind]), f('fastify', r.fastify[kind]), f(`service ×${p.defaultWorkers}`, r.service[kind]), f(`service ×${p.otherWorkers}`, r.other[kind])].join(' | '))
    }
  })
  return lines
}

/**
 * `--ab=NAME=VALUE,…`: the service's defaults against the same service with
 * those settings, alternating for `rounds` rounds, /ingest then /signals each;
 * printed, not written to RESULTS.md. For trying a change before making it the default.
 */
export async function abStage(env: Record<string, string>, rounds: number): Promise<{ a: PeerPair; b: PeerPair }[]> {
  const label = Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')
  const runs: { a: PeerPair; b: PeerPair }[] = []
  const run = async (variant: Record<string, string>, name: string) => {
    // --ab=PEER=fastify: B is the fastify peer, interleaved with the service run by run (issue 44's comparison).
    if (variant.PEER === 'fastify') return peerPair(true)
    progress(`service: ${name}`)
    const cluster = await startBenchCluster(undefined, { DURABILITY: 'commit', ...variant }, SERVICE_NODE_ARGS)
    try {
      return await pair(cluster, cluster.publicKey, name)
    } finally {
      await cluster.stop()
    }
  }
  for (let round = 1; round <= rounds; round++) {
    // A B, then B A: each side runs first as often as the other.
    const bFirst = round % 2 === 0
    const first = await run(bFirst ? env : {}, bFirst ? label : 'defaults')
    const second = await run(bFirst ? {} : env, bFirst ? 'defaults' : label)
    runs.push(bFirst ? { a: second, b: first } : { a: first, b: second })
  }
  const us = (pairs: PeerPair[], kind: 'ingest' | 'signals') => pairs.map((p) => Math.round(cpuPerRequestUs(p[kind]))).join(', ')
  const rate = (pairs: PeerPair[], kind: 'ingest' | 'signals') => pairs.map((p) => Math.round(p[kind].answersPerSec)).join(', ')
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[values.length >> 1]
  for (const kind of ['ingest', 'signals'] as const) {
    progress(`  A/B /${kind}: defaults ${us(runs.map((r) => r.a), kind)} µs/req (${rate(runs.map((r) => r.a), kind)} req/s) | ${label} ${us(runs.map((r) => r.b), kind)} µs/req (${rate(runs.map((r) => r.b), kind)} req/s)`)
    // Each round's two runs are neighbours: their ratio carries less of the machine's drift than either figure.
    const rates = runs.map((r) => r.a[kind].answersPerSec / r.b[kind].answersPerSec)
    const cpus = runs.map((r) => cpuPerRequestUs(r.a[kind]) / cpuPerRequestUs(r.b[kind]))
    const fronts = runs.map((r) => frontCpuPerRequestUs(r.a[kind]) / frontCpuPerRequestUs(r.b[kind]))
    const p99s = runs.map((r) => `${r.a[kind].p99}/${r.b[kind].p99}`)
    progress(`  A/B /${kind}, defaults ÷ ${label} per round: req/s ${rates.map((x) => x.toFixed(2)).join(', ')} (median ${median(rates).toFixed(2)}); CPU per request ${cpus.map((x) => x.toFixed(2)).join(', ')} (median ${median(cpus).toFixed(2)}); the fronts' alone, during the load ${fronts.map((x) => x.toFixed(2)).join(', ')} (median ${median(fronts).toFixed(2)}); p99 ms ${p99s.join(', ')}`)
  }
  return runs
}
