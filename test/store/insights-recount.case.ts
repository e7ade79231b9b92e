/**
 * The aggregates equal a recount from the raw signals (a fast-check property):
 * random batches (views sent again, clicks of every kind and device, errors,
 * client clocks off, several batches per transaction) go through appendBatch
 * and are folded into the aggregates at random moments in random slices, as
 * the fold thread would; sometimes a backfill re-keys the pages under new rules
 * while more batches arrive, and folds happen, between its steps. Then every read (heatmaps, scroll maps, the
 * leaderboard, the friction feed paged through, the page list, the
 * per-session counts) is compared with a recount, written out plainly below,
 * over what store.listSignals holds. Every implementation runs it through a
 * test file beside this one (lmdb-recount.test.ts, memory-recount.test.ts).
 */
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import type { Test } from 'tap'
import { groupUrl } from '../../src/grouping/group.js'
import { compileRules } from '../../src/grouping/rules.js'
import {
  clampTime,
  deviceOf,
  heatBin,
  HEAT_X_BINS,
  hourOf,
  hoursOf,
  HOUR_MS,
  scrollStep,
  type Device,
  type FrictionItem,
  type HeatKind,
  type TimeRange,
} from '../../src/store/insights.js'
import type { Click, IngestItem, SignalsRecord, Store, View } from '../../src/store/store.js'
import { foldAll } from '../helpers/fold.js'

const T0 = Date.UTC(2026, 2, 1, 0)
const URLS = ['https://a.test/', 'https://a.test/cart', 'https://b.test/cart', 'https://a.test/p/1', 'https://a.test/p/2?x=1']
const SESSIONS = ['s1', 's2', 's3']
const MESSAGES = ['TypeError: a', 'TypeError: b', 'RangeError: c']
const SELECTORS = ['#buy', 'a.help', 'nav > a']
const NEW_RULES = ['/{section}/*']
/** Three days: ranges then cover whole days (read from the daily buckets) and partial ones (from the hourly). */
const SPAN = 72 * HOUR_MS

// ---- generators ----

const time = fc.integer({ min: T0, max: T0 + SPAN })
/** Few distinct view starts, so that the same view is often sent again. */
const viewStart = fc.constantFrom(T0 + 1_000, T0 + 26 * HOUR_MS + 7, T0 + 50 * HOUR_MS - 3)
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined })

const viewArb = fc.record({
  url: fc.constantFrom(...URLS),
  startedAt: viewStart,
  vw: maybe(fc.constantFrom(375, 800, 1440)),
  activeMs: maybe(fc.integer({ min: 0, max: 60_000 })),
  maxScrollPct: maybe(fc.integer({ min: 0, max: 1000 }).map((n) => n / 10)),
  exit: maybe(fc.boolean()),
  quickBack: maybe(fc.boolean()),
})

const clickArb = fc.record({
  url: fc.constantFrom(...URLS),
  ts: time,
  xRatio: fc.double({ min: 0, max: 1, noNaN: true }),
  yDoc: fc.integer({ min: 0, max: 60_000 }),
  vw: maybe(fc.constantFrom(375, 800, 1440)),
  selector: maybe(fc.constantFrom(...SELECTORS)),
  kind: maybe(fc.constantFrom('click', 'rage', 'dead', 'error') as fc.Arbitrary<Click['kind'] & string>),
  n: maybe(fc.integer({ min: 1, max: 9 })),
})

const errorArb = fc.record({ url: fc.constantFrom(...URLS), ts: time, message: fc.constantFrom(...MESSAGES) })

const batchArb = fc.record({
  sk: fc.constantFrom(...SESSIONS),
  // Sometimes minutes before the entries' times (clamped to receipt + 5 min), sometimes after.
  receivedAt: time,
  views: fc.array(viewArb, { maxLength: 3 }),
  clicks: fc.array(clickArb, { maxLength: 6 }),
  errors: fc.array(errorArb, { maxLength: 2 }),
})

type Batch = typeof batchArb extends fc.Arbitrary<infer B> ? B : never

const rangeArb = fc.tuple(fc.integer({ min: T0 - HOUR_MS, max: T0 + SPAN + HOUR_MS }), fc.integer({ min: 1, max: SPAN + 2 * HOUR_MS })).map(([since, length]) => ({ since, until: since + length }))

const scenarioArb = fc.record({
  batches: fc.array(batchArb, { minLength: 1, maxLength: 25 }),
  /** Batches per transaction, in turn. */
  groups: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 5 }),
  backfill: fc.boolean(),
  /** Batches that arrive during the backfill, between its steps. */
  during: fc.array(batchArb, { maxLength: 6 }),
  ranges: fc.array(rangeArb, { minLength: 1, maxLength: 3 }),
  /**
   * After each write, in turn: whether the fold thread folds then, and how many
   * batches it takes; the rest wait, across backfill steps too. What the
   * aggregates say must not depend on when or in what slices batches fold.
   */
  folds: fc.array(fc.record({ now: fc.boolean(), limit: fc.integer({ min: 1, max: 5 }) }), { minLength: 1, maxLength: 5 }),
})

// ---- feeding the store the way the ingest writer does ----

function withPages(batch: Batch, rules: string[]): SignalsRecord {
  const compiled = compileRules(rules).rules
  const page = <T extends { url: string }>(e: T) => ({ ...strip(e), page: groupUrl(e.url, compiled).key })
  const label = (c: Click) => (c.selector ? { label: c.selector.toUpperCase(), tag: 'x' } : {})
  return {
    sk: batch.sk,
    vid: `v-${batch.sk}`,
    dropped: 0,
    views: batch.views.map(page) as View[],
    clicks: batch.clicks.map((c: Click) => ({ ...page(c), ...label(c) })) as Click[],
    errors: batch.errors.map(page),
  }
}

/** Drops the members fast-check left undefined: stored entries never hold them. */
function strip<T extends object>(entry: T): T {
  return Object.fromEntries(Object.entries(entry).filter(([, v]) => v !== undefined)) as T
}

const item = (projectId: string, batch: Batch, rules: string[]): IngestItem => ({ kind: 'signals', projectId, receivedAt: batch.receivedAt, batch: withPages(batch, rules) })

// ---- the recount ----

interface MergedView {
  sk: string
  url: string
  page: string
  at: number
  vw?: number
  activeMs?: number
  maxScrollPct?: number
  exit: boolean
  quickBack: boolean
}

function recount(raw: { receivedAt: number; batch: SignalsRecord }[]) {
  const views = new Map<string, MergedView>()
  const clicks: (Click & { sk: string; at: number; page: string })[] = []
  const errors: { sk: string; at: number; page: string; url: string; message: string }[] = []
  for (const { receivedAt, batch } of raw) {
    for (const v of batch.views) {
      const id = `${batch.sk}\n${v.url}\n${v.startedAt}`
      const at = clampTime(v.startedAt, receivedAt)
      const m = views.get(id)
      const max = (a?: number, b?: number) => (a === undefined ? b : b === undefined ? a : Math.max(a, b))
      views.set(id, {
        sk: batch.sk, url: v.url, page: v.page!, at: m ? Math.min(m.at, at) : at,
        vw: max(m?.vw, v.vw), activeMs: max(m?.activeMs, v.activeMs), maxScrollPct: max(m?.maxScrollPct, v.maxScrollPct),
        exit: Boolean(m?.exit || v.exit), quickBack: Boolean(m?.quickBack || v.quickBack),
      })
    }
    for (const c of batch.clicks) clicks.push({ ...c, sk: batch.sk, at: clampTime(c.ts, receivedAt), page: c.page! })
    for (const e of batch.errors) errors.push({ sk: batch.sk, at: clampTime(e.ts, receivedAt), page: e.page!, url: e.url, message: e.message })
  }
  return { views: [...views.values()], clicks, errors }
}

type Recount = ReturnType<typeof recount>

const inHours = (at: number, range: TimeRange) => {
  const { from, to } = hoursOf(range.since, range.until)
  return hourOf(at) >= from && hourOf(at) < to
}
const inRange = (at: number, range: TimeRange) => at >= range.since && at < range.until
const round = (x: number) => Math.round(x * 10_000) / 10_000

function expectedHeat(r: Recount, page: string, kind: HeatKind, device: Device | undefined, range: TimeRange) {
  if (kind === 'scroll') {
    const depths = r.views.filter((v) => v.page === page && v.maxScrollPct !== undefined && inHours(v.at, range) && (!device || deviceOf(v.vw) === device)).map((v) => scrollStep(v.maxScrollPct!))
    return { views: depths.length, reached: Array.from({ length: 101 }, (_, d) => (depths.length ? round(depths.filter((x) => x >= d).length / depths.length) : 0)) }
  }
  const cells = new Map<number, number>()
  for (const c of r.clicks) {
    if (c.page !== page || !inHours(c.at, range) || (device && deviceOf(c.vw) !== device)) continue
    if (kind !== 'click' && (c.kind ?? 'click') !== kind) continue
    const bin = heatBin(c.xRatio, c.yDoc)
    cells.set(bin, (cells.get(bin) ?? 0) + 1)
  }
  return [...cells].sort(([a], [b]) => a - b).map(([bin, n]) => [bin % HEAT_X_BINS, Math.floor(bin / HEAT_X_BINS), n])
}

function expectedElements(r: Recount, page: string | undefined, range: TimeRange) {
  const rows = new Map<string, { page: string; selector: string; label: string; clicks: number; rage: number; dead: number; errors: number }>()
  for (const c of r.clicks) {
    if (!c.selector || !inHours(c.at, range) || (page && c.page !== page)) continue
    const key = `${c.page}\n${c.selector}`
    const row = rows.get(key) ?? { page: c.page, selector: c.selector, label: c.selector.toUpperCase(), clicks: 0, rage: 0, dead: 0, errors: 0 }
    row.clicks += 1
    if (c.kind === 'rage') row.rage += 1
    if (c.kind === 'dead') row.dead += 1
    if (c.kind === 'error') row.errors += 1
    rows.set(key, row)
  }
  const pageClicks = (p: string) => r.clicks.filter((c) => c.page === p && inHours(c.at, range)).length
  return [...rows.values()].map((row) => ({ ...row, tag: 'x', share: round(row.clicks / pageClicks(row.page)) }))
}

const KIND = { rage: 'rage', dead: 'dead', error: 'errorClick' } as const

function expectedFriction(r: Recount, range: TimeRange, filter: { page?: string; sk?: string }) {
  const keep = (x: { page: string; sk: string }) => (!filter.page || x.page === filter.page) && (!filter.sk || x.sk === filter.sk)
  const items: string[] = []
  for (const c of r.clicks) {
    const kind = c.kind ?? 'click'
    if (kind !== 'click' && inRange(c.at, range) && keep(c)) items.push([KIND[kind], c.at, c.sk, c.page, c.selector ?? ''].join('|'))
  }
  for (const v of r.views) if (v.quickBack && inRange(v.at, range) && keep(v)) items.push(['quickBack', v.at, v.sk, v.page, ''].join('|'))
  const groups = new Map<string, { count: number; first: number; last: number; sks: Set<string> }>()
  for (const e of r.errors) {
    if (!inRange(e.at, range) || !keep(e)) continue
    const g = groups.get(e.message) ?? { count: 0, first: Infinity, last: -Infinity, sks: new Set() }
    g.count += 1
    g.first = Math.min(g.first, e.at)
    if (e.at > g.last) g.sks = new Set()
    if (e.at >= g.last) g.sks.add(e.sk)
    g.last = Math.max(g.last, e.at)
    groups.set(e.message, g)
  }
  for (const [message, g] of groups) items.push(['jsError', g.last, message, g.count, g.first, [...g.sks].sort().join(',')].join('|'))
  return items.sort()
}

/**
 * A JS error group names the session of its latest occurrence; when several
 * sessions share that instant any of them is right, so the expected line
 * lists them all and the actual one is written with that list when its
 * session is in it.
 */
function actualFriction(items: FrictionItem[], expected: string[]) {
  return items
    .map((i) => {
      if (i.kind !== 'jsError') return [i.kind, i.ts, i.sessionKey, i.page, i.selector ?? ''].join('|')
      const head = ['jsError', i.ts, i.message, i.count, i.firstSeen].join('|')
      const match = expected.find((line) => line.startsWith(`${head}|`) && line.slice(head.length + 1).split(',').includes(i.sessionKey))
      return match ?? `${head}|${i.sessionKey}`
    })
    .sort()
}

function expectedPages(r: Recount, range: TimeRange) {
  const pages = new Set([...r.views.map((v) => v.page), ...r.clicks.map((c) => c.page), ...r.errors.map((e) => e.page)])
  const out = []
  for (const page of [...pages].sort()) {
    const views = r.views.filter((v) => v.page === page && inHours(v.at, range))
    const firstViews = new Map<string, number>()
    for (const v of r.views.filter((v) => v.page === page)) firstViews.set(v.sk, Math.min(firstViews.get(v.sk) ?? Infinity, v.at))
    const sessions = [...firstViews.values()].filter((at) => inHours(at, range)).length
    const active = views.filter((v) => v.activeMs !== undefined)
    const scrolled = views.filter((v) => v.maxScrollPct !== undefined)
    const clicks = r.clicks.filter((c) => c.page === page && inHours(c.at, range)).length
    const errors = r.errors.filter((e) => e.page === page && inHours(e.at, range)).length
    if (views.length + sessions + clicks + errors === 0) continue
    out.push({
      page, sessions, views: views.length, clicks, errors,
      avgActiveMs: active.length ? Math.round(active.reduce((s, v) => s + v.activeMs!, 0) / active.length) : null,
      avgScrollPct: scrolled.length ? Math.round(scrolled.reduce((s, v) => s + Math.round(v.maxScrollPct! * 100), 0) / scrolled.length / 10) / 10 : null,
      exitRate: views.length ? round(views.filter((v) => v.exit).length / views.length) : null,
      quickBackRate: views.length ? round(views.filter((v) => v.quickBack).length / views.length) : null,
    })
  }
  return out
}

function expectedSession(r: Recount, sk: string) {
  const clicks = r.clicks.filter((c) => c.sk === sk)
  const views = r.views.filter((v) => v.sk === sk)
  return {
    views: views.length,
    activeMs: views.reduce((s, v) => s + (v.activeMs ?? 0), 0),
    clicks: clicks.length,
    rage: clicks.filter((c) => c.kind === 'rage').length,
    dead: clicks.filter((c) => c.kind === 'dead').length,
    errorClicks: clicks.filter((c) => c.kind === 'error').length,
    errors: r.errors.filter((e) => e.sk === sk).length,
    quickBacks: views.filter((v) => v.quickBack).length,
  }
}

// ---- the property ----

/** `open` gives the property one empty store for all its runs (each run makes a project of its own). */
export function recountSuite(t: Test, open: (t: Test) => Promise<Store>): void {
  t.test('every aggregate equals a recount from the raw signals, before and after a backfill', async (t) => {
    const store = await open(t)
    let run = 0
    let failure = ''
    const check = (what: string, actual: unknown, expected: unknown) => {
      if (!isDeepStrictEqual(actual, expected)) {
        failure = `${what}\n  actual:   ${JSON.stringify(actual)}\n  expected: ${JSON.stringify(expected)}`
        throw new Error(failure)
      }
    }

    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const projectId = `prj_${++run}`
        await store.createProject({ id: projectId, orgId: 'org', name: 'p', domain: null, pathRules: [], publicKey: `svc_pk_${run.toString(16)}`, createdAt: T0 })
        let writes = 0
        const mayFold = async () => {
          const fold = scenario.folds[writes++ % scenario.folds.length]
          if (fold.now) await store.applyDerivations(fold.limit)
        }
        const batches = [...scenario.batches]
        for (let g = 0; batches.length > 0; g++) {
          const size = scenario.groups[g % scenario.groups.length]
          await store.appendBatch(batches.splice(0, size).map((b) => item(projectId, b, [])))
          await mayFold()
        }
        if (scenario.backfill) {
          await store.updateProject(projectId, { pathRules: NEW_RULES })
          await store.startBackfill(projectId, NEW_RULES, T0)
          const compiled = compileRules(NEW_RULES).rules
          const rekey = (url: string) => ({ ...groupUrl(url, compiled), firstSeenAt: 0 })
          const during = [...scenario.during]
          let state = await store.continueBackfill(projectId, 2, rekey, T0)
          while (state.state === 'running') {
            const next = during.shift()
            if (next) await store.appendBatch([item(projectId, next, NEW_RULES)])
            await mayFold()
            state = await store.continueBackfill(projectId, 2, rekey, T0)
          }
          for (const next of during) await store.appendBatch([item(projectId, next, NEW_RULES)])
        }
        await foldAll(store)

        const raw = Array.from(store.listSignals(projectId))
        const r = recount(raw)
        const pages = [...new Set([...r.views.map((v) => v.page), ...r.clicks.map((c) => c.page), ...r.errors.map((e) => e.page)])].sort()
        check('pages known', [...store.listSignalPages(projectId)].sort(), pages)
        for (const range of [{ since: T0 - 2 * HOUR_MS, until: T0 + SPAN + 2 * HOUR_MS }, ...scenario.ranges]) {
          for (const page of pages) {
            for (const kind of ['click', 'rage', 'dead', 'scroll'] as const) {
              for (const device of [undefined, 'mobile', 'tablet', 'desktop'] as const) {
                const heat = store.heatmap(projectId, { ...range, pages: [page], kind, device })
                const expected = expectedHeat(r, page, kind, device, range)
                if (heat.kind === 'scroll') check(`scroll ${page} ${device}`, { views: heat.views, reached: heat.reached }, expected)
                else check(`heat ${page} ${kind} ${device}`, heat.cells, expected)
              }
            }
            const byPage = (rows: { page: string; selector: string }[]) => [...rows].sort((a, b) => (a.page + a.selector < b.page + b.selector ? -1 : 1))
            check(`elements ${page}`, byPage(store.topElements(projectId, { ...range, pages: [page], limit: 500 })), byPage(expectedElements(r, page, range)))
            const pageFriction = expectedFriction(r, range, { page })
            check(`friction ${page}`, actualFriction(store.listFriction(projectId, { ...range, pages: [page], limit: 500 }).items, pageFriction), pageFriction)
          }
          check('elements', store.topElements(projectId, { ...range, limit: 500 }).map((e) => `${e.page}|${e.selector}|${e.clicks}|${e.share}`).sort(), expectedElements(r, undefined, range).map((e) => `${e.page}|${e.selector}|${e.clicks}|${e.share}`).sort())
          const whole = store.listFriction(projectId, { ...range, limit: 500 })
          const friction = expectedFriction(r, range, {})
          check('friction', actualFriction(whole.items, friction), friction)
          // Paged by 3, the feed gives the same items in the same order, newest first.
          const paged: FrictionItem[] = []
          let after
          do {
            const page = store.listFriction(projectId, { ...range, limit: 3, after })
            paged.push(...page.items)
            after = page.next
          } while (after)
          check('friction paged', paged.map((i) => i.id), whole.items.map((i) => i.id))
          check('friction order', whole.items.every((i, n) => n === 0 || i.ts <= whole.items[n - 1].ts), true)
          for (const sk of SESSIONS) {
            const own = expectedFriction(r, range, { sk })
            check(`friction of ${sk}`, actualFriction(store.listFriction(projectId, { ...range, sessionKey: sk, limit: 500 }).items, own), own)
          }
          const listed = store.pageInsights(projectId, range).map(({ host: _h, path: _p, ...rest }) => rest).sort((a, b) => (a.page < b.page ? -1 : 1))
          check('pages', listed, expectedPages(r, range))
        }
        for (const sk of SESSIONS) check(`session ${sk}`, store.sessionSignals(projectId, sk), expectedSession(r, sk))
      }),
      { numRuns: 30, endOnFailure: true },
    ).then(
      () => t.pass(`${run} scenarios: every read equals its recount`),
      (error) => t.fail(`${failure || ''}\n${String(error).slice(0, 4000)}`),
    )
  })
}
