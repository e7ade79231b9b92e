/**
 * The byte caps of the ingest endpoints (1,000,000 bytes for /ingest, 256,000
 * for /signals): exactly the cap is accepted and one byte over is refused 413,
 * with and without Content-Length, and the server keeps serving afterwards.
 */
import t from 'tap'
import { LIMITS } from '../../src/config.js'
import { chunkOfSize, ingestPath, is413, signalsOfSize, signalsPath, stillServes } from '../helpers/caps.js'
import { chunkedPost, meta, postChunk, postSignals, split } from '../helpers/http.js'
import { ingestCluster } from '../helpers/ingest.js'

t.test('/ingest accepts exactly 1,000,000 bytes and refuses 1,000,001 with 413, with Content-Length', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  t.equal(LIMITS.chunkBytes, 1_000_000)
  const atCap = await postChunk(cluster.url, { pk, body: chunkOfSize(1_000_000), meta: meta({ seq: 0 }) })
  t.equal(atCap.status, 200)
  t.same(atCap.json, { ok: true })
  is413(t, await postChunk(cluster.url, { pk, body: chunkOfSize(1_000_001), meta: meta({ seq: 1 }) }), 'one byte over')
  t.same(store.listChunks(projectId, 'sess-1').map((c) => [c.seq, c.size]), [[0, 1_000_000]])
  await stillServes(t, cluster, pk, 0)
})

t.test('/ingest accepts exactly 1,000,000 bytes and refuses 1,000,001 with 413, chunked without Content-Length', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const headers = (seq: number) => ({ 'x-svc-meta': JSON.stringify(meta({ seq })) })
  const atCap = await chunkedPost(cluster.port, ingestPath(pk), headers(0), split(chunkOfSize(1_000_000), 64 * 1024))
  t.equal(atCap.status, 200)
  t.same(atCap.json, { ok: true })
  is413(t, await chunkedPost(cluster.port, ingestPath(pk), headers(1), split(chunkOfSize(1_000_001), 64 * 1024)), 'one byte over')
  // Split where the cap falls inside a piece, and where it falls exactly between two.
  is413(t, await chunkedPost(cluster.port, ingestPath(pk), headers(2), [chunkOfSize(999_999), Buffer.from('  ')]), 'over inside a piece')
  is413(t, await chunkedPost(cluster.port, ingestPath(pk), headers(3), [chunkOfSize(1_000_000), Buffer.from(' ')]), 'over by a piece of one byte')
  t.same(store.listChunks(projectId, 'sess-1').map((c) => [c.seq, c.size]), [[0, 1_000_000]])
  await stillServes(t, cluster, pk, 0)
})

t.test('/signals accepts exactly 256,000 bytes and refuses 256,001 with 413, with Content-Length', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  t.equal(LIMITS.signalsBytes, 256_000)
  const atCap = await postSignals(cluster.url, pk, signalsOfSize(256_000, 'at-cap'))
  t.equal(atCap.status, 200)
  t.same(atCap.json, { ok: true })
  is413(t, await postSignals(cluster.url, pk, signalsOfSize(256_001, 'over')), 'one byte over')
  t.same(Array.from(store.listSignals(projectId), (s) => s.batch.sk), ['at-cap'])
  await stillServes(t, cluster, pk, 0)
})

t.test('/signals accepts exactly 256,000 bytes and refuses 256,001 with 413, chunked without Content-Length', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const atCap = await chunkedPost(cluster.port, signalsPath(pk), { 'content-type': 'text/plain' }, split(signalsOfSize(256_000, 'at-cap'), 10_000))
  t.equal(atCap.status, 200)
  t.same(atCap.json, { ok: true })
  is413(t, await chunkedPost(cluster.port, signalsPath(pk), {}, split(signalsOfSize(256_001, 'over'), 10_000)), 'one byte over')
  is413(t, await chunkedPost(cluster.port, signalsPath(pk), {}, [signalsOfSize(256_000, 'over-2'), Buffer.from(' ')]), 'over by a piece of one byte')
  t.same(Array.from(store.listSignals(projectId), (s) => s.batch.sk), ['at-cap'])
  await stillServes(t, cluster, pk, 0)
})
