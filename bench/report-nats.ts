/** The cluster mode's section of bench/RESULTS.md: one node on three local nats-servers against the embedded mode. */
import type { NatsModeResults } from './nats-stage.js'
import { int, ms, table } from './report-format.js'
import { cpuPerRequestUs } from './results.js'

export function sectionNatsMode(n: NatsModeResults): string[] {
  const rows = (['embedded', 'cluster'] as const).flatMap((mode) =>
    (['ingest', 'signals'] as const).map((route) => {
      const f = n[mode][route]
      const other = Object.entries(f.statusCodes).filter(([status]) => status !== '200').map(([status, count]) => `${count} × ${status}`).join(', ')
      return [mode === 'embedded' ? 'embedded (LMDB)' : `cluster mode (${n.replicas} replicas, ${n.partitions} partitions)`, `/${route}`, int(f.okPerSec), ms(f.p50), ms(f.p99), int(cpuPerRequestUs(f)), other || 'none']
    }),
  )
  return [
    '## Cluster mode (NATS JetStream)',
    '',
    `One service node on three nats-server processes of this machine (every stream replicated ${n.replicas} times, all replicas on the same disk), against one node on its embedded LMDB, in this run. Server CPU counts the NATS servers. The absolute rate on one 2-core machine is no target; the CPU per acknowledged request is the figure to keep low.`,
    '',
    table(['Mode', 'Route', '200/s', 'p50 ms', 'p99 ms', 'server CPU µs per request', 'other answers'], rows),
    '',
  ]
}
