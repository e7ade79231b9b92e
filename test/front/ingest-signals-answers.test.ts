/** POST /signals: every status and code it answers, errors with ok:false, and any content type accepted. */
import t from 'tap'
import { postSignals } from '../helpers/http.js'
import { ingestCluster, isIngestError } from '../helpers/ingest.js'
import { matchExactly } from '../helpers/match.js'
import { until } from '../helpers/until.js'

const NOW = Date.now()
const click = { url: 'https://shop.test/', ts: NOW, xRatio: 0.5, yDoc: 120, selector: 'button.buy', kind: 'click' }
const view = { url: 'https://shop.test/', startedAt: NOW, title: 'Home' }
const error = { url: 'https://shop.test/', ts: NOW, message: 'TypeError: boom' }

t.test('answers 200 {ok:true} and stores the batch', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const answer = await postSignals(cluster.url, pk, { sk: 's', vid: 'v', views: [view], clicks: [click], errors: [error] })
  t.equal(answer.status, 200)
  t.same(answer.json, { ok: true })
  const stored = Array.from(store.listSignals(projectId))
  t.equal(stored.length, 1)
  matchExactly(t, stored[0].batch, { sk: 's', vid: 'v', dropped: 0, views: [view], clicks: [click], errors: [error] })
  t.equal(store.projectStats(projectId).signalBatches, 1)
})

t.test('a batch resent with its batchId is acknowledged again and counted once; a malformed batchId is refused', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const batch = { sk: 'resent', vid: 'v', batchId: 'k3x9.0', clicks: [click] }
  // As a client whose answer was lost does: the same bytes again, then once more after a moment.
  const answers = [await postSignals(cluster.url, pk, batch), await postSignals(cluster.url, pk, batch)]
  await new Promise((resolve) => setTimeout(resolve, 20))
  answers.push(await postSignals(cluster.url, pk, batch))
  t.same(answers.map((a) => [a.status, a.json]), Array(3).fill([200, { ok: true }]), 'each send acknowledged')
  const another = await postSignals(cluster.url, pk, { ...batch, batchId: 'k3x9.1' })
  t.equal(another.status, 200)
  const stored = async () => Array.from(store.listSignals(projectId)).filter((s) => s.batch.sk === 'resent')
  await until('both batches applied', async () => (await stored()).length >= 2)
  t.same((await stored()).map((s) => s.batch.batchId).sort(), ['k3x9.0', 'k3x9.1'], 'each batch stored once')
  for (const bad of ['', 'a b', 'x'.repeat(65), 7]) isIngestError(t, await postSignals(cluster.url, pk, { ...batch, batchId: bad }), 400, 'invalid_request', JSON.stringify(bad))
})

t.test('answers 400 invalid_request with ok:false when the body is not JSON', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  for (const body of ['', '{', 'sk=s&vid=v', '{"sk":"s","vid":"v"}}']) isIngestError(t, await postSignals(cluster.url, pk, body), 400, 'invalid_request', JSON.stringify(body))
  t.same(Array.from(store.listSignals(projectId)), [])
})

t.test('answers 400 invalid_request with ok:false when the body is not a signals batch', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const bad: unknown[] = [[], null, 'batch', { vid: 'v' }, { sk: 's' }, { sk: 's', vid: 'v', clicks: {} }, { sk: 'x'.repeat(257), vid: 'v' }, { sk: 's', vid: 'v', dropped: -2 }]
  for (const body of bad) isIngestError(t, await postSignals(cluster.url, pk, JSON.stringify(body)), 400, 'invalid_request', JSON.stringify(body).slice(0, 40))
  t.same(Array.from(store.listSignals(projectId)), [])
})

t.test('valid and invalid bodies sent together are each answered for themselves, and only the valid ones stored', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  // Sent at once, they share the writer's batches: a body that is no batch must not take its batch-mates down, nor be stored.
  const bodies = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? (i % 2 ? '{' : JSON.stringify({ vid: 'v' })) : JSON.stringify({ sk: `s${i}`, vid: 'v', clicks: [click] })))
  const answers = await Promise.all(bodies.map((body) => postSignals(cluster.url, pk, body)))
  answers.forEach((answer, i) => {
    if (i % 3 === 0) isIngestError(t, answer, 400, 'invalid_request', `body ${i}`)
    else t.same([answer.status, answer.json], [200, { ok: true }], `body ${i}`)
  })
  const stored = Array.from(store.listSignals(projectId)).map((s) => s.batch.sk).sort()
  t.same(stored, bodies.flatMap((_, i) => (i % 3 === 0 ? [] : [`s${i}`])).sort())
})

t.test('a body past 64 KB, parsed by a writer thread rather than as it arrives, is answered and stored the same way', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const clicks = Array.from({ length: 700 }, (_, i) => ({ ...click, selector: `button.buy-${i}` }))
  const large = JSON.stringify({ sk: 'large', vid: 'v', clicks })
  t.ok(large.length > 64 * 1024, `${large.length} bytes`)
  t.same([(await postSignals(cluster.url, pk, large)).status], [200], 'a large batch acknowledged')
  const notBatch = JSON.stringify({ vid: 'v', clicks })
  isIngestError(t, await postSignals(cluster.url, pk, notBatch), 400, 'invalid_request', 'a large body with no sk')
  isIngestError(t, await postSignals(cluster.url, pk, `${large.slice(0, -1)},`), 400, 'invalid_request', 'a large body that is not JSON')
  const stored = Array.from(store.listSignals(projectId))
  t.same(stored.map((s) => [s.batch.sk, s.batch.clicks.length]), [['large', 700]], 'only the batch stored, whole')
})

t.test('answers 404 not_found with a hint for an unknown key, and 400 invalid_request for a malformed one', async (t) => {
  const { cluster } = await ingestCluster(t)
  const unknown = await postSignals(cluster.url, 'svc_pk_0123456789abcdef0123456789abcdef', { sk: 's', vid: 'v' })
  isIngestError(t, unknown, 404, 'not_found')
  t.match(unknown.json, { hint: /\S/ })
  isIngestError(t, await postSignals(cluster.url, 'not-a-key', { sk: 's', vid: 'v' }), 400, 'invalid_request')
  isIngestError(t, await postSignals(cluster.url, '', { sk: 's', vid: 'v' }), 400, 'invalid_request')
})

t.test('accepts any content type: text/plain as sendBeacon sends it, none at all, or anything else', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const types = ['text/plain;charset=UTF-8', 'application/json', 'application/x-www-form-urlencoded', 'application/octet-stream', 'nonsense/whatever']
  for (const type of types) {
    const answer = await postSignals(cluster.url, pk, { sk: type, vid: 'v', clicks: [click] }, { 'content-type': type })
    t.equal(answer.status, 200, type)
    t.same(answer.json, { ok: true }, type)
  }
  // fetch always sends a content type with a string body; a Blob without a type sends none.
  const res = await fetch(`${cluster.url}/api/v1/signals?pk=${pk}`, { method: 'POST', body: new Blob([JSON.stringify({ sk: 'untyped', vid: 'v' })]) })
  t.equal(res.status, 200, 'no content type')
  t.same(Array.from(store.listSignals(projectId), ({ batch }) => batch.sk).sort(), [...types, 'untyped'].sort())
})
