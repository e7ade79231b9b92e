/**
 * /metrics in the cluster mode: the write families (items per write
 * transaction, LMDB commit time) count the node's applier, which is where
 * ingest items reach LMDB there (the fronts only publish to the log), and
 * svc_journal_behind_entries says how far the node runs behind each stream;
 * each log message is timed to its arrival and to its commit.
 */
import { jetstream } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import t from 'tap'
import { natsConnectOptions } from '../../src/journal/connect.js'
import { encodeIngest } from '../../src/journal/entries.js'
import { DEFAULT_LAYOUT, signalsStream, signalsSubject, streamNames } from '../../src/journal/streams.js'
import type { IngestItem } from '../../src/store/store.js'
import { logNodeAt } from '../helpers/cluster.js'
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
  t.equal(m.value('svc_log_group_items_sum'), 3, 'the front published the three items in log messages (group commit)')
  const messages = m.value('svc_log_group_items_count')
  t.equal(m.value('svc_journal_delivery_seconds_count'), messages, 'each message timed from the log storing it to the node receiving it')
  t.equal(m.value('svc_journal_apply_seconds_count'), messages, 'and from receiving it to its commit')
})

t.test('svc_journal_behind_entries is 0 on every stream once applied, and counts the entries a stream holds past what the node applied', async (t) => {
  process.env.SVC_TEST_CLUSTER_MODE = '1'
  t.teardown(() => void delete process.env.SVC_TEST_CLUSTER_MODE)
  const { cluster, pk, projectId } = await ingestCluster(t)
  t.equal((await postChunk(cluster.url, { pk, meta: meta({ seq: 0 }), body: jsonChunk() })).status, 200)
  const node = logNodeAt(cluster.dataDir)!
  const layout = { ...DEFAULT_LAYOUT, partitions: node.partitions }
  const behind = async (stream: string) => parseProm((await get(cluster.url, '/metrics')).text).value('svc_journal_behind_entries', { stream })
  const settled = async (want: (stream: string) => number) => {
    const deadline = Date.now() + 10_000
    let values: (number | undefined)[]
    do values = await Promise.all(streamNames(layout).map(behind))
    while (values.some((v, i) => v !== want(streamNames(layout)[i])) && Date.now() < deadline)
    return Object.fromEntries(streamNames(layout).map((s, i) => [s, values[i]]))
  }
  t.same(await settled(() => 0), Object.fromEntries(streamNames(layout).map((s) => [s, 0])), 'every stream applied: 0 behind')

  // Entries that name a control position the log never reaches: the node holds them back, as it would an entry
  // that arrived before the control change it depends on, so the signals stream stays 3 behind.
  const nc = await connect(natsConnectOptions(node.nats, 'svc-test'))
  t.teardown(() => nc.close())
  const item = { kind: 'signals', projectId, receivedAt: Date.now(), batch: { sk: 'held', vid: 'v', startedAt: Date.now(), views: [] } } as unknown as IngestItem
  for (let i = 0; i < 3; i++) {
    const sealed = node.seal.seal('ingest', encodeIngest({ item: { ...item, id: `held-${i}` } as IngestItem, after: 1e12 }))
    await jetstream(nc).publish(signalsSubject(layout, projectId), sealed, { msgID: `held-${i}` })
  }
  const sig = signalsStream(layout)
  t.same(await settled((s) => (s === sig ? 3 : 0)), Object.fromEntries(streamNames(layout).map((s) => [s, s === sig ? 3 : 0])), `${sig} 3 behind, the others 0`)
})
