/**
 * GET /metrics: after known traffic through two fronts and the control worker,
 * the primary's sum over every process counts it exactly; the access rule
 * (loopback, or METRICS_TOKEN as a bearer token) holds.
 */
import t from 'tap'
import { metricsAccess } from '../../src/front/metrics-route.js'
import { isLoopback } from '../../src/front/client-address.js'
import { newPublicKey } from '../../src/accounts/secrets.js'
import { call } from '../helpers/api.js'
import { get, head, jsonChunk, meta, openSocket, postChunk, postSignals } from '../helpers/http.js'
import { until } from '../helpers/until.js'
import { childrenOf } from '../helpers/front-kill.js'
import { ingestCluster } from '../helpers/ingest.js'
import { parseProm } from '../helpers/prom.js'

const FAMILIES = [
  'svc_http_requests_total',
  'svc_http_request_duration_seconds',
  'svc_ingest_bytes_in_total',
  'svc_write_queue_items',
  'svc_write_queue_bytes',
  'svc_write_batch_items',
  'svc_lmdb_commit_duration_seconds',
  'svc_ingest_stored_total',
  'svc_ingest_duplicates_total',
  'svc_ingest_dropped_total',
  'svc_ingest_refused_total',
  'svc_deriver_unfolded_batches',
  'svc_backfills_running',
  'svc_backfill_sessions_rekeyed_total',
  'svc_backfills_done_total',
  'svc_purge_runs_total',
  'svc_storage_bytes',
  'svc_storage_bytes_per_recorded_minute',
  'svc_storage_file_bytes',
  'svc_storage_budget_bytes',
  'svc_storage_evicted_sessions_total',
  'svc_storage_evicted_bytes_total',
  'svc_purge_sessions_total',
  'svc_purge_chunks_total',
  'svc_purge_bytes_total',
  'svc_process_restarts_total',
  'svc_http_engine_info',
]

t.test('counts known traffic exactly, summed over two fronts and the control worker', async (t) => {
  const { cluster, pk, seeded } = await ingestCluster(t, { workers: 2 })
  const chunk = jsonChunk()
  for (const seq of [0, 1, 2]) t.equal((await postChunk(cluster.url, { pk, meta: meta({ seq }), body: chunk })).status, 200, `chunk ${seq} stored`)
  t.equal((await postChunk(cluster.url, { pk, meta: meta({ seq: 1 }), body: chunk })).status, 200, 'a duplicate is acknowledged')
  const badKey = await postChunk(cluster.url, { pk: 'not-a-key', body: chunk })
  t.equal(badKey.status, 400)
  t.equal(badKey.json.code, 'invalid_request')
  const unknownKey = await postChunk(cluster.url, { pk: newPublicKey(), body: chunk })
  t.equal(unknownKey.status, 404)
  t.equal(unknownKey.json.code, 'not_found')
  const signals = [
    JSON.stringify({ sk: 's1', vid: 'v', views: [{ url: 'https://shop.test/', startedAt: Date.now(), title: 'Home' }] }),
    JSON.stringify({ sk: 's2', vid: 'v', clicks: [{ url: 'https://shop.test/', ts: Date.now(), xRatio: 0.5, yDoc: 10, selector: 'a', kind: 'click' }] }),
  ]
  for (const body of signals) t.equal((await postSignals(cluster.url, pk, body)).status, 200, 'signals stored')
  for (let i = 0; i < 2; i++) t.equal((await call(cluster.url, '/cli/projects.list', { token: seeded.apiKey })).status, 200)
  const refusedKey = await call(cluster.url, '/cli/projects.list', { token: 'svc_sk_wrong' })
  t.equal(refusedKey.status, 401)
  t.equal(refusedKey.body.code, 'unauthorized')
  const health = await get(cluster.url, '/health')
  // A client that leaves mid-body: counted as aborted once its front sees the close (scraped until it shows, 10 s at most).
  const socket = await openSocket(cluster.port)
  socket.write(head('POST', `/api/v1/ingest?pk=${pk}`, { 'content-length': chunk.byteLength, 'x-svc-meta': JSON.stringify(meta({ seq: 9 })) }) + 'half')
  await new Promise((r) => setTimeout(r, 100))
  socket.destroy()
  let scrape = await get(cluster.url, '/metrics')
  for (const deadline = Date.now() + 10_000; !/route="ingestSessionChunk",status="aborted"/.test(scrape.text) && Date.now() < deadline; ) scrape = await get(cluster.url, '/metrics')
  t.equal(scrape.status, 200)
  t.match(scrape.headers['content-type'], /^text\/plain; version=0\.0\.4/)
  const m = parseProm(scrape.text)
  for (const family of FAMILIES) t.ok(m.families.has(family), `family ${family}`)

  t.equal(m.value('svc_ingest_stored_total', { kind: 'chunk' }), 3, 'chunks stored')
  t.equal(m.value('svc_ingest_stored_total', { kind: 'signals' }), 2, 'signal batches stored')
  t.equal(m.value('svc_ingest_duplicates_total'), 1, 'duplicates')
  t.equal(m.value('svc_ingest_dropped_total'), 0, 'dropped')
  t.equal(m.value('svc_ingest_refused_total', { code: 'invalid_request' }), 1, 'refused invalid_request')
  t.equal(m.value('svc_ingest_refused_total', { code: 'not_found' }), 1, 'refused not_found')
  t.equal(m.samples('svc_ingest_refused_total').length, 2, 'no other refusal code')
  t.equal(m.value('svc_ingest_bytes_in_total', { route: 'ingestSessionChunk' }), 4 * chunk.byteLength, 'chunk bytes in (refused before the body: not read)')
  t.equal(m.value('svc_ingest_bytes_in_total', { route: 'ingestSignalsBatch' }), Buffer.byteLength(signals[0]) + Buffer.byteLength(signals[1]), 'signals bytes in')

  const front = (route: string, status: string) => m.value('svc_http_requests_total', { role: 'front', route, status })
  t.equal(front('ingestSessionChunk', '200'), 4)
  t.equal(front('ingestSessionChunk', '400'), 1)
  t.equal(front('ingestSessionChunk', '404'), 1)
  t.equal(front('ingestSessionChunk', 'aborted'), 1, 'the client that left')
  t.equal(front('ingestSignalsBatch', '200'), 2)
  t.equal(front('getHealth', '200'), 1)
  t.equal(front('proxy', '200'), 2, 'forwarded answers counted on the front')
  t.equal(front('proxy', '401'), 1)
  t.equal(m.value('svc_http_requests_total', { role: 'control', route: 'listProjects', status: '200' }), 2, 'control worker: by operation')
  t.equal(m.value('svc_http_requests_total', { role: 'control', route: 'listProjects', status: '401' }), 1)
  t.equal(m.value('svc_http_request_duration_seconds_count', { role: 'front', route: 'ingestSessionChunk' }), 7, 'a duration per chunk request')
  t.equal(m.value('svc_http_request_duration_seconds_count', { role: 'control', route: 'listProjects' }), 3)

  // Every item that reached a writer (3 chunks, the duplicate, 2 signal batches) is in exactly one batch, each timed.
  t.equal(m.value('svc_write_batch_items_sum'), 6, 'items written in batches')
  const batches = m.value('svc_write_batch_items_count') ?? 0
  t.ok(batches >= 2 && batches <= 6, `${batches} batches`)
  t.equal(m.value('svc_lmdb_commit_duration_seconds_count'), batches, 'one commit timed per batch')
  t.ok((m.value('svc_lmdb_commit_duration_seconds_sum') ?? 0) > 0, 'commits took time')
  t.equal(m.value('svc_write_queue_items'), 0, 'queues drained')

  const lag = m.value('svc_deriver_unfolded_batches')
  t.ok(lag !== undefined && lag >= 0 && lag <= 2, `fold lag ${lag}`)
  t.equal(m.value('svc_process_restarts_total', { child: 'front-1' }), 0)
  t.equal(m.value('svc_process_restarts_total', { child: 'control' }), 0)
  t.equal(m.samples('svc_http_engine_info').length, 1, 'one engine')
  t.equal(m.value('svc_http_engine_info', { engine: health.json.http }), 1, `engine ${health.json.http}, as /health names it`)
})

t.test('with METRICS_TOKEN, /metrics asks every client for it as a bearer token; a killed front is counted as restarted', async (t) => {
  const token = 'metrics-token-for-the-test'
  const { cluster } = await ingestCluster(t, { env: { METRICS_TOKEN: token } })
  for (const authorization of [undefined, 'Bearer wrong', token, `Bearer ${token}x`]) {
    const answer = await get(cluster.url, '/metrics', { headers: authorization ? { authorization } : {} })
    t.equal(answer.status, 401, `${authorization ?? 'no header'}: 401`)
    t.equal(answer.json?.code, 'unauthorized', `${authorization ?? 'no header'}: unauthorized`)
  }
  const answer = await get(cluster.url, '/metrics', { headers: { authorization: `Bearer ${token}` } })
  t.equal(answer.status, 200)
  t.ok(parseProm(answer.text).families.has('svc_http_requests_total'))
  t.equal(parseProm(answer.text).value('svc_http_requests_total', { route: 'metrics', status: '401' }), 4, 'the refusals are counted')

  // A front killed: the primary restarts it and counts the restart (its own counters start again from zero, as Prometheus expects of a restarted process).
  const front = childrenOf(cluster.child.pid!).find((c) => c.role === 'front')
  t.ok(front, 'a front process')
  process.kill(front!.pid, 'SIGKILL')
  const restarts = await until('the restart to be counted', async () => {
    const scrape = await get(cluster.url, '/metrics', { headers: { authorization: `Bearer ${token}` } }).catch(() => undefined)
    const counted = scrape?.status === 200 ? parseProm(scrape.text).value('svc_process_restarts_total', { child: 'front-1' }) : undefined
    return counted === 1 && counted
  }, 60_000)
  t.equal(restarts, 1, 'the restart is counted')
})

t.test('the access decision: loopback only without a token, the token from anywhere with one', async (t) => {
  for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1', '0000:0000:0000:0000:0000:0000:0000:0001']) {
    t.ok(isLoopback(address), `${address} is loopback`)
    t.equal(metricsAccess('', address, ''), 'allowed', `${address} allowed without a token`)
  }
  for (const address of ['10.0.0.1', '192.168.1.2', '::ffff:10.0.0.1', '2001:db8::1', '128.0.0.1', '']) {
    t.notOk(isLoopback(address), `${address} is not loopback`)
    t.equal(metricsAccess('', address, 'Bearer anything'), 'not_loopback', `${address} refused without a token`)
  }
  t.equal(metricsAccess('s3cret', '10.0.0.1', 'Bearer s3cret'), 'allowed', 'the token from anywhere')
  t.equal(metricsAccess('s3cret', '127.0.0.1', ''), 'no_token', 'loopback too needs the token once one is set')
  t.equal(metricsAccess('s3cret', '127.0.0.1', 'Bearer s3cre'), 'no_token')
  t.equal(metricsAccess('s3cret', '127.0.0.1', 'bearer s3cret '), 'no_token')
})
