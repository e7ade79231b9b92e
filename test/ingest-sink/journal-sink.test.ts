/** The ingest sink suite (sink.case.ts) on the cluster mode's log sink: the in-memory log, one node applying it to a real LMDB. */
import t from 'tap'
import { JournalIngestSink } from '../../src/ingest-sink/journal-sink.js'
import { MemoryLog } from '../../src/journal/memory-log.js'
import { DEFAULT_LAYOUT, streamConfigs } from '../../src/journal/streams.js'
import { testLogSeal } from '../helpers/log-secret.js'
import { projectOn, startNode } from '../journal/journal.case.js'
import { sinkSuite } from './sink.case.js'

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
