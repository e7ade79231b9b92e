/**
 * The cluster mode beside the embedded mode, in one run: three local
 * nats-server processes (a stream replicated three times, all on this
 * machine's disk) and one service node on them, against a node on its
 * embedded LMDB. The server's CPU per request counts the NATS servers too:
 * the absolute rate on one 2-core box is no target; the CPU per
 * acknowledged chunk is the figure to keep low.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startNatsCluster } from '../src/journal/nats-servers.js'
import { freePort } from '../test/helpers/cluster.js'
import type { Figures } from './load.js'
import { PINNED, SERVER_CPUS } from './pin.js'
import { ingestSpec, MAIN_S, measure, progress, signalsSpec, warm, WARM_S } from './scenarios.js'
import { startBenchCluster, type ClusterTarget } from './targets.js'

export interface NatsModeResults {
  replicas: number
  partitions: number
  embedded: { ingest: Figures; signals: Figures }
  cluster: { ingest: Figures; signals: Figures }
}

const REPLICAS = 3
const PARTITIONS = 3

async function twoRoutes(target: ClusterTarget, label: string): Promise<{ ingest: Figures; signals: Figures }> {
  await warm(target, ingestSpec('warm', target.publicKey, WARM_S))
  const ingest = await measure(target, ingestSpec(`/ingest, 20 KB gzip chunks (${label})`, target.publicKey, MAIN_S))
  const signals = await measure(target, signalsSpec(`/signals, 5 KB batches (${label})`, target.publicKey, MAIN_S))
  return { ingest, signals }
}

export async function natsStage(workers: number | undefined): Promise<NatsModeResults> {
  progress('cluster mode: the embedded node first, then three nats-servers and a node on them')
  const embeddedNode = await startBenchCluster(workers, { DURABILITY: 'commit' })
  let embedded: NatsModeResults['embedded']
  try {
    embedded = await twoRoutes(embeddedNode, 'embedded')
  } finally {
    await embeddedNode.stop()
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-nats-'))
  const nats = await startNatsCluster({ dir, freePort })
  const natsPids = nats.servers.map((s) => s.child!.pid!)
  // The NATS servers are part of the server under test: on its core, and in its CPU.
  if (PINNED) for (const pid of natsPids) execFileSync('taskset', ['-a', '-p', '-c', SERVER_CPUS, String(pid)], { stdio: 'ignore' })
  try {
    const node = await startBenchCluster(workers, { NATS_URL: nats.url, NATS_REPLICAS: String(REPLICAS), NATS_PARTITIONS: String(PARTITIONS) })
    const withNats: ClusterTarget = { ...node, pids: () => [...node.pids(), ...natsPids] }
    try {
      return { replicas: REPLICAS, partitions: PARTITIONS, embedded, cluster: await twoRoutes(withNats, 'cluster mode') }
    } finally {
      await node.stop()
    }
  } finally {
    await nats.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}
