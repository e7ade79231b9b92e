/**
 * How long a JetStream message of a given size waits between its publish's
 * acknowledgement and its delivery to an ordered consumer, pulled in bytes or
 * in messages: the follower's apply lag starts there. One nats-server of
 * this machine (the shipped configuration), one stream, messages published
 * at a steady rate.
 * Flags: --size=BYTES (245760), --rate=PER_SECOND (100), --seconds=N (10).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import { natsConnectOptions } from '../src/journal/connect.js'
import { startNatsCluster } from '../src/journal/nats-servers.js'
import { freePort } from '../test/helpers/cluster.js'

const flag = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback)
const SIZE = flag('size', 245_760)
const RATE = flag('rate', 100)
const SECONDS = flag('seconds', 10)

async function run(mode: 'bytes' | 'messages', settings: ReturnType<Awaited<ReturnType<typeof startNatsCluster>>['settings']>, stream: string): Promise<number[]> {
  const nc = await connect(natsConnectOptions(settings, `pull-${mode}`))
  const js = jetstream(nc)
  const consumer = await js.consumers.get(stream, { deliver_policy: DeliverPolicy.New })
  const messages = await consumer.consume(mode === 'bytes' ? { max_bytes: 4 * 1024 * 1024 } : { max_messages: 256 })
  const acked = new Map<number, number>()
  const waits: number[] = []
  const reading = (async () => {
    for await (const msg of messages) {
      const at = acked.get(msg.seq)
      if (at !== undefined) waits.push(performance.now() - at)
      if (waits.length >= RATE * SECONDS - 5) break
    }
  })()
  const body = new Uint8Array(SIZE).fill(7)
  for (let i = 0; i < RATE * SECONDS; i++) {
    const started = performance.now()
    void js.publish(`${stream.toLowerCase()}.x`, body).then((ack) => acked.set(ack.seq, performance.now()))
    const pause = 1000 / RATE - (performance.now() - started)
    if (pause > 0) await new Promise((r) => setTimeout(r, pause))
  }
  await Promise.race([reading, new Promise((r) => setTimeout(r, 5_000))])
  messages.stop()
  await nc.close()
  return waits.sort((a, b) => a - b)
}

const dir = mkdtempSync(join(tmpdir(), 'svc-pull-'))
const nats = await startNatsCluster({ dir, freePort, size: 1 })
try {
  const settings = nats.settings('operator')
  const nc = await connect(natsConnectOptions(settings, 'pull-setup'))
  const jsm = await jetstreamManager(nc)
  for (const mode of ['bytes', 'messages'] as const) {
    const stream = `PULL_${mode.toUpperCase()}`
    await jsm.streams.add({ name: stream, subjects: [`${stream.toLowerCase()}.>`], max_bytes: 4 * 1024 ** 3 })
    const waits = await run(mode, settings, stream)
    const q = (p: number) => waits[Math.min(waits.length - 1, Math.floor(p * waits.length))]?.toFixed(1)
    console.log(`${mode}: ${waits.length} delivered; ack → delivery p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${waits.at(-1)?.toFixed(1)} ms`)
  }
  await nc.close()
} finally {
  await nats.stop()
  rmSync(dir, { recursive: true, force: true })
}
