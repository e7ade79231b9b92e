/** POST /signals: entries dropped one by one, bounds, string lengths and the startedAt clamp, as stored. */
import t from 'tap'
import { LIMITS } from '../../src/config.js'
import { postSignals } from '../helpers/http.js'
import { ingestCluster } from '../helpers/ingest.js'
import { matchExactly } from '../helpers/match.js'

const NOW = Date.now()
const click = { url: 'https://shop.test/', ts: NOW, xRatio: 0.5, yDoc: 120, selector: 'button.buy', kind: 'click' }
const view = { url: 'https://shop.test/', startedAt: NOW, title: 'Home' }

t.test('drops a bad click alone: the good ones are stored and dropped counts the bad one', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const good = [click, { ...click, ts: NOW + 1 }]
  const answer = await postSignals(cluster.url, pk, { sk: 's', vid: 'v', dropped: 2, clicks: [good[0], { ...click, xRatio: 'middle' }, good[1]], views: [view, { title: 'no url' }] })
  t.same(answer.json, { ok: true })
  const [{ batch }] = Array.from(store.listSignals(projectId))
  matchExactly(t, batch.clicks, good)
  matchExactly(t, batch.views, [view])
  t.equal(batch.dropped, 2 + 2, 'the client\'s two and the server\'s two')
})

t.test('drops a click whose kind is not click, rage, dead or error', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const kinds = ['click', 'rage', 'dead', 'error', 'hover', 'RAGE', '']
  await postSignals(cluster.url, pk, { sk: 's', vid: 'v', clicks: kinds.map((kind) => ({ ...click, kind })) })
  const [{ batch }] = Array.from(store.listSignals(projectId))
  t.same(batch.clicks.map((c) => c.kind), ['click', 'rage', 'dead', 'error'])
  t.equal(batch.dropped, 3)
})

t.test('truncates views, clicks and errors to their bounds and counts the rest as dropped', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const small = { url: '/', ts: 1, xRatio: 0, yDoc: 0 }
  const body = {
    sk: 's',
    vid: 'v',
    views: Array.from({ length: LIMITS.views + 3 }, () => ({ url: '/', startedAt: 1 })),
    clicks: Array.from({ length: LIMITS.clicks + 4 }, () => small),
    errors: Array.from({ length: LIMITS.errors + 5 }, () => ({ url: '/', ts: 1, message: 'm' })),
  }
  const answer = await postSignals(cluster.url, pk, body)
  t.same(answer.json, { ok: true })
  const [{ batch }] = Array.from(store.listSignals(projectId))
  t.equal(batch.views.length, 200)
  t.equal(batch.clicks.length, 2000)
  t.equal(batch.errors.length, 100)
  t.equal(batch.dropped, 3 + 4 + 5)
})

t.test('stores entries whose strings are at their maximum length, multi-byte URLs included', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const longUrl = `https://shop.test/${'u'.repeat(2000 - 'https://shop.test/'.length)}`
  const wideUrl = `https://shop.test/${'\u00e9\u4e16'.repeat((2000 - 'https://shop.test/'.length) / 2)}`
  t.equal(longUrl.length, 2000)
  t.equal(wideUrl.length, 2000)
  const body = {
    sk: 's'.repeat(256),
    vid: 'v'.repeat(256),
    views: [{ url: longUrl, startedAt: NOW, title: 't'.repeat(256) }],
    clicks: [{ url: wideUrl, ts: NOW, xRatio: 0.5, yDoc: 1, selector: 's'.repeat(256), label: 'l'.repeat(256), tag: 'g'.repeat(40) }],
    errors: [{ url: longUrl, ts: NOW, message: 'm'.repeat(256) }],
  }
  t.same((await postSignals(cluster.url, pk, body)).json, { ok: true })
  const stored = Array.from(store.listSignals(projectId))
  t.equal(stored.length, 1)
  matchExactly(t, stored[0].batch, { ...body, dropped: 0 })
})

t.test('clamps startedAt to a window around the server clock', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const before = Date.now()
  await postSignals(cluster.url, pk, { sk: 'past', vid: 'v', startedAt: 0 })
  await postSignals(cluster.url, pk, { sk: 'future', vid: 'v', startedAt: before + 10 * 365 * 86_400_000 })
  await postSignals(cluster.url, pk, { sk: 'now', vid: 'v', startedAt: before - 1_000 })
  const after = Date.now()
  const bySk = new Map(Array.from(store.listSignals(projectId), ({ batch }) => [batch.sk, batch.startedAt!]))
  t.ok(bySk.get('past')! >= before - LIMITS.clampPastMs && bySk.get('past')! <= after - LIMITS.clampPastMs, 'a start far in the past is moved up to the window')
  t.ok(bySk.get('future')! >= before + LIMITS.clampFutureMs && bySk.get('future')! <= after + LIMITS.clampFutureMs, 'a start in the future is moved back to the window')
  t.equal(bySk.get('now'), before - 1_000, 'a start inside the window is kept')
})
