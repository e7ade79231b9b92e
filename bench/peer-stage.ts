/**
 * The `peer` stage: the service against the plain peer (bench/plain-peer.ts)
 * and the floor, with the same requests, server and load generator pinned to
 * their own cores. Each round runs the peer, the service with its default
 * number of fronts and the service with the other count (one front where the
 * default is more, two where it is one), /ingest then /signals, so that every
 * comparison is between neighbouring runs. The floor is the bare
 * uWebSockets.js handler's CPU per request plus a raw lmdb-js put's, taken
 * from the front and storage stages of the same run, or measured here when
 * those stages are not run.
 */
import type { Figures } from './load.js'
import type { StorageFigures } from './report.js'
import { ingestSpec, MAIN_S, measure, progress, signalsSpec, warm, WARM_S } from './scenarios.js'
import { startBareUws, startBenchCluster, startPlainPeer, type Target } from './targets.js'

export interface PeerPair {
  ingest: Figures
  signals: Figures
}

export interface PeerRound {
  peer: PeerPair
  /** The service with WORKERS unset (its default for the cores it may use). */
  service: PeerPair
  /** The service with `otherWorkers` fronts. */
  other: PeerPair
}

export interface PeerResults {
  defaultWorkers: number
  otherWorkers: number
  rounds: PeerRound[]
  floor: { bareChunk: Figures; bareSignals: Figures; put: StorageFigures }
}

async function pair(target: Target, publicKey: string, label: string): Promise<PeerPair> {
  await warm(target, ingestSpec('warm', publicKey, WARM_S))
  const ingest = await measure(target, ingestSpec(`/ingest, 20 KB gzip chunks, ${label}`, publicKey, MAIN_S))
  const signals = await measure(target, signalsSpec(`/signals, 5 KB batches, ${label}`, publicKey, MAIN_S))
  return { ingest, signals }
}

async function peerPair(): Promise<PeerPair> {
  progress('plain peer: node:http + one lmdb-js put per request')
  const peer = await startPlainPeer()
  try {
    return await pair(peer, peer.publicKey, 'plain peer')
  } finally {
    await peer.stop()
  }
}

async function servicePair(workers: number | undefined, label: string): Promise<PeerPair> {
  progress(`service: ${label}`)
  const cluster = await startBenchCluster(workers, { DURABILITY: 'commit' })
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
  floorRuns: { front?: { chunk: Figures; signals: Figures }; put?: StorageFigures; measurePut: () => StorageFigures },
): Promise<PeerResults> {
  const otherWorkers = defaultWorkers === 1 ? 2 : 1
  const results: PeerRound[] = []
  for (let round = 1; round <= rounds; round++) {
    progress(`peer round ${round} of ${rounds}`)
    const peer = await peerPair()
    const service = await servicePair(undefined, `service, default (${defaultWorkers} front${defaultWorkers === 1 ? '' : 's'})`)
    const other = await servicePair(otherWorkers, `service, WORKERS=${otherWorkers}`)
    results.push({ peer, service, other })
  }
  const front = floorRuns.front ?? (await bareFloor(defaultWorkers))
  const put = floorRuns.put ?? floorRuns.measurePut()
  const out: PeerResults = { defaultWorkers, otherWorkers, rounds: results, floor: { bareChunk: front.chunk, bareSignals: front.signals, put } }
  for (const line of peerLines(out)) progress(`  ${line}`)
  return out
}

/** Server CPU per answered request, µs. */
export function usPerRequest(f: Figures): number {
  return f.answersPerSec > 0 ? (f.serverCpuPct / 100 / f.answersPerSec) * 1e6 : 0
}

/** CPU per put of the storage ceiling, µs. */
export function usPerPut(s: StorageFigures): number {
  return s.putsPerSec > 0 ? (s.cpuPct / 100 / s.putsPerSec) * 1e6 : 0
}

/** One line per run, for the log. */
export function peerLines(p: PeerResults): string[] {
  const f = (name: string, x: Figures) => `${name}: ${Math.round(x.answersPerSec)} req/s, p50 ${x.p50} ms, p99 ${x.p99} ms, ${Math.round(usPerRequest(x))} µs/req`
  const lines = [`floor /ingest: bare uWS ${Math.round(usPerRequest(p.floor.bareChunk))} + raw put ${Math.round(usPerPut(p.floor.put))} µs; /signals bare ${Math.round(usPerRequest(p.floor.bareSignals))} µs`]
  p.rounds.forEach((r, i) => {
    for (const kind of ['ingest', 'signals'] as const) {
      lines.push(`round ${i + 1} /${kind}: ` + [f('peer', r.peer[kind]), f(`service ×${p.defaultWorkers}`, r.service[kind]), f(`service ×${p.otherWorkers}`, r.other[kind])].join(' | '))
    }
  })
  return lines
}
