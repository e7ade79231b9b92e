/** heatmap, elements.top, friction.list and pages.list through the real cluster, fed through POST /signals. */
import t from 'tap'
import { HOUR_MS } from '../../src/store/insights.js'
import { call } from '../helpers/api.js'
import { sharedCluster } from '../helpers/cluster.js'
import { seedProject } from '../helpers/seed.js'
import { postSignals } from '../helpers/read.js'
import { meta, postChunk } from '../helpers/http.js'

const NOW = Date.now()
const CART = 'https://shop.test/acme/cart/42'

t.test('heatmaps, the leaderboard, the friction feed and the page list read what /signals received', async (t) => {
  const cluster = await sharedCluster({ workers: 1 })
  const { apiKey, project } = await seedProject(cluster.dataDir)
  const read = (route: string, body: Record<string, unknown>) => call(cluster.url, route, { token: apiKey, body: { projectId: project.id, ...body } })
  t.equal(
    await postSignals(cluster.url, project.publicKey, {
      sk: 's1',
      vid: 'v1',
      views: [
        { url: CART, startedAt: NOW - 9_000, vw: 1440, activeMs: 8_000, maxScrollPct: 80, exit: true },
        { url: 'https://shop.test/', startedAt: NOW - 20_000, vw: 1440, maxScrollPct: 10, quickBack: true },
      ],
      clicks: [
        { url: CART, ts: NOW - 8_000, xRatio: 0.25, yDoc: 400, vw: 1440, selector: 'button#pay', label: 'Pay', tag: 'button', kind: 'rage', n: 4 },
        { url: CART, ts: NOW - 7_000, xRatio: 0.25, yDoc: 404, vw: 1440, selector: 'button#pay', label: 'Pay', tag: 'button' },
        { url: CART, ts: NOW - 6_000, xRatio: 0.9, yDoc: 50, vw: 390, selector: 'a.help', tag: 'a', kind: 'dead' },
      ],
      errors: [{ url: CART, ts: NOW - 5_000, message: 'TypeError: total is undefined' }],
    }),
    200,
  )
  t.equal(await postSignals(cluster.url, project.publicKey, { sk: 's2', vid: 'v2', errors: [{ url: CART, ts: NOW - 4_000, message: 'TypeError: total is undefined' }] }), 200)

  const heat = await read('/cli/heatmap', { page: '/acme/cart/:id', kind: 'click' })
  t.equal(heat.status, 200)
  t.match(heat.body, { page: '/acme/cart/:id', pages: ['shop.test/acme/cart/:id'], kind: 'click', xBins: 144, yBinPx: 10, total: 3, maxCount: 2, cells: [[129, 5, 1], [36, 40, 2]] })
  t.equal(heat.body.since % HOUR_MS, 0, 'since is rounded down to the hour the buckets start at')
  t.equal(heat.body.until % HOUR_MS, 0)
  t.ok(heat.body.until >= NOW && heat.body.until - heat.body.since >= 30 * 24 * HOUR_MS, 'the last 30 days by default')
  t.match((await read('/cli/heatmap', { page: CART, kind: 'rage', device: 'desktop' })).body, { total: 1, device: 'desktop', cells: [[36, 40, 1]] })
  t.match((await read('/cli/heatmap', { page: 'shop.test/acme/cart/:id', kind: 'dead', device: 'mobile' })).body, { total: 1 })
  const scroll = await read('/cli/heatmap', { page: '/acme/cart/:id', kind: 'scroll' })
  t.match(scroll.body, { kind: 'scroll', views: 1 })
  t.same([scroll.body.reached[80], scroll.body.reached[81]], [1, 0])
  t.notOk('cells' in scroll.body)

  const top = await read('/cli/elements.top', { page: '/acme/cart/:id' })
  t.same(top.body.elements, [
    { page: 'shop.test/acme/cart/:id', selector: 'button#pay', label: 'Pay', tag: 'button', clicks: 2, rage: 1, dead: 0, errors: 0, share: 0.6667 },
    { page: 'shop.test/acme/cart/:id', selector: 'a.help', tag: 'a', clicks: 1, rage: 0, dead: 1, errors: 0, share: 0.3333 },
  ])
  t.same((await read('/cli/elements.top', { limit: 1 })).body.elements.map((e: any) => e.selector), ['button#pay'])

  const feed = await read('/cli/friction.list', {})
  t.same(
    feed.body.items.map((i: any) => [i.kind, i.sessionKey, i.ts]),
    [
      ['jsError', 's2', NOW - 4_000],
      ['dead', 's1', NOW - 6_000],
      ['rage', 's1', NOW - 8_000],
      ['quickBack', 's1', NOW - 20_000],
    ],
  )
  t.match(feed.body.items[0], { message: 'TypeError: total is undefined', count: 2, firstSeen: NOW - 5_000, lastSeen: NOW - 4_000, page: 'shop.test/acme/cart/:id', url: CART })
  t.match(feed.body.items[2], { selector: 'button#pay', label: 'Pay', n: 4, xRatio: 0.25, yDoc: 400 })
  t.equal(feed.body.nextCursor, null)
  t.same((await read('/cli/friction.list', { sessionKey: 's1', page: '/' })).body.items.map((i: any) => i.kind), ['quickBack'])

  // The first page pins the window: friction arriving meanwhile does not shift the pages that follow.
  const first = await read('/cli/friction.list', { limit: 3 })
  t.equal(first.body.items.length, 3)
  t.equal(await postSignals(cluster.url, project.publicKey, { sk: 's3', vid: 'v3', clicks: [{ url: CART, ts: NOW - 1, xRatio: 0.5, yDoc: 5, kind: 'rage' }] }), 200)
  const rest = await read('/cli/friction.list', { limit: 3, cursor: first.body.nextCursor })
  t.same(rest.body.items.map((i: any) => i.kind), ['quickBack'])
  t.equal(rest.body.nextCursor, null)
  t.equal((await read('/cli/friction.list', {})).body.items[0].sessionKey, 's3', 'a fresh first page sees it')

  const pages = await read('/cli/pages.list', {})
  t.equal(pages.status, 200)
  t.same(pages.body.pages, [
    { page: '/acme/cart/:id', key: 'shop.test/acme/cart/:id', host: 'shop.test', sessions: 1, views: 1, avgActiveMs: 8_000, avgScrollPct: 80, exitRate: 1, quickBackRate: 0, errors: 2, clicks: 4 },
    { page: '/', key: 'shop.test/', host: 'shop.test', sessions: 1, views: 1, avgActiveMs: null, avgScrollPct: 10, exitRate: 0, quickBackRate: 1, errors: 0, clicks: 0 },
  ])
  t.same((await read('/cli/pages.list', { since: NOW + 2 * HOUR_MS, until: NOW + 3 * HOUR_MS })).body.pages, [], 'nothing in another range')
})

t.test('validation, credentials, unknown pages and other organisations\' projects', async (t) => {
  const cluster = await sharedCluster({ workers: 1 })
  const a = await seedProject(cluster.dataDir, 'Org A', 'a@a.test')
  const b = await seedProject(cluster.dataDir, 'Org B', 'b@b.test')
  t.equal(await postSignals(cluster.url, a.project.publicKey, { sk: 's', vid: 'v', clicks: [{ url: CART, ts: NOW, xRatio: 0.1, yDoc: 1, kind: 'dead' }] }), 200)
  const projectId = a.project.id
  const page = '/acme/cart/:id'
  const invalid: [string, unknown][] = [
    ['/cli/heatmap', { projectId, kind: 'click' }],
    ['/cli/heatmap', { projectId, page }],
    ['/cli/heatmap', { projectId, page, kind: 'hover' }],
    ['/cli/heatmap', { projectId, page, kind: 'click', device: 'watch' }],
    ['/cli/heatmap', { projectId, page, kind: 'click', since: NOW, until: NOW - 1 }],
    ['/cli/heatmap', { projectId, page, kind: 'click', since: -1 }],
    ['/cli/heatmap', { projectId, page: '', kind: 'click' }],
    ['/cli/elements.top', { projectId, limit: 501 }],
    ['/cli/elements.top', { projectId, pages: [page] }],
    ['/cli/friction.list', { projectId, limit: 0 }],
    ['/cli/friction.list', { projectId, cursor: 'eyJ0IjoxfQ' }],
    ['/cli/friction.list', { projectId, sessionKey: 7 }],
    ['/cli/pages.list', {}],
    ['/cli/pages.list', { projectId, until: 1.5 }],
  ]
  for (const [route, body] of invalid) {
    const answer = await call(cluster.url, route, { token: a.apiKey, body })
    t.same([answer.status, answer.body.code], [400, 'invalid_request'], `${route} ${JSON.stringify(body).slice(0, 70)}`)
  }
  const routes: [string, Record<string, unknown>][] = [
    ['/cli/heatmap', { projectId, page, kind: 'dead' }],
    ['/cli/elements.top', { projectId }],
    ['/cli/friction.list', { projectId }],
    ['/cli/pages.list', { projectId }],
  ]
  for (const [route, body] of routes) {
    t.same((await call(cluster.url, route, { body })).status, 401, `${route} without a key`)
    const answer = await call(cluster.url, route, { token: b.apiKey, body })
    const missing = await call(cluster.url, route, { token: a.apiKey, body: { ...body, projectId: 'prj_missing' } })
    t.same([answer.status, answer.body.code], [404, 'not_found'], `${route}: another organisation's project`)
    t.same(answer.body, missing.body, `${route}: answered exactly like a project that does not exist`)
    t.equal((await call(cluster.url, route, { token: a.apiKey, body })).status, 200, `${route}: its own organisation reads it`)
  }
  for (const route of ['/cli/heatmap', '/cli/elements.top', '/cli/friction.list']) {
    const answer = await call(cluster.url, route, { token: a.apiKey, body: { projectId, page: '/no/such/page', ...(route === '/cli/heatmap' ? { kind: 'click' } : {}) } })
    t.same([answer.status, answer.body.code], [404, 'not_found'], `${route}: a page the project never saw`)
  }
})

t.test('pages.list lists pages known only from recordings, with zero counts, after the active ones', async (t) => {
  const cluster = await sharedCluster({ workers: 1 })
  const { apiKey, project } = await seedProject(cluster.dataDir)
  const read = (body: Record<string, unknown>) => call(cluster.url, '/cli/pages.list', { token: apiKey, body: { projectId: project.id, ...body } })
  t.equal((await postChunk(cluster.url, { pk: project.publicKey, meta: meta({ sk: 'rec-only', url: 'https://shop.test/acme/orders/77' }) })).status, 200)
  t.equal(await postSignals(cluster.url, project.publicKey, { sk: 's1', vid: 'v1', views: [{ url: CART, startedAt: NOW - 1_000 }] }), 200)
  const pages = await read({})
  t.equal(pages.status, 200)
  t.same(
    pages.body.pages.map((p: any) => [p.key, p.views]),
    [
      ['shop.test/acme/cart/:id', 1],
      ['shop.test/acme/orders/:id', 0],
    ],
  )
  t.same(pages.body.pages[1], { page: '/acme/orders/:id', key: 'shop.test/acme/orders/:id', host: 'shop.test', sessions: 0, views: 0, avgActiveMs: null, avgScrollPct: null, exitRate: null, quickBackRate: null, errors: 0, clicks: 0 })
  t.same((await read({ since: NOW + 2 * HOUR_MS, until: NOW + 3 * HOUR_MS })).body.pages, [], 'a range after the page was first seen lists none')
})
