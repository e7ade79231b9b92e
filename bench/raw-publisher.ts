/**
 * The engine's own rate, for the `nats` stage: a plain JetStream client
 * publishing the benchmark's 20 KB chunk bodies to the service's recording
 * streams (the same streams, replicas and partitions, reached with the
 * node's NATS user and TLS), each with a message id like the front's
 * (project, session, seq) so JetStream keeps its duplicate window as it does
 * for the service, with `inFlight` publishes awaiting their acknowledgement
 * at all times, as the service's load has connections. Nothing is sealed or
 * framed: the bodies go as they are, so this is the floor under the service.
 *
 * Usage: node dist/bench/raw-publisher.js '<json RawPublisherArgs>'
 * Prints {"phase":"measuring"} when the measured window starts, then one JSON
 * line of RawPublisherFigures.
 */
import { jetstream } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import { natsConnectOptions, type NatsSettings } from '../src/journal/connect.js'
import { chunkMessageId, chunkSubject, DEFAULT_LAYOUT, partitionOf } from '../src/journal/streams.js'
import { chunkBody } from './payloads.js'

export interface RawPublisherArgs {
  settings: NatsSettings
  partitions: number
  inFlight: number
  warmSeconds: number
  seconds: number
}

export interface RawPublisherFigures {
  acked: number
  failed: number
  seconds: number
  ackedPerSec: number
  p50: number
  p99: number
  max: number
  /** This process's CPU over the measured window, % of one core (the load generator's, not the server's). */
  clientCpuPct: number
}

/** Chunks per session, as the main benchmark's load sends them. */
const CHUNKS_PER_SESSION = 20
/** A project id of its own: its sessions never collide with the service's in the duplicate window. */
const PROJECT = 'raw-publisher'

async function main(args: RawPublisherArgs): Promise<RawPublisherFigures> {
  const nc = await connect(natsConnectOptions(args.settings, 'svc-bench-raw'))
  const js = jetstream(nc)
  const layout = { ...DEFAULT_LAYOUT, partitions: args.partitions }
  const body = chunkBody()
  let n = 0
  let measuring = false
  let stop = false
  let failed = 0
  const latencies: number[] = []
  const worker = async () => {
    while (!stop) {
      const i = n++
      const sk = `raw-${process.pid}-${Math.floor(i / CHUNKS_PER_SESSION)}`
      const subject = chunkSubject(layout, partitionOf(PROJECT, sk, layout.partitions), PROJECT, sk)
      const counted = measuring
      const started = performance.now()
      try {
        await js.publish(subject, body, { msgID: chunkMessageId(PROJECT, sk, i % CHUNKS_PER_SESSION), timeout: 10_000 })
        // Only publishes started and acknowledged inside the window count, as autocannon counts answers.
        if (counted && !stop) latencies.push(performance.now() - started)
      } catch {
        if (counted && !stop) failed++
      }
    }
  }
  const workers = Array.from({ length: args.inFlight }, worker)
  await new Promise((resolve) => setTimeout(resolve, args.warmSeconds * 1000))
  console.log(JSON.stringify({ phase: 'measuring' }))
  const cpuBefore = process.cpuUsage()
  const started = performance.now()
  measuring = true
  await new Promise((resolve) => setTimeout(resolve, args.seconds * 1000))
  stop = true
  const seconds = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(cpuBefore)
  await Promise.all(workers)
  await nc.close()
  latencies.sort((a, b) => a - b)
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0
  return {
    acked: latencies.length,
    failed,
    seconds,
    ackedPerSec: latencies.length / seconds,
    p50: pct(50),
    p99: pct(99),
    max: latencies[latencies.length - 1] ?? 0,
    clientCpuPct: ((cpu.user + cpu.system) / 1e6 / seconds) * 100,
  }
}

console.log(JSON.stringify(await main(JSON.parse(process.argv[2]) as RawPublisherArgs)))
process.exit(0)
