/**
 * The shared suite of the overview (issue 35), run against every store by
 * the test files beside it: on a small seeded project, folded in several
 * transactions, the overview's counts equal what the session list and each
 * session's counts say, by period, device and page.
 */
import type { Test } from 'tap'
import { groupUrl } from '../../src/grouping/group.js'
import { DAY_HOURS, type Overview } from '../../src/store/aggregates/overview.js'
import { HOUR_MS, type SessionListQuery } from '../../src/store/insights.js'
import type { Click, IngestItem, NewProject, Store, View } from '../../src/store/store.js'
import { foldAll } from '../helpers/fold.js'
import { random } from '../helpers/random.js'

export type OverviewStoreFactory = (t: Test) => Promise<Store>

const DAY_MS = DAY_HOURS * HOUR_MS
/** Midnight UTC: the day buckets' boundary. */
const D0 = Date.UTC(2026, 0, 5)
const MIN = 60_000
const PAGES = ['/', '/cart', '/pricing', '/docs']
const WIDTHS = [375, 800, 1440]
const KINDS: Click['kind'][] = ['click', 'click', 'rage', 'dead', 'error']

interface Seeded {
  sk: string
  vid: string
  startedAt: number
  vw: number
  pages: Set<string>
  scrollSum: number
  scrollViews: number
}

const key = (path: string) => groupUrl(`https://shop.test${path}`, []).key

/**
 * 60 sessions over four days (one before the range, for the previous period), 20 visitors, three widths: each
 * views a few pages (one view resent later with more active time and a deeper scroll, as the tracker does), clicks
 * (some rage, dead or error clicks) and sometimes throws an error. Each session has a recording chunk, so that the
 * session list knows it.
 */
function seed(projectId: string): { items: IngestItem[][]; sessions: Seeded[] } {
  const next = random(35)
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]
  const parts: IngestItem[][] = [[], [], []]
  const sessions: Seeded[] = []
  for (let i = 0; i < 60; i++) {
    const sk = `s${i}`
    const vid = `v${i % 20}`
    const startedAt = D0 - DAY_MS + Math.floor(next() * 4 * DAY_MS)
    const vw = pick(WIDTHS)
    const receivedAt = startedAt + 5 * MIN
    const seeded: Seeded = { sk, vid, startedAt, vw, pages: new Set(), scrollSum: 0, scrollViews: 0 }
    const views: View[] = []
    const clicks: Click[] = []
    for (let v = 0; v < 1 + Math.floor(next() * 3); v++) {
      const path = pick(PAGES)
      const url = `https://shop.test${path}`
      seeded.pages.add(key(path))
      views.push({ url, page: key(path), startedAt: startedAt + v * MIN, vw, activeMs: 1000 + Math.floor(next() * 5000), maxScrollPct: Math.floor(next() * 60) })
      for (let c = 0; c < Math.floor(next() * 3); c++) clicks.push({ url, page: key(path), ts: startedAt + v * MIN + c * 1000, xRatio: 0.5, yDoc: 100, vw, kind: pick(KINDS) })
    }
    const errors = next() < 0.3 ? [{ url: views[0].url, page: views[0].page, ts: startedAt + 2000, message: 'TypeError: x is undefined' }] : []
    const first = { ...views[0] }
    // The resent copy of the first view: more active time, a deeper scroll, and sometimes a quick back.
    const resent: View = { ...first, activeMs: first.activeMs! + 2000, maxScrollPct: first.maxScrollPct! + 30, ...(next() < 0.3 ? { quickBack: true } : {}) }
    for (const view of [resent, ...views.slice(1)]) {
      seeded.scrollSum += view.maxScrollPct!
      seeded.scrollViews += 1
    }
    sessions.push(seeded)
    const chunk: IngestItem = {
      kind: 'chunk',
      projectId,
      receivedAt,
      body: Buffer.from('[{"type":4}]'),
      page: { ...groupUrl(views[0].url, []), firstSeenAt: receivedAt },
      meta: { sk, vid, seq: 0, encoding: 'json', pageIndex: 0, url: views[0].url, startedAt, firstTs: startedAt, lastTs: startedAt + MIN, viewport: { w: vw } },
    }
    const batch = (entries: { views?: View[]; clicks?: Click[]; errors?: typeof errors }, at: number): IngestItem => ({
      kind: 'signals',
      projectId,
      receivedAt: at,
      batch: { sk, vid, startedAt, dropped: 0, views: entries.views ?? [], clicks: entries.clicks ?? [], errors: entries.errors ?? [] },
    })
    parts[i % 2].push(chunk, batch({ views, clicks: clicks.slice(0, 2), errors }, receivedAt))
    parts[2].push(batch({ views: [resent], clicks: clicks.slice(2) }, receivedAt + MIN))
  }
  return { items: parts, sessions }
}

async function seeded(store: Store): Promise<{ projectId: string; sessions: Seeded[] }> {
  const project: NewProject = { id: 'prj_overview', orgId: 'org_1', name: 'Shop', domain: null, pathRules: [], publicKey: 'svc_pk_overview', createdAt: D0 }
  await store.createProject(project)
  const { items, sessions } = seed(project.id)
  // Three folds: a session's batches meet in one transaction and across transactions.
  for (const part of items) {
    await store.appendBatch(part)
    await foldAll(store)
  }
  return { projectId: project.id, sessions }
}

function listAll(store: Store, projectId: string, query: Omit<SessionListQuery, 'limit'>) {
  const all = []
  let after
  do {
    const page = store.listSessionPage(projectId, { ...query, limit: 200, after })
    all.push(...page.sessions)
    after = page.next
  } while (after)
  return all
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000

export function overviewSuite(t: Test, open: OverviewStoreFactory): void {
  t.test('the figures of a period are the session list\'s: sessions, visitors, pages, active time, scroll and each friction share', async (t) => {
    const store = await open(t)
    const { projectId, sessions } = await seeded(store)
    const range = { since: D0, until: D0 + 2 * DAY_MS }
    const answer = store.overview(projectId, { ...range, bucket: 'day', top: 5 })
    const listed = listAll(store, projectId, range)
    t.ok(listed.length > 20, `the period holds ${listed.length} sessions`)
    const inRange = sessions.filter((s) => s.startedAt >= range.since && s.startedAt < range.until)
    t.equal(listed.length, inRange.length, 'the seed and the session list agree')
    const count = (has: (s: (typeof listed)[number]['signals']) => boolean) => listed.filter((s) => has(s.signals)).length
    const share = (n: number) => round4(n / listed.length)
    const m = answer.metrics
    t.equal(m.sessions.value, listed.length)
    t.equal(m.visitors.value, new Set(listed.map((s) => s.session.vid)).size, 'distinct visitors (exact at this size)')
    t.equal(m.pagesPerSession.value, share(listed.reduce((n, s) => n + s.signals.views, 0)))
    t.equal(m.activeMs.value, Math.round(listed.reduce((n, s) => n + s.signals.activeMs, 0) / listed.length))
    const scroll = inRange.reduce((a, s) => [a[0] + s.scrollSum, a[1] + s.scrollViews], [0, 0])
    t.equal(m.scrollPct.value, Math.round((scroll[0] / scroll[1]) * 10) / 10)
    t.equal(m.rage.value, share(listListed(store, projectId, { ...range, hasRage: true })), 'rage: the list filtered by hasRage')
    t.equal(m.jsError.value, share(listListed(store, projectId, { ...range, hasErrors: true })), 'JS errors: the list filtered by hasErrors')
    t.equal(m.dead.value, share(count((s) => s.dead > 0)))
    t.equal(m.errorClick.value, share(count((s) => s.errorClicks > 0)))
    t.equal(m.quickBack.value, share(count((s) => s.quickBacks > 0)))
    t.ok(m.quickBack.value! > 0 && m.rage.value! > 0 && m.jsError.value! > 0, 'the seed has every kind')

    const before = listAll(store, projectId, { since: D0 - 2 * DAY_MS, until: D0 })
    t.same(answer.previous, { since: D0 - 2 * DAY_MS, until: D0 })
    t.equal(m.sessions.previous, before.length, 'the previous period is the same length before it')
    t.equal(m.sessions.change, before.length === 0 ? null : round4((listed.length - before.length) / before.length))
    t.equal(m.rage.change, round4(m.rage.value! - m.rage.previous!), 'a share changes by its difference')

    t.same(answer.series.t, [D0, D0 + DAY_MS])
    t.same(answer.series.sessions, [0, 1].map((d) => inRange.filter((s) => s.startedAt < D0 + (d + 1) * DAY_MS && s.startedAt >= D0 + d * DAY_MS).length))
  })

  t.test('by the hour, by device and by page, each agrees with the sessions it names', async (t) => {
    const store = await open(t)
    const { projectId, sessions } = await seeded(store)
    const range = { since: D0, until: D0 + DAY_MS }
    const hourly = store.overview(projectId, { ...range, bucket: 'hour', top: 5 })
    t.equal(hourly.series.t.length, 24)
    t.same(hourly.series.sessions, hourly.series.t.map((at) => sessions.filter((s) => s.startedAt >= at && s.startedAt < at + HOUR_MS).length))
    t.equal(hourly.series.sessions.reduce((a, b) => a! + b!, 0), hourly.metrics.sessions.value)

    const mobile = store.overview(projectId, { ...range, bucket: 'day', device: 'mobile', top: 5 })
    const inDay = sessions.filter((s) => s.startedAt >= range.since && s.startedAt < range.until)
    t.equal(mobile.metrics.sessions.value, inDay.filter((s) => s.vw < 768).length, 'mobile: viewports under 768 px')
    const tablet = store.overview(projectId, { ...range, bucket: 'day', device: 'tablet', top: 5 })
    t.equal(tablet.metrics.sessions.value, inDay.filter((s) => s.vw >= 768 && s.vw < 1024).length)

    const cart = key('/cart')
    const onCart = store.overview(projectId, { ...range, bucket: 'day', pages: [cart], top: 5 })
    t.equal(onCart.metrics.sessions.value, inDay.filter((s) => s.pages.has(cart)).length, 'a page: the sessions with activity on it')
    t.ok(onCart.metrics.sessions.value! < hourly.metrics.sessions.value!)

    // The top pages name each page's sessions with that friction there; their sum is at least the project's count.
    const whole = store.overview(projectId, { ...range, bucket: 'day', top: 5 })
    for (const kind of ['rage', 'dead', 'errorClick', 'quickBack', 'jsError'] as const) {
      const rows = whole.topPages[kind]
      t.same([...rows].sort((a, b) => b.withFriction - a.withFriction || b.sessions - a.sessions || (a.page < b.page ? -1 : 1)), rows, `${kind}: most first`)
      const project = Math.round(whole.metrics[kind].value! * whole.metrics.sessions.value!)
      t.ok(rows.reduce((n, r) => n + r.withFriction, 0) >= project, `${kind}: every session with it is on some page`)
    }
    const cartRow = whole.topPages.rage.find((r) => r.page === cart)
    if (cartRow) t.equal(cartRow.sessions, onCart.metrics.sessions.value, 'a top page row counts the sessions of that page')
  })

  t.test('an empty project and a period without sessions answer zeros and nulls, not errors', async (t) => {
    const store = await open(t)
    await store.createProject({ id: 'prj_empty', orgId: 'org_1', name: 'Empty', domain: null, pathRules: [], publicKey: 'svc_pk_empty', createdAt: D0 })
    const answer: Overview = store.overview('prj_empty', { since: D0, until: D0 + 3 * DAY_MS, bucket: 'day', top: 5 })
    t.equal(answer.metrics.sessions.value, 0)
    t.equal(answer.metrics.rage.value, null)
    t.equal(answer.metrics.sessions.change, null)
    t.same(answer.series.sessions, [0, 0, 0])
    t.same(answer.series.pagesPerSession, [null, null, null])
    t.same(answer.topPages.rage, [])
  })
}

function listListed(store: Store, projectId: string, query: Omit<SessionListQuery, 'limit'>): number {
  return listAll(store, projectId, query).length
}
