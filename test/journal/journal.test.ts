/**
 * The log of the cluster mode against real nats-server processes: streams as
 * the layout says, a resent chunk stored once, and nothing acknowledged lost
 * when the leader of its stream is killed mid-load.
 */
import t, { type Test } from 'tap'
import { openJournal, type Journal } from '../../src/journal/connect.js'
import { NatsLog } from '../../src/journal/nats-log.js'
import type { NatsCluster } from '../../src/journal/nats-servers.js'
import { JournalUnavailable, publishUntil } from '../../src/journal/publish.js'
import { chunkMessageId, chunkSubject, DEFAULT_LAYOUT, partitionOf, recordingStream, streamConfigs } from '../../src/journal/streams.js'
import { natsCluster } from '../helpers/nats.js'

const layout = { ...DEFAULT_LAYOUT, partitions: 2 }

/** A journal on the cluster, or on one of its servers alone (`only`, its URL). */
async function journalOn(t: Test, nats: NatsCluster, only?: string): Promise<Journal> {
  const settings = nats.settings()
  // The operator makes the streams (the node user may not), then the journal opens as a node's.
  await (await openJournal({ ...nats.settings('operator'), natsUrl: only ?? settings.natsUrl }, layout, 60_000)).close()
  const journal = await openJournal({ ...settings, natsUrl: only ?? settings.natsUrl }, layout, 60_000)
  t.teardown(() => journal.close())
  return journal
}

// Four tests start three nats-servers each and one waits out a leader election.
t.setTimeout(300_000)

t.test('sessions spread over the partitions, each session in one', async (t) => {
  const counts = [0, 0, 0]
  for (let i = 0; i < 3_000; i++) counts[partitionOf('p1', `session-${i}`, 3)]++
  for (const count of counts) t.ok(count > 850 && count < 1_150, `partition holds ${count} of 3,000 sessions`)
  t.equal(partitionOf('p1', 'abc', 3), partitionOf('p1', 'abc', 3), 'one session, one partition')
  t.match(chunkSubject(layout, 1, 'p.1', 'a b.*>'), /^rec\.1\.[0-9a-f]{32}\.[0-9a-f]{32}$/, 'client strings never reach a subject token as they are')
})

t.test('the streams exist with the layout, and opening again changes nothing', async (t) => {
  const nats = await natsCluster(t)
  const first = await journalOn(t, nats)
  const second = await journalOn(t, nats)
  for (const wanted of streamConfigs(layout)) {
    const info = await second.jsm.streams.info(wanted.name)
    t.equal(info.config.num_replicas, 3, `${wanted.name} has 3 replicas`)
    t.equal(info.config.max_age, wanted.max_age ?? 0, `${wanted.name} expires as the layout says`)
    t.ok(info.config.allow_direct, `${wanted.name} serves direct gets`)
  }
  t.ok(first.nc.info, 'both nodes connected')
})

t.test('a chunk sent twice is held once; its bytes read back by sequence from another server', async (t) => {
  const nats = await natsCluster(t)
  const journal = await journalOn(t, nats)
  const partition = partitionOf('p1', 's1', layout.partitions)
  const body = new TextEncoder().encode('{"chunk":1}')
  const options = { id: chunkMessageId('p1', 's1', 0), deadline: Date.now() + 10_000 }
  const first = await publishUntil(new NatsLog(journal), chunkSubject(layout, partition, 'p1', 's1'), body, options)
  const again = await publishUntil(new NatsLog(journal), chunkSubject(layout, partition, 'p1', 's1'), body, options)
  t.equal(first.duplicate, false)
  t.equal(again.duplicate, true, 'the resend is flagged a duplicate')
  t.equal(again.seq, first.seq, 'and points at the one entry')
  const reader = await journalOn(t, nats, nats.servers[2].url)
  const stored = await reader.jsm.direct.getMessage(recordingStream(layout, partition), { seq: first.seq })
  t.same(stored?.data, body, 'byte-identical')
  const info = await reader.jsm.streams.info(recordingStream(layout, partition))
  t.equal(info.state.messages, 1, 'one entry in the stream')
})

t.test('a publish past its deadline is refused, not acknowledged', async (t) => {
  const nats = await natsCluster(t)
  const journal = await journalOn(t, nats)
  // Two of three servers gone: no quorum, so no stream can acknowledge.
  await nats.kill(1)
  await nats.kill(2)
  const started = Date.now()
  const error = await publishUntil(new NatsLog(journal), chunkSubject(layout, 0, 'p1', 's1'), new Uint8Array(10), { id: 'refused', deadline: Date.now() + 3_000 }).catch((e) => e)
  t.type(error, JournalUnavailable)
  t.ok(Date.now() - started < 6_000, `gave up after ${Date.now() - started} ms (deadline 3,000)`)
})

t.test('killing the stream leader under load loses nothing acknowledged', async (t) => {
  const nats = await natsCluster(t)
  const journal = await journalOn(t, nats)
  const stream = recordingStream(layout, 0)
  const leader = (await journal.jsm.streams.info(stream)).cluster?.leader
  const index = nats.servers.findIndex((s) => s.name === leader)
  t.ok(index >= 0, `stream ${stream} led by ${leader}`)

  const body = new Uint8Array(20_480).map((_, i) => i % 251)
  const acknowledged: number[] = []
  let refused = 0
  let longestWaitMs = 0
  const loadUntil = Date.now() + 8_000
  const killAt = Date.now() + 1_500
  let killed: Promise<void> | undefined
  await Promise.all(
    Array.from({ length: 8 }, async (_, writer) => {
      for (let seq = 0; Date.now() < loadUntil; seq++) {
        if (!killed && Date.now() >= killAt) killed = nats.kill(index)
        const sent = Date.now()
        try {
          const ack = await publishUntil(new NatsLog(journal), chunkSubject(layout, 0, 'p1', `w${writer}`), body, { id: chunkMessageId('p1', `w${writer}`, seq), deadline: sent + 20_000 })
          acknowledged.push(ack.seq)
          longestWaitMs = Math.max(longestWaitMs, Date.now() - sent)
        } catch {
          refused++
        }
      }
    }),
  )
  await killed
  t.ok(acknowledged.length > 50, `${acknowledged.length} chunks acknowledged around the kill`)
  t.equal(refused, 0, 'every publish was acknowledged within its 20 s deadline')
  t.ok(longestWaitMs < 20_000, `the longest acknowledgement took ${longestWaitMs} ms (leader election included)`)
  t.comment(`longest wait for an acknowledgement across the kill: ${longestWaitMs} ms`)

  const newLeader = (await journal.jsm.streams.info(stream)).cluster?.leader
  t.not(newLeader, leader, `a new leader (${newLeader}) took over`)
  const survivor = nats.servers.find((_, i) => i !== index)!
  const reader = await journalOn(t, nats, survivor.url)
  let missing = 0
  for (const seq of acknowledged) {
    const stored = await reader.jsm.direct.getMessage(stream, { seq })
    if (!stored || Buffer.compare(Buffer.from(stored.data), Buffer.from(body)) !== 0) missing++
  }
  t.equal(missing, 0, `all ${acknowledged.length} acknowledged chunks read back byte-identical from ${survivor.name}`)
})
