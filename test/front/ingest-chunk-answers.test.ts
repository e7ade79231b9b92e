/** POST /ingest: every status and code it answers, errors with ok:false. */
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { jsonChunk, meta, postChunk } from '../helpers/http.js'
import { ingestCluster, isIngestError } from '../helpers/ingest.js'

t.test('answers 200 {ok:true} and stores the chunk, at /api/v1/ingest and at /api/ingest', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const v1 = await postChunk(cluster.url, { pk, meta: meta({ seq: 0 }) })
  t.equal(v1.status, 200)
  t.same(v1.json, { ok: true })
  t.match(v1.headers['content-type'], /^application\/json/)
  const direct = await postChunk(cluster.url, { pk, meta: meta({ seq: 1 }), prefix: '/api' })
  t.equal(direct.status, 200)
  t.same(direct.json, { ok: true })
  t.same(store.listChunks(projectId, 'sess-1').map((c) => c.seq), [0, 1])
})

t.test('answers 400 invalid_request with ok:false when X-Svc-Meta is missing or empty', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  isIngestError(t, await postChunk(cluster.url, { pk, meta: null }), 400, 'invalid_request', 'missing')
  isIngestError(t, await postChunk(cluster.url, { pk, meta: '' }), 400, 'invalid_request', 'empty')
  t.equal(store.getSession(projectId, 'sess-1'), undefined)
})

t.test('answers 400 invalid_request with ok:false when X-Svc-Meta is malformed', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const malformed = [
    'sk=sess-1',
    '{"sk":"sess-1",',
    '[]',
    'null',
    '42',
    JSON.stringify({ vid: 'v', seq: 0, encoding: 'json' }),
    JSON.stringify(meta({ seq: -1 })),
    JSON.stringify(meta({ seq: 'one' as never })),
    JSON.stringify(meta({ encoding: 'br' as never })),
    JSON.stringify(meta({ sk: 's'.repeat(257) })),
    JSON.stringify(meta({ identity: { userId: 'u', role: 'admin' } as never })),
  ]
  for (const header of malformed) isIngestError(t, await postChunk(cluster.url, { pk, meta: header }), 400, 'invalid_request', header.slice(0, 40))
  t.same(Array.from(store.listSessions(projectId)), [])
})

t.test('answers 400 invalid_request with ok:false when pk is missing or not a public key', async (t) => {
  const { cluster } = await ingestCluster(t)
  for (const pk of ['', 'svc_sk_abc', 'svc_pk_XYZ', 'svc_pk_']) {
    isIngestError(t, await postChunk(cluster.url, { pk }), 400, 'invalid_request', JSON.stringify(pk))
  }
  const res = await fetch(`${cluster.url}/api/v1/ingest`, { method: 'POST', headers: { 'x-svc-meta': JSON.stringify(meta()) }, body: jsonChunk() as BodyInit })
  t.equal(res.status, 400)
  t.match(await res.json(), { ok: false, code: 'invalid_request' })
})

t.test('answers 404 not_found with a hint and ok:false for a public key no project has', async (t) => {
  const { cluster } = await ingestCluster(t)
  const answer = await postChunk(cluster.url, { pk: 'svc_pk_00000000000000000000000000000000' })
  isIngestError(t, answer, 404, 'not_found')
  t.match(answer.json, { hint: /\S/ })
})

t.test('answers 200 and stores nothing when the body cannot be what its meta says', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const cases: [string, Uint8Array, 'gzip' | 'json'][] = [
    ['empty body', new Uint8Array(0), 'json'],
    ['JSON labelled gzip', jsonChunk(), 'gzip'],
    ['gzip labelled JSON', gzipSync(jsonChunk()), 'json'],
    ['text labelled JSON', Buffer.from('hello'), 'json'],
  ]
  for (const [what, body, encoding] of cases) {
    const answer = await postChunk(cluster.url, { pk, body, meta: meta({ encoding }) })
    t.equal(answer.status, 200, what)
    t.same(answer.json, { ok: true }, what)
  }
  t.same(Array.from(store.listSessions(projectId)), [])
  t.equal(store.projectStats(projectId).chunkCount, 0)
})
