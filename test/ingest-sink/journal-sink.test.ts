/**
 * The ingest sink suite (sink.case.ts) on the cluster mode's log sink: the in-memory log, one node applying it to a
 * real LMDB; then what only the log sink meets, a full stream.
 */
import t from 'tap'
import { JournalIngestSink } from '../../src/ingest-sink/journal-sink.js'
import { MemoryLog } from '../../src/journal/memory-log.js'
import { DEFAULT_LAYOUT, recordingStream, streamConfigs } from '../../src/journal/streams.js'
import { testLogSeal } from '../helpers/log-secret.js'
import { projectOn, startNode } from '../journal/journal.case.js'
import { chunkItem, sinkSuite } from './sink.case.js'

sinkSuite(t, async (t, bounds = {}) => {
  const layout = { ...DEFAULT_LAYOUT, partitions: 2, replicas: 1 }
  const log = new MemoryLog(streamConfigs(layout).map((s) => ({ name: s.name, subjects: s.subjects ?? [] })))
  t.teardown(() => log.close())
  const node = await startNode(t, log, layout)
  const project = await projectOn(node)
  const sink = new JournalIngestSink(node.local, log, { layout, seal: testLogSeal, deadlineMs: 5_000, maxQueuedItems: bounds.maxQueuedItems ?? 512, maxQueuedBytes: bounds.maxQueuedBytes ?? 1 << 26 })
  const settled = async () => {
    if (!(await node.applier.caughtUp(5_000))) throw new Error('the node did not apply the log in time')
  }
  return { sink, store: node.local, projectId: project.id, settled }
})

t.test('a full stream: refused at once as unavailable, and a resend of what the log took is acknowledged, by the front that took it or another', async (t) => {
  const layout = { ...DEFAULT_LAYOUT, partitions: 1, replicas: 1 }
  let now = Date.now()
  // Room for about three sealed 10 KB chunks in the recording stream; the other streams unbounded.
  const streams = streamConfigs(layout).map((s) => ({ name: s.name, subjects: s.subjects ?? [], maxBytes: s.name === recordingStream(layout, 0) ? 32_000 : undefined }))
  const log = new MemoryLog(streams, 60_000, () => now)
  t.teardown(() => log.close())
  const node = await startNode(t, log, layout)
  const project = await projectOn(node)
  // A deadline of 30 s: a refusal that waited for it would show.
  const sink = new JournalIngestSink(node.local, log, { layout, seal: testLogSeal, deadlineMs: 30_000, maxQueuedItems: 512, maxQueuedBytes: 1 << 26 })
  const outcomes: string[] = []
  for (let seq = 0; seq < 5; seq++) outcomes.push(String(await sink.enqueue(chunkItem(project.id, 's1', seq, 10_000))))
  t.same(outcomes, ['stored', 'stored', 'stored', 'unavailable', 'unavailable'], 'three chunks fit, the next are refused')
  const started = Date.now()
  t.equal(await sink.enqueue(chunkItem(project.id, 's1', 9, 10_000)), 'unavailable')
  t.ok(Date.now() - started < 1_000, 'refused without waiting for the deadline')
  t.equal(await sink.enqueue(chunkItem(project.id, 's1', 0, 10_000)), 'duplicate', 'the front that acknowledged it answers the resend')
  if (!(await node.applier.caughtUp(5_000))) throw new Error('the node did not apply the log in time')
  now += 120_000
  // Another front (or this one restarted) does not remember it: the read model holds it, so it is acknowledged, not refused.
  const other = new JournalIngestSink(node.local, log, { layout, seal: testLogSeal, deadlineMs: 30_000, maxQueuedItems: 512, maxQueuedBytes: 1 << 26 })
  t.equal(await other.enqueue(chunkItem(project.id, 's1', 1, 10_000)), 'duplicate', 'the read model holds the chunk')
  t.equal(await other.enqueue(chunkItem(project.id, 's1', 3, 10_000)), 'unavailable', 'a chunk the log never took is still refused')
  t.same(node.local.listChunks(project.id, 's1').map((c) => c.seq), [0, 1, 2], 'the store holds what was acknowledged, once')
})
