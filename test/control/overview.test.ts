/**
 * overview.get (issue 35) through the real cluster, fed through POST /signals:
 * the figures, their previous period and series, the device and page
 * filters, the bounds of every parameter (400 invalid_request), another
 * organisation's project (404 like a missing one), and `svc overview`.
 */
import t from 'tap'
import { HOUR_MS } from '../../src/store/insights.js'
import { call } from '../helpers/api.js'
import { cliSetup } from '../helpers/cli.js'
import { clusterFor } from '../helpers/cluster.js'
import { postSignals } from '../helpers/read.js'
import { seedProject } from '../helpers/seed.js'

const DAY_MS = 24 * HOUR_MS
const NOW = Date.now()
const CART = 'https://shop.test/acme/cart/42'
const HOME = 'https://shop.test/'

const cluster = await clusterFor(t, { workers: 1 })

/** Four sessions in the last minutes (one on a phone; two share a visitor), and one that says it started 3 days ago, which the clamp on client times moves to a day before its receipt. */
async function seed(pk: string): Promise<void> {
  const sessions = [
    { sk: 'a', vid: 'v1', at: NOW - 60_000, vw: 1440, views: [{ url: HOME, activeMs: 10_000, maxScrollPct: 50 }, { url: CART, activeMs: 20_000, maxScrollPct: 100 }], rage: true },
    { sk: 'b', vid: 'v1', at: NOW - 50_000, vw: 1440, views: [{ url: CART, activeMs: 6_000, maxScrollPct: 30 }], error: true },
    { sk: 'c', vid: 'v2', at: NOW - 40_000, vw: 390, views: [{ url: HOME, activeMs: 4_000, maxScrollPct: 10, quickBack: true }] },
    { sk: 'd', vid: 'v3', at: NOW - 30_000, vw: 1440, views: [{ url: CART, activeMs: 2_000, maxScrollPct: 10 }], dead: true },
    { sk: 'e', vid: 'v4', at: NOW - 3 * DAY_MS, vw: 1440, views: [{ url: CART, activeMs: 1_000, maxScrollPct: 10 }], rage: true },
  ]
  for (const s of sessions) {
    const views = s.views.map((v, i) => ({ ...v, startedAt: s.at + i * 1000, vw: s.vw }))
    const clicks = [
      ...(s.rage ? [{ url: CART, ts: s.at + 5000, xRatio: 0.5, yDoc: 10, vw: s.vw, kind: 'rage', n: 4 }] : []),
      ...(s.dead ? [{ url: CART, ts: s.at + 5000, xRatio: 0.5, yDoc: 10, vw: s.vw, kind: 'dead' }] : []),
    ]
    const errors = s.error ? [{ url: CART, ts: s.at + 2000, message: 'TypeError: total is undefined' }] : []
    t.equal(await postSignals(cluster.url, pk, { sk: s.sk, vid: s.vid, startedAt: s.at, views, clicks, errors }), 200)
  }
}

t.test('answers the figures, the period before, a series and the top pages; by device and by page', async (t) => {
  const { apiKey, project } = await seedProject(cluster.dataDir, 'Org A', 'a@a.test')
  await seed(project.publicKey)
  const read = (body: Record<string, unknown>) => call(cluster.url, '/cli/overview.get', { token: apiKey, body: { projectId: project.id, ...body } })

  const day = await read({ since: NOW - 12 * HOUR_MS, until: NOW + HOUR_MS })
  t.equal(day.status, 200)
  t.equal(day.body.bucket, 'hour', 'a period of hours defaults to hourly buckets')
  const m = day.body.metrics
  t.same([m.sessions.value, m.visitors.value], [4, 3], 'four sessions, three visitors')
  t.equal(m.pagesPerSession.value, 1.25)
  t.equal(m.activeMs.value, Math.round((30_000 + 6_000 + 4_000 + 2_000) / 4))
  t.equal(m.scrollPct.value, 40, 'the average of the views\' deepest scroll')
  t.same([m.rage.value, m.dead.value, m.errorClick.value, m.quickBack.value, m.jsError.value], [0.25, 0.25, 0, 0.25, 0.25])
  t.equal(day.body.series.t.length, (day.body.until - day.body.since) / HOUR_MS, 'one point per hour of the period read')
  t.equal(day.body.series.sessions.reduce((a: number, b: number) => a + b, 0), 4)
  t.equal(day.body.since % HOUR_MS, 0)
  t.same(day.body.topPages.rage.map((r: any) => [r.page, r.path, r.sessions, r.withFriction]), [['shop.test/acme/cart/:id', '/acme/cart/:id', 3, 1]])
  t.same(day.body.topPages.quickBack.map((r: any) => r.path), ['/'])

  // The clamped session is a day back: in these 2 days or, near UTC midnight, in the 2 before; either way it counts once.
  const days = await read({ since: NOW - 2 * DAY_MS, until: NOW + HOUR_MS, bucket: 'day' })
  t.equal(days.body.bucket, 'day')
  t.equal(days.body.since % DAY_MS, 0, 'daily buckets start at UTC midnight')
  t.equal(days.body.metrics.sessions.value + days.body.metrics.sessions.previous, 5)
  t.equal(days.body.previous.until, days.body.since)

  const phone = await read({ since: NOW - 12 * HOUR_MS, device: 'mobile' })
  t.same([phone.body.device, phone.body.metrics.sessions.value, phone.body.metrics.quickBack.value], ['mobile', 1, 1])
  const cart = await read({ since: NOW - 12 * HOUR_MS, page: CART })
  t.same(cart.body.pages, ['shop.test/acme/cart/:id'], 'a URL, grouped under the rules')
  t.same([cart.body.metrics.sessions.value, cart.body.metrics.quickBack.value, cart.body.metrics.jsError.value], [3, 0, 0.3333])

  const week = await read({})
  t.ok(week.body.until - week.body.since >= 7 * DAY_MS && week.body.bucket === 'day', 'the last 7 days by day by default')
})

t.test('refuses unbounded or malformed parameters with 400 invalid_request, and another organisation\'s project with 404', async (t) => {
  const a = await seedProject(cluster.dataDir, 'Org B', 'b@b.test')
  const b = await seedProject(cluster.dataDir, 'Org C', 'c@c.test')
  await seed(a.project.publicKey)
  const projectId = a.project.id
  const invalid: Record<string, unknown>[] = [
    {},
    { projectId, since: NOW, until: NOW - 1 },
    { projectId, since: NOW - 93 * DAY_MS, until: NOW },
    { projectId, since: NOW - 32 * DAY_MS, until: NOW, bucket: 'hour' },
    { projectId, bucket: 'week' },
    { projectId, device: 'watch' },
    { projectId, page: '' },
    { projectId, page: `/${'x'.repeat(2000)}` },
    { projectId, top: 0 },
    { projectId, top: 21 },
    { projectId, since: -1 },
    { projectId, until: 1.5 },
    { projectId, pages: ['/'] },
  ]
  for (const body of invalid) {
    const answer = await call(cluster.url, '/cli/overview.get', { token: a.apiKey, body })
    t.same([answer.status, answer.body.code], [400, 'invalid_request'], JSON.stringify(body).slice(0, 80))
  }
  t.equal((await call(cluster.url, '/cli/overview.get', { token: a.apiKey, body: { projectId, since: NOW - 92 * DAY_MS, until: NOW } })).status, 200, '92 days is allowed')
  t.equal((await call(cluster.url, '/cli/overview.get', { token: a.apiKey, body: { projectId, since: NOW - 30 * DAY_MS, until: NOW, bucket: 'hour' } })).status, 200, '30 days by the hour is allowed')

  const body = { projectId }
  t.equal((await call(cluster.url, '/cli/overview.get', { body })).status, 401, 'without a key')
  const other = await call(cluster.url, '/cli/overview.get', { token: b.apiKey, body })
  const missing = await call(cluster.url, '/cli/overview.get', { token: a.apiKey, body: { projectId: 'prj_missing' } })
  t.same([other.status, other.body.code], [404, 'not_found'], 'another organisation\'s project')
  t.same(other.body, missing.body, 'answered exactly like a project that does not exist')
  const page = await call(cluster.url, '/cli/overview.get', { token: a.apiKey, body: { projectId, page: '/no/such/page' } })
  t.same([page.status, page.body.code], [404, 'not_found'], 'a page the project never saw')
})

t.test('svc overview prints the figures and the pages, and --json the answer', async (t) => {
  const { seeded, svc } = await cliSetup(t, cluster)
  await seed(seeded.project.publicKey)
  const env = { SVC_API_KEY: seeded.apiKey }
  const table = await svc(['overview', seeded.project.id, '--period', '12h'], { env })
  t.equal(table.code, 0, table.stderr)
  t.match(table.stdout, /Sessions\s+4\b/)
  t.match(table.stdout, /Rage clicks\s+25\.0% of sessions/)
  t.match(table.stdout, /Pages with the most rage clicks[\s\S]*shop\.test\/acme\/cart\/:id/)
  const json = await svc(['overview', seeded.project.id, '--period', '2d', '--bucket', 'day', '--device', 'desktop', '--json'], { env })
  t.equal(json.code, 0, json.stderr)
  t.same([json.json.bucket, json.json.device, json.json.series.t.length >= 2], ['day', 'desktop', true])
  const refused = await svc(['overview', seeded.project.id, '--period', '100d', '--json'], { env })
  t.equal(refused.error?.code, 'invalid_request', 'the server\'s bound, passed on')
})
