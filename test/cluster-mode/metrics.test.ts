/**
 * /metrics in the cluster mode: the write families (items per write
 * transaction, LMDB commit time) count the node's applier, which is where
 * ingest items reach LMDB there (the fronts only publish to the log).
 */
import t from 'tap'
import { get, jsonChunk, meta, postChunk, postSignals } from '../helpers/http.js'
import { ingestCluster } from '../helpers/ingest.js'
import { parseProm, type Scrape } from '../helpers/prom.js'

t.setTimeout(120_000)

t.test('items applied from the log are counted as write batches, each commit timed', async (t) => {
  process.env.SVC_TEST_CLUSTER_MODE = '1'
  t.teardown(() => void delete process.env.SVC_TEST_CLUSTER_MODE)
  const { cluster, pk } = await ingestCluster(t)
  for (const seq of [0, 1]) t.equal((await postChunk(cluster.url, { pk, meta: meta({ seq }), body: jsonChunk() })).status, 200)
  t.equal((await postSignals(cluster.url, pk, { sk: 's1', vid: 'v', views: [{ url: 'https://shop.test/', startedAt: Date.now() }] })).status, 200)
  // The log holds the items on {ok:true}; the node applies them moments later.
  let m: Scrape
  const deadline = Date.now() + 10_000
  do m = parseProm((await get(cluster.url, '/metrics')).text)
  while (m.value('svc_write_batch_items_sum') !== 3 && Date.now() < deadline)
  t.equal(m.value('svc_write_batch_items_sum'), 3, 'two chunks and a signals batch, each in one write batch')
  const batches = m.value('svc_write_batch_items_count') ?? 0
  t.ok(batches >= 2 && batches <= 3, `${batches} batches (one per stream at least)`)
  t.equal(m.value('svc_lmdb_commit_duration_seconds_count'), batches, 'one commit timed per batch')
  t.ok((m.value('svc_lmdb_commit_duration_seconds_sum') ?? 0) > 0, 'commits took time')
})
