/**
 * What every ingest sink answers (src/ingest-sink/sink.ts), run against the
 * embedded mode's write queue on a real LMDB (embedded-sink.test.ts) and the
 * cluster mode's log sink on the in-memory log with a node applying it
 * (journal-sink.test.ts): the same outcomes for the same items, and what was
 * acknowledged readable from the store.
 */
import type { Test } from 'tap'
import type { WriteItem } from '../../src/supervisor/messages.js'
import type { IngestSink } from '../../src/ingest-sink/sink.js'
import type { Store } from '../../src/store/store.js'

export interface SinkSetup {
  sink: IngestSink
  /** The store the sink's items land in, once `settled` resolves. */
  store: Store
  projectId: string
  /** Resolves once everything acknowledged is readable from `store`. */
  settled(): Promise<void>
}

export interface SinkFactory {
  (t: Test, bounds?: { maxQueuedItems?: number; maxQueuedBytes?: number }): Promise<SinkSetup>
}

const encoder = new TextEncoder()

export function chunkItem(projectId: string, sk: string, seq: number, bytes = 64): WriteItem {
  return { kind: 'chunk', projectId, receivedAt: Date.now(), meta: { sk, vid: `v-${sk}`, seq, pageIndex: 0, url: 'https://shop.test/', encoding: 'json', eventCount: 1 }, body: encoder.encode(JSON.stringify([{ type: 4, timestamp: 1, data: { pad: 'x'.repeat(bytes) } }])) }
}

function signalsItem(projectId: string, body: unknown): WriteItem {
  return { kind: 'signals-body', projectId, receivedAt: Date.now(), body: encoder.encode(typeof body === 'string' ? body : JSON.stringify(body)) }
}

export function sinkSuite(t: Test, open: SinkFactory): void {
  t.test('a chunk is stored once: the same (session, seq) again is a duplicate, and reads back whole', async (t) => {
    const { sink, store, projectId, settled } = await open(t)
    const item = chunkItem(projectId, 's1', 0)
    t.equal(await sink.enqueue(item), 'stored')
    t.equal(await sink.enqueue(chunkItem(projectId, 's1', 0)), 'duplicate')
    t.equal(await sink.enqueue(chunkItem(projectId, 's1', 1)), 'stored')
    await settled()
    t.same(store.listChunks(projectId, 's1').map((c) => c.seq), [0, 1])
    t.equal(sink.busy, false, 'nothing held once every item settled')
    t.equal(sink.queuedItems, 0)
    t.equal(sink.queuedBytes, 0)
  })

  t.test('a signals body that is no batch is answered invalid and stored nowhere; a good one is stored', async (t) => {
    const { sink, store, projectId, settled } = await open(t)
    const bad = await sink.enqueue(signalsItem(projectId, '{"sk":'))
    t.match(bad, { invalid: String })
    t.equal(await sink.enqueue(signalsItem(projectId, { sk: 's1', vid: 'v1', clicks: [{ url: 'https://shop.test/', ts: Date.now(), xRatio: 0.5, yDoc: 10 }] })), 'stored')
    await settled()
    t.same([...store.listSignals(projectId)].map((s) => s.batch.sk), ['s1'])
  })

  t.test('past its bound in items the sink answers full at once and keeps nothing of it', async (t) => {
    const { sink, store, projectId, settled } = await open(t, { maxQueuedItems: 2 })
    const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) => sink.enqueue(chunkItem(projectId, 'burst', i))))
    const full = outcomes.flatMap((o, i) => (o === 'full' ? [i] : []))
    t.ok(full.length >= 1, `${full.length} of 6 refused as full`)
    t.ok(outcomes.every((o) => o === 'stored' || o === 'full'))
    await settled()
    const kept = store.listChunks(projectId, 'burst').map((c) => c.seq)
    t.same(kept, outcomes.flatMap((o, i) => (o === 'stored' ? [i] : [])), 'exactly the items answered stored')
  })

  t.test('past its bound in bytes, likewise', async (t) => {
    const { sink, projectId } = await open(t, { maxQueuedBytes: 1_000 })
    t.equal(await sink.enqueue(chunkItem(projectId, 'big', 0, 5_000)), 'full')
    t.equal(sink.queuedBytes, 0)
  })
}
