/** The cluster mode's section of bench/RESULTS.md: one node on three local nats-servers against the embedded mode and the raw publisher. */
import type { NatsModeResults } from './nats-stage.js'
import { int, ms, table } from './report-format.js'
import { cpuPerRequestUs } from './results.js'

const CONNECTIONS_NOTE = '100 publishes awaiting their acknowledgement at all times (the service\'s load has 100 connections)'

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
    ...sectionRawAndLag(n),
  ]
}

/** The service's /ingest against the raw JetStream publisher on the same servers and streams, and the second node's apply lag. */
export function sectionRawAndLag(n: NatsModeResults): string[] {
  const service = n.cluster.ingest
  const raw = n.raw
  const embeddedCpu = cpuPerRequestUs(n.embedded.ingest)
  const serviceCpu = cpuPerRequestUs(service)
  const rawCpu = raw.acked > 0 ? ((raw.natsCpuPct / 100) * raw.seconds * 1e6) / raw.acked : 0
  const r = raw.ackedPerSec > 0 ? service.okPerSec / raw.ackedPerSec : 0
  const lag = n.lag
  return [
    '### /ingest against the raw JetStream publisher',
    '',
    `The raw publisher (bench/raw-publisher.ts) is a process of its own on the load generator's core, connected with the node's NATS user over TLS, publishing the same 20 KB chunk bodies (bench/payloads.ts) (bare: not framed or sealed) to the same ${n.partitions} recording streams (R${n.replicas}), each with a message id like the front's, ${CONNECTIONS_NOTE}, for as long as the service's measured run. It runs after the service's node has stopped, so no node applies its entries. Server CPU: the NATS servers for the raw publisher; the node's processes and the NATS servers for the service. Load average ${n.load.before.toFixed(1)} at the start of the stage, ${n.load.after.toFixed(1)} at its end (2 cores): compare only figures of this run.`,
    '',
    table(
      ['', 'acknowledged chunks/s', 'p50 ms', 'p99 ms', 'server CPU µs per acknowledged chunk', 'not acknowledged'],
      [
        ['raw JetStream publisher', int(raw.ackedPerSec), raw.p50.toFixed(1), raw.p99.toFixed(1), int(rawCpu), `${raw.failed} failed`],
        ['service /ingest (cluster mode)', int(service.okPerSec), ms(service.p50), ms(service.p99), int(serviceCpu), Object.entries(service.statusCodes).filter(([status]) => status !== '200').map(([status, count]) => `${count} × ${status}`).join(', ') || 'none'],
        ['service /ingest (embedded)', int(n.embedded.ingest.okPerSec), ms(n.embedded.ingest.p50), ms(n.embedded.ingest.p99), int(embeddedCpu), ''],
      ],
    ),
    '',
    `R = service / raw = **${r.toFixed(2)}** (target ≥ 1.0). CPU per acknowledged chunk, NATS included: ${int(serviceCpu)} µs in the cluster mode, ${(serviceCpu / embeddedCpu).toFixed(1)} × the embedded mode's ${int(embeddedCpu)} µs (target ≤ 2 ×); the raw publisher's NATS servers alone ${int(rawCpu)} µs.`,
    ...(n.rawShared
      ? [
          '',
          `The raw publisher again with its process on the NATS servers' core, as the service's node is (its own CPU counted with theirs): ${int(n.rawShared.ackedPerSec)} acknowledged chunks/s, p99 ${n.rawShared.p99.toFixed(1)} ms, ${int(((n.rawShared.natsCpuPct + n.rawShared.clientCpuPct) / 100 * n.rawShared.seconds * 1e6) / Math.max(1, n.rawShared.acked))} µs per chunk; R against it = **${(service.okPerSec / Math.max(1, n.rawShared.ackedPerSec)).toFixed(2)}**.`,
        ]
      : []),
    '',
    ...(n.breakdown?.length
      ? [
          `Where the cluster mode's server CPU went in its /ingest run, per acknowledged chunk (${n.groupItems.toFixed(1)} items per log message on average, svc_log_group_items):`,
          '',
          table(['process', 'CPU µs per acknowledged chunk'], n.breakdown.map((b) => [b.process, int(b.usPerChunk)])),
          '',
        ]
      : []),
    '### Apply lag of a second node',
    '',
    `A second node (its own empty DATA_DIR, one front, on the load generator's core, its CPU not counted above) follows the same log while the first takes the /ingest run above. Sampled twice a second: its svc_journal_behind_entries over the ${lag.streams.length} recording streams, and the log's heads read from NATS; seconds behind = how long ago the log's head stood at the first entry the node had not applied (the worst stream).`,
    '',
    table(
      ['', 'entries behind', 'seconds behind'],
      [
        ['most, during the load', int(lag.maxEntries), lag.maxSeconds.toFixed(2)],
        ['at the end of the load', int(lag.endEntries), lag.endSeconds.toFixed(2)],
      ],
    ),
    '',
    `Caught up ${lag.caughtUpAfter === undefined ? 'not within 60 s' : `${lag.caughtUpAfter.toFixed(1)} s`} after the load ended (target: under 2 s behind at that load).`,
    '',
    ...(n.followerWaits
      ? [
          `Where the second node's entries waited (its svc_journal_delivery_seconds and svc_journal_apply_seconds over the stage): from the log storing them to the node receiving them, ${n.followerWaits.delivery.meanMs.toFixed(0)} ms on average (99% under ${n.followerWaits.delivery.p99Ms} ms); from receiving them to their commit, ${n.followerWaits.apply.meanMs.toFixed(0)} ms (99% under ${n.followerWaits.apply.p99Ms} ms).`,
          '',
        ]
      : []),
  ]
}
