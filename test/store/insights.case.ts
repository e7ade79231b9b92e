/**
 * The shared suite of the Store's read side (issue 6): the session list and
 * the aggregates kept at ingest. Every implementation runs it through a test
 * file beside this one (test/store/lmdb-insights.test.ts) with a factory that
 * gives each test a fresh, empty store, like store.case.ts.
 */
import type { Test } from 'tap'
import { groupUrl } from '../../src/grouping/group.js'
import { compileRule, type CompiledRule } from '../../src/grouping/rules.js'
import { MAX_ELEMENT_NAMES } from '../../src/store/aggregates/elements.js'
import { MAX_MESSAGES, OTHER_MESSAGE } from '../../src/store/aggregates/messages.js'
import { MAX_FOUND_CONSOLE, MAX_FOUND_ELEMENTS, MAX_FOUND_REFERRERS, MAX_FOUND_REQUESTS, MAX_FOUND_TEXT } from '../../src/store/aggregates/search.js'
import { ELEMENTS_PER_BUCKET, HEAT_X_BINS, HOUR_MS, OTHER_ELEMENTS, type FindQuery, type SessionListQuery } from '../../src/store/insights.js'
import type { ChunkMeta, Click, ErrorEntry, IngestItem, NewProject, SignalsRecord, Store, View } from '../../src/store/store.js'
import { foldAll } from '../helpers/fold.js'
import { READ_LIMITS, ReadBudget } from '../../src/store/read-budget.js'

export type InsightsStoreFactory = (t: Test) => Promise<Store>

/** Stores items as the ingest writer does and folds them into the aggregates as the fold thread then does. */
async function ingest(store: Store, items: IngestItem[]): Promise<void> {
  await store.appendBatch(items)
  await foldAll(store)
}

/** An hour boundary, so that tests can place signals on either side of one. */
const H0 = Date.UTC(2026, 0, 5, 10)
const MIN = 60_000

function project(): NewProject {
  const n = Math.random().toString(16).slice(2, 10)
  return { id: `prj_${n}`, orgId: 'org_1', name: `Site ${n}`, domain: null, pathRules: [], publicKey: `svc_pk_${n}`, createdAt: H0 }
}

/** A path pattern as sessions.list compiles its `visited`. */
function rule(pattern: string): CompiledRule {
  const compiled = compileRule(pattern)
  if (!compiled.ok) throw new Error(compiled.reason)
  return compiled.rule
}

/** Page keys assigned as the ingest writer assigns them, under no rules. */
function paged<T extends { url: string; page?: string }>(entry: T): T {
  return { ...entry, page: groupUrl(entry.url, []).key }
}

export function signals(projectId: string, receivedAt: number, batch: Partial<SignalsRecord> & { sk: string }): IngestItem {
  return {
    kind: 'signals',
    projectId,
    receivedAt,
    batch: {
      vid: `v-${batch.sk}`,
      dropped: 0,
      ...batch,
      views: (batch.views ?? []).map(paged),
      clicks: (batch.clicks ?? []).map(paged),
      errors: (batch.errors ?? []).map(paged),
    },
  }
}

export function chunk(projectId: string, meta: Partial<ChunkMeta> & { sk: string }, receivedAt = H0): IngestItem {
  const url = meta.url ?? 'https://shop.test/'
  return {
    kind: 'chunk',
    projectId,
    receivedAt,
    body: Buffer.from('[{"type":4}]'),
    page: { ...groupUrl(url, []), firstSeenAt: receivedAt },
    meta: { vid: `v-${meta.sk}`, seq: 0, encoding: 'json', pageIndex: 0, url, ...meta },
  }
}

const click = (over: Partial<Click> = {}): Click => ({ url: 'https://shop.test/cart', ts: H0 + MIN, xRatio: 0.5, yDoc: 100, vw: 1440, ...over })
const view = (over: Partial<View> = {}): View => ({ url: 'https://shop.test/cart', startedAt: H0 + MIN, vw: 1440, ...over })
const error = (over: Partial<ErrorEntry> = {}): ErrorEntry => ({ url: 'https://shop.test/cart', ts: H0 + MIN, message: 'TypeError: x is undefined', ...over })

const DAY = { since: H0 - 12 * HOUR_MS, until: H0 + 12 * HOUR_MS }

export function insightsSuite(t: Test, open: InsightsStoreFactory): void {
  t.test('lists sessions newest first by start, a page at a time, without skipping or repeating', async (t) => {
    const store = await open(t)
    const p = await store.createProject(project())
    // Two sessions share a start time: the session key breaks the tie.
    const starts = [5, 1, 9, 3, 3, 7, 2, 8, 6, 4]
    await ingest(store, starts.map((m, i) => chunk(p.id, { sk: `s${i}`, startedAt: H0 + m * MIN, firstTs: H0 + m * MIN, lastTs: H0 + m * MIN + 1000 })))
    const seen: string[] = []
    let after
    for (let pages = 0; pages < 10; pages++) {
      const page = store.listSessionPage(p.id, { limit: 3, after })
      seen.push(...page.sessions.map((s) => s.session.sk))
      if (!page.next) break
      after = page.next
    }
    const expected = starts
      .map((m, i) => ({ m, sk: `s${i}` }))
      .sort((a, b) => b.m - a.m || (a.sk < b.sk ? 1 : -1))
      .map((s) => s.sk)
    t.same(seen, expected)
    t.same(store.listSessionPage(p.id, { limit: 10, since: H0 + 3 * MIN, until: H0 + 6 * MIN }).sessions.map((s) => s.session.startedAt), [5, 4, 3, 3].map((m) => H0 + m * MIN), 'since inclusive, until exclusive')
    t.same(store.listSessionPage('prj_other', { limit: 10 }).sessions, [])
  })

  t.test('filters sessions by identity, duration, page, errors and rage clicks', async (t) => {
    const store = await open(t)
    const p = await store.createProject(project())
    await ingest(store, [
      chunk(p.id, { sk: 'ada', startedAt: H0, firstTs: H0, lastTs: H0 + 120_000, identity: { userId: 'u1', accountId: 'acme' }, url: 'https://shop.test/cart' }),
      chunk(p.id, { sk: 'bob', startedAt: H0 + 1, firstTs: H0 + 1, lastTs: H0 + 5_000, identity: { userId: 'u2', accountId: 'acme' } }),
      chunk(p.id, { sk: 'cat', startedAt: H0 + 2, firstTs: H0 + 2, lastTs: H0 + 62_000 }),
      signals(p.id, H0 + 2 * MIN, { sk: 'ada', errors: [error()] }),
      signals(p.id, H0 + 2 * MIN, { sk: 'cat', clicks: [click({ kind: 'rage', n: 4 }), click()] }),
    ])
    const sks = (query: Parameters<Store['listSessionPage']>[1]) => store.listSessionPage(p.id, query).sessions.map((s) => s.session.sk)
    t.same(sks({ limit: 10, userId: 'u1' }), ['ada'])
    t.same(sks({ limit: 10, accountId: 'acme' }), ['bob', 'ada'])
    t.same(sks({ limit: 10, minDurationMs: 60_000 }), ['cat', 'ada'])
    t.same(sks({ limit: 10, pages: ['shop.test/cart'] }), ['ada'])
    t.same(sks({ limit: 10, hasErrors: true }), ['ada'])
    t.same(sks({ limit: 10, hasErrors: false }), ['cat', 'bob'])
    t.same(sks({ limit: 10, hasRage: true }), ['cat'])
    const cat = store.listSessionPage(p.id, { limit: 1 }).sessions[0]
    t.match(cat.signals, { clicks: 2, rage: 1, dead: 0, errors: 0 })
    t.match(store.sessionSignals(p.id, 'ada'), { errors: 1, clicks: 0 })
  })

  t.test('finds sessions by the paths they visited, the elements they clicked and the errors they hit, at the first time of each, bounded', async (t) => {
    const store = await open(t)
    const p = await store.createProject(project())
    const many = Array.from({ length: MAX_FOUND_ELEMENTS + 1 }, (_, i) => click({ selector: `#b${i}`, ts: H0 + MIN + i }))
    await ingest(store, [
      chunk(p.id, { sk: 'ada', startedAt: H0, firstTs: H0, lastTs: H0 + 120_000 }),
      signals(p.id, H0 + 5 * MIN, { sk: 'ada', views: [view({ url: 'https://shop.test/orders/42?x=1', startedAt: H0 + 3 * MIN })], clicks: [click({ selector: 'button.pay', label: 'Pay now', ts: H0 + 4 * MIN })] }),
      // A later batch with an earlier click on the same element moves its first time.
      signals(p.id, H0 + 6 * MIN, { sk: 'ada', clicks: [click({ selector: 'button.pay', label: 'Pay now', ts: H0 + 2 * MIN })], errors: [error({ message: 'E'.repeat(MAX_FOUND_TEXT + 50), ts: H0 + 5 * MIN })] }),
      chunk(p.id, { sk: 'bob', startedAt: H0 + 1, firstTs: H0 + 1, lastTs: H0 + 5_000 }),
      signals(p.id, H0 + 6 * MIN, { sk: 'bob', views: [view({ vw: 390 })], clicks: many }),
    ])
    const search = (find: FindQuery, extra: Partial<SessionListQuery> = {}) =>
      store.listSessionPage(p.id, { limit: 10, find, ...extra }).sessions.map((s) => [s.session.sk, s.moments?.map((m) => [m.kind, m.label, m.ts - H0])])
    t.same(search({ clicked: 'pay now' }), [['ada', [['click', 'Pay now (button.pay)', 2 * MIN]]]])
    t.same(search({ visited: rule('/orders/42') }), [['ada', [['visit', '/orders/42', 3 * MIN]]]], 'paths without their query')
    t.same(search({ error: 'eee' }), [['ada', [['error', 'E'.repeat(MAX_FOUND_TEXT), 5 * MIN]]]], 'a message kept to its first MAX_FOUND_TEXT characters')
    t.same(search({ clicked: '#b0' }).map(([sk]) => sk), ['bob'])
    t.same(search({ clicked: `#b${MAX_FOUND_ELEMENTS - 1}` }).map(([sk]) => sk), ['bob'], 'the last element within the bound')
    t.same(search({ clicked: `#b${MAX_FOUND_ELEMENTS}` }), [], 'an element past MAX_FOUND_ELEMENTS is not searchable')
    t.same(search({ clicked: 'pay', error: 'nothing like it' }), [], 'every present test must match')
    t.same(store.listSessionPage(p.id, { limit: 10, device: 'mobile' }).sessions.map((s) => s.session.sk), ['bob'], 'the device class of the first view')
    t.same(store.listSessionPage(p.id, { limit: 10, device: 'desktop' }).sessions.map((s) => s.session.sk), ['ada'])
    t.same(store.listSessionPage(p.id, { limit: 10, device: 'desktop' }).sessions[0].moments, undefined, 'no search, no moments')

    // A backfill rebuilds the findings with the rest of the session's signals.
    await store.startBackfill(p.id, ['/orders/{id}'], H0)
    const rekey = (url: string) => ({ ...groupUrl(url, []), firstSeenAt: 0 })
    let state = await store.continueBackfill(p.id, 2, rekey, H0)
    while (state.state === 'running') state = await store.continueBackfill(p.id, 2, rekey, H0)
    t.same(search({ clicked: 'pay now' }), [['ada', [['click', 'Pay now (button.pay)', 2 * MIN]]]], 'after a backfill')
  })

  t.test('a search costs what it reads: sessions whose records are full stop a call at its work budget, with a cursor, never past it by more than one session', async (t) => {
    const store = await open(t)
    const p = await store.createProject(project())
    const SESSIONS = 300
    const text = (prefix: string, i: number) => `${prefix} ${i} ${'x'.repeat(150)}`
    const items: IngestItem[] = []
    for (let n = 0; n < SESSIONS; n++) {
      const sk = `full-${n}`
      items.push(chunk(p.id, { sk, startedAt: H0 + n, firstTs: H0 + n, lastTs: H0 + n + MIN }))
      items.push(
        signals(p.id, H0 + n, {
          sk,
          views: Array.from({ length: 40 }, (_, i) => view({ url: `https://shop.test/a${i}/b`, startedAt: H0 + i })),
          clicks: Array.from({ length: 70 }, (_, i) => click({ selector: text('#el', i), label: text('label', i), ts: H0 + i })),
          errors: Array.from({ length: 20 }, (_, i) => error({ message: text('TypeError', i), ts: H0 + i })),
        }),
      )
    }
    await ingest(store, items)
    const worst: FindQuery = { visited: rule('/*'), clicked: 'z'.repeat(256), error: 'z'.repeat(256) }
    // A full record: 32 paths, 64 elements and 16 errors read, plus the session itself.
    const perSession = 1 + 32 + 64 + 16
    // Time is the budget's backstop; here the work alone is what is shown to bound the call.
    const budget = new ReadBudget({ ...READ_LIMITS, ms: Number.POSITIVE_INFINITY })
    const page = store.listSessionPage(p.id, { limit: 50, find: worst, budget })
    t.same(page.sessions, [], 'nothing matches')
    const timed = new ReadBudget({ ...READ_LIMITS, work: Number.POSITIVE_INFINITY, ms: 0 })
    t.ok(store.listSessionPage(p.id, { limit: 50, find: worst, budget: timed }).next, 'and past its time, a call stops too')
    t.ok(timed.entries <= 16, `within the entries between two clock reads (${timed.entries})`)
    t.ok(page.next, 'a cursor to go on')
    t.ok(budget.work >= READ_LIMITS.work && budget.work <= READ_LIMITS.work + perSession, `the work stops at its bound: ${budget.work} of ${READ_LIMITS.work}`)
    t.equal(budget.entries, Math.ceil(READ_LIMITS.work / perSession), `so ${budget.entries} sessions are examined, not ${SESSIONS}`)
    // The same search on records of one path each costs 1 + 1 a session: the entry bound is what stops it.
    const cheap = new ReadBudget({ ...READ_LIMITS, entries: 100, ms: Number.POSITIVE_INFINITY })
    const plain = store.listSessionPage(p.id, { limit: 500, budget: cheap })
    t.equal(cheap.entries, 100, 'without a search, entries bound the call')
    t.equal(plain.sessions.length, 100)
    t.ok(cheap.bytes > 0 && cheap.bytes <= 100 * 6_000, `and what it materialised is counted (${cheap.bytes} bytes)`)
  })

  t.test('finds sessions by console text, failed request and referrer, at the first time of each, bounded', async (t) => {
    const store = await open(t)
    const p = await store.createProject(project())
    const line = (text: string, min: number) => ({ ts: H0 + min * MIN, level: 'error' as const, text })
    const failed = (url: string, min: number, status = 503) => ({ ts: H0 + min * MIN, method: 'POST', url, status })
    await ingest(store, [
      chunk(p.id, { sk: 'ada', startedAt: H0, firstTs: H0, lastTs: H0 + 120_000 }),
      signals(p.id, H0 + 5 * MIN, {
        sk: 'ada',
        views: [view({ startedAt: H0 + MIN, referrer: 'https://www.google.com' })],
        console: [line('Cart failed to load: 503', 4), line('C'.repeat(MAX_FOUND_TEXT + 50), 5)],
        requests: [failed('https://api.shop.test/cart', 3), failed('https://cdn.shop.test/x.js', 4, 0)],
      }),
      // A later batch with an earlier occurrence of the same text moves its first time.
      signals(p.id, H0 + 6 * MIN, { sk: 'ada', console: [line('Cart failed to load: 503', 2)] }),
      // The beacon as a tab closes: a loss report and a failed request, no other entry. Not a report alone: the request is kept.
      signals(p.id, H0 + 7 * MIN, { sk: 'ada', lost: [{ reason: 'tab_closed', seq: 1, toSeq: 1 }], requests: [failed('https://api.shop.test/last-words', 6)] }),
      chunk(p.id, { sk: 'bob', startedAt: H0 + 1, firstTs: H0 + 1, lastTs: H0 + 5_000 }),
      signals(p.id, H0 + 6 * MIN, {
        sk: 'bob',
        views: Array.from({ length: MAX_FOUND_REFERRERS + 1 }, (_, i) => view({ startedAt: H0 + (i + 1) * MIN, referrer: `https://r${i}.test` })),
        console: Array.from({ length: MAX_FOUND_CONSOLE + 1 }, (_, i) => line(`line ${i};`, 1)),
        requests: Array.from({ length: MAX_FOUND_REQUESTS + 1 }, (_, i) => failed(`https://api.test/${i}/`, 1)),
      }),
      // A batch stored before these fields existed has none of them.
      chunk(p.id, { sk: 'cy', startedAt: H0 + 2, firstTs: H0 + 2, lastTs: H0 + 5_000 }),
      signals(p.id, H0 + 6 * MIN, { sk: 'cy', views: [view()] }),
    ])
    const search = (find: FindQuery) => store.listSessionPage(p.id, { limit: 10, find }).sessions.map((s) => [s.session.sk, s.moments?.map((m) => [m.kind, m.label, m.ts - H0])])
    t.same(search({ console: 'cart failed' }), [['ada', [['console', 'Cart failed to load: 503', 2 * MIN]]]], 'by console text: the first time, from the later batch')
    t.same(search({ console: 'ccc' }), [['ada', [['console', 'C'.repeat(MAX_FOUND_TEXT), 5 * MIN]]]], 'a text kept to its first MAX_FOUND_TEXT characters')
    t.same(search({ request: 'post https://api.shop.test/cart 503' }), [['ada', [['request', 'POST https://api.shop.test/cart 503', 3 * MIN]]]], 'by method, URL and status')
    t.same(search({ request: 'last-words' }).map(([sk]) => sk), ['ada'], 'from a batch that also reports a loss')
    t.same(search({ request: 'x.js failed' }), [['ada', [['request', 'POST https://cdn.shop.test/x.js failed', 4 * MIN]]]], 'a network failure (status 0) reads failed')
    t.same(search({ referrer: 'google' }), [['ada', [['referrer', 'https://www.google.com', MIN]]]], 'by the referrer\'s origin, at its view')
    const combined = store.listSessionPage(p.id, { limit: 10, find: { referrer: 'google', console: 'cart', request: 'cart' } }).sessions
    t.same(combined.map((s) => [s.session.sk, s.moments?.map((m) => m.kind)]), [['ada', ['referrer', 'console', 'request']]], 'combined: every match in time order')
    t.same(search({ referrer: 'google', console: 'nothing like it' }), [], 'every present test must match')
    t.same(search({ console: `line ${MAX_FOUND_CONSOLE - 1};` }).map(([sk]) => sk), ['bob'], 'the last console text within the bound')
    t.same(search({ console: `line ${MAX_FOUND_CONSOLE};` }), [], 'a console text past MAX_FOUND_CONSOLE is not searchable')
    t.same(search({ request: `/${MAX_FOUND_REQUESTS - 1}/` }).map(([sk]) => sk), ['bob'])
    t.same(search({ request: `/${MAX_FOUND_REQUESTS}/` }), [], 'a request past MAX_FOUND_REQUESTS is not searchable')
    t.same(search({ referrer: `r${MAX_FOUND_REFERRERS - 1}.` }).map(([sk]) => sk), ['bob'])
    t.same(search({ referrer: `r${MAX_FOUND_REFERRERS}.` }), [], 'a referrer past MAX_FOUND_REFERRERS is not searchable')
    t.same(search({ console: 'line' }).map(([sk]) => sk), ['bob'], 'a session without them is not found, and does not fail the search')
  })

  t.test('click heatmaps bin by horizontal ratio and document y, split by device class', async (t) => {
    const store = await open(t)
    const p = await store.createProject(project())
    await ingest(store, [
      signals(p.id, H0 + 2 * MIN, {
        sk: 's1',
        clicks: [
          click({ xRatio: 0, yDoc: 0, vw: 1440 }),
          click({ xRatio: 0.004, yDoc: 9.9, vw: 1440 }), // same 10 px cell at 1440 px
          click({ xRatio: 1, yDoc: 125, vw: 375, kind: 'rage', n: 3 }),
          click({ xRatio: 0.5, yDoc: 99_999, vw: 800, kind: 'dead' }), // below the deepest row: the last row
          click({ xRatio: 0.5, yDoc: 10, vw: undefined }), // no viewport width: counted only without a device
        ],
      }),
    ])
    const all = store.heatmap(p.id, { ...DAY, pages: ['shop.test/cart'], kind: 'click' })
    t.match(all, { kind: 'click', total: 5, maxCount: 2 })
    t.same(all.kind === 'click' && all.cells, [
      [0, 0, 2],
      [72, 1, 1],
      [HEAT_X_BINS - 1, 12, 1],
      [72, 4999, 1],
    ])
    t.match(store.heatmap(p.id, { ...DAY, pages: ['shop.test/cart'], kind: 'click', device: 'desktop' }), { total: 2 })
    t.match(store.heatmap(p.id, { ...DAY, pages: ['shop.test/cart'], kind: 'click', device: 'mobile' }), { total: 1, cells: [[HEAT_X_BINS - 1, 12, 1]] })
    t.match(store.heatmap(p.id, { ...DAY, pages: ['shop.test/cart'], kind: 'rage' }), { total: 1 })
    t.match(store.heatmap(p.id, { ...DAY, pages: ['shop.test/cart'], kind: 'dead', device: 'tablet' }), { total: 1, cells: [[72, 4999, 1]] })
    t.match(store.heatmap(p.id, { ...DAY, pages: ['shop.test/other'], kind: 'click' }), { total: 0, cells: [] })
    t.match(store.heatmap(p.id, { since: H0 + 2 * HOUR_MS, until: H0 + 3 * HOUR_MS, pages: ['shop.test/cart'], kind: 'click' }), { total: 0 }, 'another hour')
  })

  t.test('a scroll map is the share of views that reached each depth; a view sent again replaces its first copy', async (t) => {
    const store = await open(t)
    const p = await store.createProject(project())
    await ingest(store, [
      signals(p.id, H0 + 2 * MIN, { sk: 's1', views: [view({ maxScrollPct: 20 }), view({ startedAt: H0 + 2 * MIN, maxScrollPct: 100, vw: 390 })] }),
      signals(p.id, H0 + 2 * MIN, { sk: 's2', views: [view({ maxScrollPct: 50 }), view({ url: 'https://shop.test/cart?x=1', startedAt: H0 + 3 * MIN })] }),
    ])
    // s1's first view again, later and deeper: it replaces the 20 %, it is not a fourth view.
    await ingest(store, [signals(p.id, H0 + 5 * MIN, { sk: 's1', views: [view({ maxScrollPct: 60, activeMs: 4000, exit: true })] })])
    const scroll = store.heatmap(p.id, { ...DAY, pages: ['shop.test/cart'], kind: 'scroll' })
    t.equal(scroll.kind === 'scroll' && scroll.views, 3)
    const reached = scroll.kind === 'scroll' ? scroll.reached : []
    t.equal(reached.length, 101)
    t.same([reached[0], reached[50], reached[51], reached[60], reached[61], reached[100]], [1, 1, 0.6667, 0.6667, 0.3333, 0.3333])
    t.match(store.heatmap(p.id, { ...DAY, pages: ['shop.test/cart'], kind: 'scroll', device: 'mobile' }), { views: 1, reached: { 100: 1 } })
    const [page] = store.pageInsights(p.id, DAY)
    t.match(page, { page: 'shop.test/cart', host: 'shop.test', path: '/cart', views: 4, sessions: 2, avgActiveMs: 4000, avgScrollPct: 70, exitRate: 0.25, quickBackRate: 0, errors: 0 })
    t.match(store.sessionSignals(p.id, 's1'), { views: 2, activeMs: 4000 })
  })

  t.test('the element leaderboard counts clicks by selector with their share of the page', async (t) => {
    const store = await open(t)
    const p = await store.createProject(project())
    const buy = { selector: 'button#buy', tag: 'button' }
    await ingest(store, [
      signals(p.id, H0 + MIN, {
        sk: 's1',
        clicks: [
          click({ ...buy, label: 'Buy' }),
          click({ ...buy, kind: 'rage', n: 5 }),
          click({ ...buy, kind: 'error' }),
          click({ selector: 'a.help', tag: 'a', label: 'Help', kind: 'dead' }),
          click(), // no selector: counts in the page's clicks, not in the leaderboard
          click({ url: 'https://shop.test/', selector: 'a.logo' }),
        ],
      }),
    ])
    // A later hour relabels the button.
    await ingest(store, [signals(p.id, H0 + HOUR_MS + MIN, { sk: 's2', clicks: [click({ ...buy, ts: H0 + HOUR_MS + MIN, label: 'Buy now' })] })])
    const cart = store.topElements(p.id, { ...DAY, pages: ['shop.test/cart'], limit: 10 })
    t.same(cart, [
      { page: 'shop.test/cart', selector: 'button#buy', label: 'Buy now', tag: 'button', clicks: 4, rage: 1, dead: 0, errors: 1, share: 0.6667 },
      { page: 'shop.test/cart', selector: 'a.help', label: 'Help', tag: 'a', clicks: 1, rage: 0, dead: 1, errors: 0, share: 0.1667 },
    ])
    const everywhere = store.topElements(p.id, { ...DAY, limit: 2 })
    t.same(everywhere.map((e) => [e.page, e.selector, e.share]), [['shop.test/cart', 'button#buy', 0.6667], ['shop.test/cart', 'a.help', 0.1667]])
    t.same(store.topElements(p.id, { ...DAY, limit: 5 }).find((e) => e.selector === 'a.logo'), { page: 'shop.test/', selector: 'a.logo', clicks: 1, rage: 0, dead: 0, errors: 0, share: 1 })
  })

  t.test('the friction feed lists rage, dead and error clicks and quick backs newest first, with a cursor', async (t) => {
    const store = await open(t)
    const p = await store.createProject(project())
    await ingest(store, [
      signals(p.id, H0 + 10 * MIN, {
        sk: 's1',
        clicks: [
          click({ ts: H0 + 1 * MIN, kind: 'rage', n: 4, selector: '#a' }),
          click({ ts: H0 + 2 * MIN, kind: 'click' }),
          click({ ts: H0 + 3 * MIN, kind: 'dead' }),
          click({ ts: H0 + 4 * MIN, kind: 'error', url: 'https://shop.test/' }),
        ],
        views: [view({ startedAt: H0 + 5 * MIN, quickBack: true })],
      }),
      signals(p.id, H0 + 10 * MIN, { sk: 's2', clicks: [click({ ts: H0 + 6 * MIN, kind: 'rage' })] }),
    ])
    const feed = store.listFriction(p.id, { ...DAY, limit: 10 })
    t.same(feed.items.map((i) => [i.kind, i.ts, i.sessionKey]), [
      ['rage', H0 + 6 * MIN, 's2'],
      ['quickBack', H0 + 5 * MIN, 's1'],
      ['errorClick', H0 + 4 * MIN, 's1'],
      ['dead', H0 + 3 * MIN, 's1'],
      ['rage', H0 + 1 * MIN, 's1'],
    ])
    t.match(feed.items[4], { selector: '#a', n: 4, page: 'shop.test/cart', url: 'https://shop.test/cart' })
    t.equal(feed.next, undefined)

    const paged: string[] = []
    let after
    do {
      const page = store.listFriction(p.id, { ...DAY, limit: 2, after })
      paged.push(...page.items.map((i) => i.id))
      after = page.next
    } while (after)
    t.same(paged, feed.items.map((i) => i.id), 'pages of 2 give the same items in the same order')

    t.same(store.listFriction(p.id, { ...DAY, limit: 10, pages: ['shop.test/'] }).items.map((i) => i.kind), ['errorClick'])
    t.same(store.listFriction(p.id, { ...DAY, limit: 10, sessionKey: 's2' }).items.map((i) => i.kind), ['rage'])
    t.same(store.listFriction(p.id, { since: H0 + 3 * MIN, until: H0 + 5 * MIN, limit: 10 }).items.map((i) => i.ts), [H0 + 4 * MIN, H0 + 3 * MIN], 'exact times: since inclusive, until exclusive')
  })

  t.test('JavaScript errors appear once per message, at their latest occurrence, with exact counts across hour edges', async (t) => {
    const store = await open(t)
    const p = await store.createProject(project())
    const boom = (ts: number, sk = 's1') => signals(p.id, ts + MIN, { sk, errors: [error({ ts, message: 'boom' })] })
    await ingest(store, [
      boom(H0 - 30 * MIN),
      boom(H0 - 1),
      boom(H0),
      boom(H0 + 59 * MIN),
      boom(H0 + HOUR_MS + 30 * MIN, 's2'),
      boom(H0 + 2 * HOUR_MS + 5 * MIN, 's3'),
      signals(p.id, H0 + 11 * MIN, { sk: 's1', errors: [error({ ts: H0 + 10 * MIN, message: 'other' })] }),
    ])
    // From the middle of one hour to the middle of another: both partial hours counted exactly.
    const feed = store.listFriction(p.id, { since: H0 - 1, until: H0 + HOUR_MS + 31 * MIN, limit: 10 })
    t.same(
      feed.items.map((i) => [i.kind, i.message, i.count, i.firstSeen, i.lastSeen, i.ts, i.sessionKey]),
      [
        ['jsError', 'boom', 4, H0 - 1, H0 + HOUR_MS + 30 * MIN, H0 + HOUR_MS + 30 * MIN, 's2'],
        ['jsError', 'other', 1, H0 + 10 * MIN, H0 + 10 * MIN, H0 + 10 * MIN, 's1'],
      ],
    )
    const inside = store.listFriction(p.id, { since: H0 + 1, until: H0 + 2 * MIN, limit: 10 })
    t.same(inside.items, [], 'no occurrence in the range: no group')
    const session = store.listFriction(p.id, { ...DAY, sessionKey: 's1', limit: 10 })
    t.same(session.items.map((i) => [i.message, i.count]), [['boom', 4], ['other', 1]])
    t.match(store.pageInsights(p.id, DAY), [{ page: 'shop.test/cart', errors: 7 }])
  })

  t.test('past MAX_MESSAGES distinct error messages, new ones count under (other messages): every occurrence counted, the registry bounded', async (t) => {
    const store = await open(t)
    const p = await store.createProject(project())
    const batches = []
    for (let b = 0; b * 100 < MAX_MESSAGES + 50; b++) {
      batches.push(signals(p.id, H0 + 10 * MIN, { sk: `s${b}`, errors: Array.from({ length: 100 }, (_, i) => error({ ts: H0 + b * 100 + i, message: `made-up ${b * 100 + i}` })) }))
    }
    // A message held before the cap was reached goes on counting as itself.
    batches.push(signals(p.id, H0 + 11 * MIN, { sk: 'late', errors: [error({ ts: H0 + 5 * MIN, message: 'made-up 7' })] }))
    await ingest(store, batches)
    const groups = store.listFriction(p.id, { ...DAY, limit: 10_000 }).items.filter((i) => i.kind === 'jsError')
    t.equal(groups.length, MAX_MESSAGES + 1, 'the cap, and one group for the rest')
    t.equal(groups.find((g) => g.message === OTHER_MESSAGE)?.count, (batches.length - 1) * 100 - MAX_MESSAGES, 'the rest counted there')
    t.equal(groups.find((g) => g.message === 'made-up 7')?.count, 2, 'a held message still counts as itself')
    t.equal(groups.reduce((sum, g) => sum + (g.count ?? 0), 0), (batches.length - 1) * 100 + 1, 'no occurrence lost')
  })

  t.test('past MAX_ELEMENT_NAMES named elements, a new one counts as its page\'s (other), whatever its hour', async (t) => {
    const store = await open(t)
    const p = await store.createProject(project())
    const hours = MAX_ELEMENT_NAMES / ELEMENTS_PER_BUCKET + 1
    const batches = []
    // Each hour a bucket's worth of new selectors: no bucket passes its own cap, the names pass theirs in the last hour.
    for (let h = 0; h < hours; h++) {
      const ts = H0 - 11 * HOUR_MS + h * HOUR_MS
      batches.push(signals(p.id, ts + MIN, { sk: `s${h}`, clicks: Array.from({ length: ELEMENTS_PER_BUCKET }, (_, i) => click({ ts: ts + i, selector: `#gen-${h}-${i}` })) }))
    }
    await ingest(store, batches)
    const lastHour = { since: H0 - 11 * HOUR_MS + (hours - 1) * HOUR_MS, until: H0 - 11 * HOUR_MS + hours * HOUR_MS }
    const rows = store.topElements(p.id, { ...lastHour, limit: 10 })
    t.same(rows.map((r) => [r.selector, r.clicks]), [[OTHER_ELEMENTS, ELEMENTS_PER_BUCKET]], 'the last hour\'s new elements count as (other)')
    const firstHour = store.topElements(p.id, { since: H0 - 11 * HOUR_MS, until: H0 - 10 * HOUR_MS, limit: 3 })
    t.equal(firstHour.length, 3)
    t.ok(firstHour.every((r) => r.selector.startsWith('#gen-0-') && r.clicks === 1), 'the first hour\'s keep their names')
  })

  t.test('client times far from the time of receipt are clamped into the contract\'s window', async (t) => {
    const store = await open(t)
    const p = await store.createProject(project())
    await ingest(store, [signals(p.id, H0, { sk: 's1', clicks: [click({ ts: 0, kind: 'dead' }), click({ ts: H0 + 365 * 24 * HOUR_MS, kind: 'dead' })] })])
    const times = store.listFriction(p.id, { ...DAY, since: H0 - 48 * HOUR_MS, limit: 10 }).items.map((i) => i.ts)
    t.same(times, [H0 + 5 * MIN, H0 - 24 * HOUR_MS])
  })

  t.test('a backfill re-keys the aggregates by page and counts what ingest added meanwhile once', async (t) => {
    const store = await open(t)
    const p = await store.createProject(project())
    const tenant = (n: number) => `https://app.test/t${n}/settings`
    for (let n = 0; n < 6; n++) {
      await ingest(store, [
        signals(p.id, H0 + n, { sk: `s${n}`, clicks: [click({ url: tenant(n), kind: 'dead', selector: '#save' })], views: [view({ url: tenant(n), maxScrollPct: 50 })], errors: [error({ url: tenant(n) })] }),
      ])
    }
    t.same(store.listSignalPages(p.id).length, 6)
    await store.updateProject(p.id, { pathRules: ['/{tenant}/settings'] })
    await store.startBackfill(p.id, ['/{tenant}/settings'], H0)
    const rekey = (url: string) => ({ key: url.replace(/t\d+/, '{tenant}').replace('https://', ''), host: 'app.test', path: '/{tenant}/settings', firstSeenAt: 0 })
    let state = await store.continueBackfill(p.id, 2, rekey, H0)
    // Ingest during the backfill, under the new rules: counted in both generations, rebuilt never.
    const during = signals(p.id, H0 + 10, { sk: 'late', clicks: [click({ url: tenant(9), kind: 'dead', selector: '#save' })] })
    for (const c of (during as { batch: SignalsRecord }).batch.clicks) c.page = 'app.test/{tenant}/settings'
    await ingest(store, [during])
    // And a batch the fold thread folds only after the backfill has walked past it and gone live: counted once too.
    const unfolded = signals(p.id, H0 + 11, { sk: 'later', clicks: [click({ url: tenant(8), kind: 'dead', selector: '#save' })] })
    for (const c of (unfolded as { batch: SignalsRecord }).batch.clicks) c.page = 'app.test/{tenant}/settings'
    await store.appendBatch([unfolded])
    while (state.state === 'running') state = await store.continueBackfill(p.id, 2, rekey, H0)
    t.equal(store.derivationLag(), 1, 'the late batch still waits for the fold thread')
    await foldAll(store)
    t.equal(store.derivationLag(), 0)
    t.same(store.listSignalPages(p.id), ['app.test/{tenant}/settings'], 'only the new page is left')
    const page = 'app.test/{tenant}/settings'
    t.match(store.heatmap(p.id, { ...DAY, pages: [page], kind: 'dead' }), { total: 8 })
    t.match(store.topElements(p.id, { ...DAY, pages: [page], limit: 5 }), [{ selector: '#save', clicks: 8, dead: 8, share: 1 }])
    t.equal(store.listFriction(p.id, { ...DAY, pages: [page], limit: 50 }).items.filter((i) => i.kind === 'dead').length, 8)
    t.match(store.pageInsights(p.id, DAY), [{ page, views: 6, sessions: 6, errors: 6, clicks: 8, avgScrollPct: 50 }])
    t.match(store.listFriction(p.id, { ...DAY, limit: 50 }).items.find((i) => i.kind === 'jsError'), { count: 6, page })
  })
}
