/**
 * Faults in the cluster mode: a NATS server that leads a stream is killed
 * under ingest load, and a whole node is killed under load and replaced by a
 * new one on an empty data directory. Nothing acknowledged may be missing
 * from any node afterwards.
 */
import t, { type Test } from 'tap'
import { natsConnectOptions, type NatsSettings } from '../../src/journal/connect.js'
import { call } from '../helpers/api.js'
import { createProject, nodeOn, ownerWithKey } from '../helpers/cluster-mode.js'
import { natsCluster } from '../helpers/nats.js'
import { callRaw, postChunk } from '../helpers/read.js'

interface Load {
  acknowledged: Map<string, number[]>
  refused: number
  /** The longest time from one acknowledgement to the next, ms: how long ingest answered nothing but refusals or waits. */
  longestGapMs: number
}

/** Posts distinct chunks from `writers` sessions until `stopAt`; calls `midway` once, at `at`. */
async function loadUntil(url: string, pk: string, stopAt: number, midway: { at: number; run: () => Promise<unknown> }, writers = 6): Promise<Load> {
  const load: Load = { acknowledged: new Map(), refused: 0, longestGapMs: 0 }
  let lastAck = Date.now()
  let fired: Promise<unknown> | undefined
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const sk = `load-${w}-${Math.random().toString(36).slice(2, 8)}`
      const seqs: number[] = []
      load.acknowledged.set(sk, seqs)
      for (let seq = 0; Date.now() < stopAt; ) {
        if (!fired && Date.now() >= midway.at) fired = midway.run()
        const status = await postChunk(url, pk, { sk, seq }, bodyOf(sk, seq)).catch(() => 0)
        if (status === 200) {
          seqs.push(seq++)
          load.longestGapMs = Math.max(load.longestGapMs, Date.now() - lastAck)
          lastAck = Date.now()
        } else load.refused++
      }
    }),
  )
  await fired
  return load
}

const bodyOf = (sk: string, seq: number) => new TextEncoder().encode(JSON.stringify([{ type: 3, timestamp: 1_700_000_000_000 + seq, data: { sk, seq, pad: 'x'.repeat(2_000) } }]))

/**
 * Every acknowledged chunk is present: each session's events are read in one
 * call and every acknowledged seq must be among them with its own content;
 * a spread of chunks is also read back one by one and compared byte for byte.
 */
async function assertAllStored(t: Test, url: string, apiKey: string, projectId: string, load: Load, node: string): Promise<void> {
  let missing = 0
  let total = 0
  let compared = 0
  for (const [sk, seqs] of load.acknowledged) {
    total += seqs.length
    const answer = await callRaw(url, '/cli/sessions.events', apiKey, { projectId, sessionKey: sk })
    const stored = new Set<number>()
    if (answer.status === 200) {
      for (const event of JSON.parse(answer.bytes.toString()) as { data: { sk: string; seq: number; pad: string } }[]) {
        if (event.data.sk === sk && event.data.pad.length === 2_000) stored.add(event.data.seq)
      }
    }
    missing += seqs.filter((seq) => !stored.has(seq)).length
    for (const seq of seqs.filter((_, i) => i % 50 === 0 || i === seqs.length - 1)) {
      compared++
      const raw = await callRaw(url, '/cli/sessions.chunk', apiKey, { projectId, sessionKey: sk, seq })
      if (raw.status !== 200 || Buffer.compare(raw.bytes, Buffer.from(bodyOf(sk, seq))) !== 0) missing++
    }
  }
  t.equal(missing, 0, `${node}: all ${total} acknowledged chunks stored, ${compared} of them read back byte-identical`)
}

// Two clusters of three nats-servers and three nodes, loaded and read back: a minute and a half on a busy 2-core machine.
t.setTimeout(400_000)

t.test('a NATS server leading a stream is killed under ingest load: nothing acknowledged is lost', async (t) => {
  const nats = await natsCluster(t)
  const a = await nodeOn(t, nats)
  const b = await nodeOn(t, nats)
  const owner = await ownerWithKey(a.url)
  const project = await createProject(a.url, owner.apiKey, 'Shop')

  // The server that leads the most streams: killing it moves the most leaders.
  const leads = new Map<string, number>()
  for (const stream of ['REC_0', 'REC_1', 'SIG', 'CTL']) {
    const info = await fetchLeader(nats.settings(), stream)
    leads.set(info, (leads.get(info) ?? 0) + 1)
  }
  const victim = [...leads].sort((x, y) => y[1] - x[1])[0][0]
  const index = nats.servers.findIndex((s) => s.name === victim)
  const load = await loadUntil(a.url, project.publicKey, Date.now() + 12_000, { at: Date.now() + 3_000, run: () => nats.kill(index) })
  const acknowledged = [...load.acknowledged.values()].reduce((n, seqs) => n + seqs.length, 0)
  t.ok(acknowledged > 50, `${acknowledged} chunks acknowledged, ${load.refused} refused, around the kill of ${victim}`)
  t.ok(load.longestGapMs < 15_000, `ingest acknowledged again within ${load.longestGapMs} ms of its last acknowledgement before`)
  t.comment(`longest pause between acknowledgements across the kill: ${load.longestGapMs} ms`)
  await assertAllStored(t, a.url, owner.apiKey, project.id, load, 'node A')
  await assertAllStored(t, b.url, owner.apiKey, project.id, load, 'node B')
})

t.test('a node killed under load is replaced by an empty one that answers the same', async (t) => {
  const nats = await natsCluster(t)
  const a = await nodeOn(t, nats)
  const b = await nodeOn(t, nats)
  const owner = await ownerWithKey(a.url)
  const project = await createProject(a.url, owner.apiKey, 'Shop')
  const load = await loadUntil(b.url, project.publicKey, Date.now() + 6_000, { at: Date.now() + 5_000, run: async () => undefined })
  // SIGKILL B's whole process group while the last requests are in flight.
  const inFlight = loadUntil(b.url, project.publicKey, Date.now() + 2_000, { at: Date.now() + 500, run: () => b.kill() })
  const late = await inFlight
  for (const [sk, seqs] of late.acknowledged) load.acknowledged.set(sk, seqs)

  const c = await nodeOn(t, nats)
  for (const route of ['/cli/sessions.count', '/cli/sessions.list']) {
    const onA = await call(a.url, route, { token: owner.apiKey, body: { projectId: project.id } })
    const onC = await call(c.url, route, { token: owner.apiKey, body: { projectId: project.id } })
    t.equal(onC.status, 200, onC.status === 200 ? 'answered' : `${JSON.stringify(onC.body)}\n${c.output().split('\n').filter((l) => /warn|error|catch/.test(l)).slice(-15).join('\n')}`)
    t.same(onC.body, onA.body, `${route}: the new node answers what A answers`)
  }
  await assertAllStored(t, a.url, owner.apiKey, project.id, load, 'node A')
  await assertAllStored(t, c.url, owner.apiKey, project.id, load, 'new node C')
})

async function fetchLeader(settings: NatsSettings, stream: string): Promise<string> {
  const { connect } = await import('@nats-io/transport-node')
  const { jetstreamManager } = await import('@nats-io/jetstream')
  const nc = await connect(natsConnectOptions(settings))
  try {
    const jsm = await jetstreamManager(nc)
    return (await jsm.streams.info(stream)).cluster?.leader ?? ''
  } finally {
    await nc.close()
  }
}
