/** POST /ingest: what an accepted chunk leaves in the store: its bytes, its session record, the project's counts. */
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { jsonChunk, meta, postChunk } from '../helpers/http.js'
import { ingestCluster } from '../helpers/ingest.js'
import { matchExactly } from '../helpers/match.js'

t.test('a repeated seq is idempotent: both answered 200, one chunk stored, chunkCount 1', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const first = Buffer.from('[{"type":4,"first":true}]')
  const retry = Buffer.from('[{"type":4,"retry":true}]')
  t.same((await postChunk(cluster.url, { pk, body: first, meta: meta({ seq: 5 }) })).json, { ok: true })
  t.same((await postChunk(cluster.url, { pk, body: retry, meta: meta({ seq: 5 }) })).json, { ok: true })
  const session = store.getSession(projectId, 'sess-1')!
  t.equal(session.chunkCount, 1)
  t.equal(session.bytes, first.byteLength)
  t.equal(session.eventCount, 3)
  t.equal(store.listChunks(projectId, 'sess-1').length, 1)
  t.same(Buffer.from(store.getChunk(projectId, 'sess-1', 5)!), first)
  t.equal(store.projectStats(projectId).chunkCount, 1)
})

t.test('stores a gzip chunk byte for byte', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const events = Array.from({ length: 500 }, (_, i) => ({ type: 3, timestamp: 1_700_000_000_000 + i, data: { source: 2, x: i, text: `node-${i}` } }))
  const body = gzipSync(Buffer.from(JSON.stringify(events)))
  const answer = await postChunk(cluster.url, { pk, body, meta: meta({ encoding: 'gzip', seq: 0 }) })
  t.same(answer.json, { ok: true })
  const stored = store.getChunk(projectId, 'sess-1', 0)
  t.ok(stored, 'stored')
  t.equal(Buffer.compare(Buffer.from(stored!), body), 0, 'identical bytes')
  matchExactly(t, store.listChunks(projectId, 'sess-1'), [{ seq: 0, encoding: 'gzip', size: body.byteLength }])
})

t.test('the session record holds first and last time, chunk count, bytes, event count, visitor, identity and page URLs', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const T0 = 1_700_000_000_000
  const bodies = [jsonChunk(2), jsonChunk(5), jsonChunk(1)]
  const metas = [
    meta({ sk: 'S', vid: 'V', seq: 0, pageIndex: 0, url: 'https://shop.test/', firstTs: T0, lastTs: T0 + 1_000, eventCount: 2, startedAt: T0 - 100, viewport: { w: 390, h: 844 }, screen: { w: 390, h: 844, dpr: 3 } }),
    meta({ sk: 'S', vid: 'V', seq: 1, pageIndex: 1, url: 'https://shop.test/p/42', firstTs: T0 + 2_000, lastTs: T0 + 6_000, eventCount: 5, identity: { userId: 'u_42', email: 'ada@shop.test', name: 'Ada', accountId: 'acct_7' } }),
    meta({ sk: 'S', vid: 'V', seq: 2, pageIndex: 1, url: 'https://shop.test/p/42', firstTs: T0 + 6_500, lastTs: T0 + 7_000, eventCount: 1 }),
  ]
  for (let i = 0; i < 3; i++) t.same((await postChunk(cluster.url, { pk, body: bodies[i], meta: metas[i] })).json, { ok: true })
  matchExactly(t, store.getSession(projectId, 'S'), {
    projectId,
    sk: 'S',
    vid: 'V',
    startedAt: T0 - 100,
    firstTs: T0,
    lastTs: T0 + 7_000,
    chunkCount: 3,
    bytes: bodies.reduce((n, b) => n + b.byteLength, 0),
    eventCount: 8,
    identity: { userId: 'u_42', email: 'ada@shop.test', name: 'Ada', accountId: 'acct_7' },
    viewport: { w: 390, h: 844 },
    screen: { w: 390, h: 844, dpr: 3 },
    pages: [
      { pageIndex: 0, url: 'https://shop.test/' },
      { pageIndex: 1, url: 'https://shop.test/p/42' },
    ],
  })
})

t.test('the project\'s session count moves off zero with the first chunk', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  t.equal(store.projectStats(projectId).sessionCount, 0)
  await postChunk(cluster.url, { pk, meta: meta({ sk: 'a', seq: 0 }) })
  t.equal(store.projectStats(projectId).sessionCount, 1)
  await postChunk(cluster.url, { pk, meta: meta({ sk: 'a', seq: 1 }) })
  await postChunk(cluster.url, { pk, meta: meta({ sk: 'b', seq: 0 }) })
  t.match(store.projectStats(projectId), { sessionCount: 2, chunkCount: 3 })
})
