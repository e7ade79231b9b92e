/**
 * Reads of the aggregates derive.ts keeps (issue 6): heatmaps, the element
 * leaderboard, the friction feed, the page list and the session list. Each
 * reads the live generation only, and at most one bucket per page and hour
 * of the range (30 days: 720 per page).
 */
import {
  HEAT_X_BINS,
  HEAT_Y_BINS,
  HOUR_MS,
  SCROLL_STEPS,
  SESSION_SCAN_BUDGET,
  emptySessionSignals,
  hoursOf,
  type ClickHeatmap,
  type ElementRow,
  type ElementsQuery,
  type FrictionItem,
  type FrictionPage,
  type FrictionPosition,
  type FrictionQuery,
  type HeatmapQuery,
  type PageInsight,
  type ScrollHeatmap,
  type SessionListQuery,
  type SessionListPage,
  type SessionPosition,
  type SessionSignals,
  type TimeRange,
} from '../insights.js'
import type { SessionRecord } from '../store.js'
import {
  ALL_SCOPE,
  ALL_SLOTS,
  DEVICE_SLOT,
  ELEMENT_FIELDS,
  decodeHistogram,
  decodePairs,
  decodeRecords,
  derivedStateOf,
  elementIdOf,
  emptyPageBucket,
  pageScope,
  shortId,
  type DeviceSlot,
  type ElementName,
  type ErrorMessage,
  type ErrorOccurrence,
  type FrictionRecord,
  type PageBucket,
  type SessionRecordOfSignals,
  type StoredPageBucket,
} from './derive.js'
import type { Key, Tables } from './index.js'
import { MAX_KEY_PART } from './keys.js'

type Entry<V> = { key: Key; value: V }

function range<V>(tables: Tables, start: Key, end: Key, reverse = false, limit?: number): Iterable<Entry<V>> {
  return tables.derived.getRange({ start, end, reverse, limit }) as Iterable<Entry<V>>
}

function liveGen(tables: Tables, projectId: string): number {
  return derivedStateOf(tables, projectId).live
}

/** Page keys of the live generation (every page any signal landed on). */
export function derivedPages(tables: Tables, projectId: string): string[] {
  const base = [projectId, liveGen(tables, projectId), 'pg']
  return Array.from(range<{ key: string }>(tables, base, [...base, MAX_KEY_PART]), ({ value }) => value.key)
}

interface PageTotals extends Omit<PageBucket, 'sh'> {
  sh: Partial<Record<DeviceSlot, Int32Array>>
}

/**
 * The buckets of the hours of a range: the whole days in it from the daily
 * buckets (`dayTag`), the hours before and after them from the hourly ones.
 */
function* hourBuckets<V>(tables: Tables, hourly: (string | number)[], daily: (string | number)[], since: number, until: number): Iterable<Entry<V>> {
  const { from, to } = hoursOf(since, until)
  const firstDay = Math.ceil(from / 24)
  const endDay = Math.floor(to / 24)
  if (firstDay >= endDay) {
    yield* range<V>(tables, [...hourly, from], [...hourly, to])
    return
  }
  yield* range<V>(tables, [...hourly, from], [...hourly, firstDay * 24])
  yield* range<V>(tables, [...daily, firstDay], [...daily, endDay])
  yield* range<V>(tables, [...hourly, endDay * 24], [...hourly, to])
}

/** A page's buckets over the hours of a range, added up; scroll histograms only when asked for. */
function sumPageBuckets(tables: Tables, base: (string | number)[], pageId: string, since: number, until: number, histograms = false): PageTotals {
  const { sh: _none, ...empty } = emptyPageBucket()
  const total: PageTotals = { ...empty, sh: {} }
  for (const { value } of hourBuckets<StoredPageBucket>(tables, [...base, 'pb', pageId], [...base, 'pd', pageId], since, until)) {
    total.v += value.v
    total.s += value.s
    total.am += value.am
    total.av += value.av
    total.sp += value.sp
    total.sv += value.sv
    total.ex += value.ex
    total.qb += value.qb
    total.er += value.er
    total.cl += value.cl
    if (!histograms) continue
    for (const slot of Object.keys(value.sh) as DeviceSlot[]) {
      const histogram = (total.sh[slot] ??= new Int32Array(SCROLL_STEPS))
      decodeHistogram(value.sh[slot]).forEach((n, i) => (histogram[i] += n))
    }
  }
  return total
}

// ---- heatmaps ----

export function heatmap(tables: Tables, projectId: string, query: HeatmapQuery): ClickHeatmap | ScrollHeatmap {
  const base = [projectId, liveGen(tables, projectId)]
  const slots: readonly DeviceSlot[] = query.device ? [DEVICE_SLOT[query.device]] : ALL_SLOTS
  if (query.kind === 'scroll') {
    const histogram = new Array<number>(SCROLL_STEPS).fill(0)
    for (const page of query.pages) {
      const bucket = sumPageBuckets(tables, base, shortId(page), query.since, query.until, true)
      for (const slot of slots) bucket.sh[slot]?.forEach((n, i) => (histogram[i] += n))
    }
    const views = histogram.reduce((a, b) => a + b, 0)
    const reached = new Array<number>(SCROLL_STEPS).fill(0)
    let deeper = 0
    for (let depth = SCROLL_STEPS - 1; depth >= 0; depth--) {
      deeper += histogram[depth]
      reached[depth] = views === 0 ? 0 : round(deeper / views)
    }
    return { kind: 'scroll', views, reached }
  }

  const kind = query.kind === 'click' ? 'a' : query.kind === 'rage' ? 'r' : 'd'
  const { from, to } = hoursOf(query.since, query.until)
  // A dense grid to add into (calloc'd: untouched pages cost nothing) and the list of bins touched, so that
  // collecting the cells costs the number of cells, not the size of the grid.
  const grid = new Uint32Array(HEAT_X_BINS * HEAT_Y_BINS)
  const touched: number[] = []
  let total = 0
  for (const page of query.pages) {
    const prefix = [...base, 'ht', shortId(page), kind]
    for (const { value } of range<Partial<Record<DeviceSlot, Uint8Array>>>(tables, [...prefix, from], [...prefix, to])) {
      for (const slot of slots) {
        const pairs = decodePairs(value[slot])
        for (let i = 0; i < pairs.length; i += 2) {
          if (grid[pairs[i]] === 0) touched.push(pairs[i])
          grid[pairs[i]] += pairs[i + 1]
          total += pairs[i + 1]
        }
      }
    }
  }
  const cells: [number, number, number][] = []
  let maxCount = 0
  for (const bin of Uint32Array.from(touched).sort()) {
    const n = grid[bin]
    cells.push([bin % HEAT_X_BINS, Math.floor(bin / HEAT_X_BINS), n])
    if (n > maxCount) maxCount = n
  }
  return { kind: query.kind, total, maxCount, cells }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000
}

// ---- element leaderboard ----

export function topElements(tables: Tables, projectId: string, query: ElementsQuery): ElementRow[] {
  const base = [projectId, liveGen(tables, projectId)]
  // Counts by element id, added up over every bucket of the range: fixed-size binary records, no strings.
  const slots = new Map<number, number>()
  const ids: number[] = []
  const counts: number[] = []
  const addBuckets = (scope: string) => {
    for (const { value } of hourBuckets<Uint8Array>(tables, [...base, 'el', scope], [...base, 'ed', scope], query.since, query.until)) {
      const records = decodeRecords(value)
      for (let i = 0; i < records.length; i += ELEMENT_FIELDS) {
        const id = records[i] * 0x1_0000_0000 + records[i + 1]
        let slot = slots.get(id)
        if (slot === undefined) {
          slot = ids.length
          slots.set(id, slot)
          ids.push(id)
          counts.push(0, 0, 0, 0)
        }
        const at = slot * 4
        counts[at] += records[i + 2]
        counts[at + 1] += records[i + 3]
        counts[at + 2] += records[i + 4]
        counts[at + 3] += records[i + 5]
      }
    }
  }
  if (query.pages) for (const page of query.pages) addBuckets(pageScope(shortId(page)))
  else addBuckets(ALL_SCOPE)

  // Most clicked first, then rage, dead and error clicks; ties at the cut are all named and ordered by page and selector.
  const byCounts = (a: number, b: number) => {
    for (let f = 0; f < 4; f++) if (counts[b * 4 + f] !== counts[a * 4 + f]) return counts[b * 4 + f] - counts[a * 4 + f]
    return 0
  }
  const order = ids.map((_, slot) => slot).sort(byCounts)
  let cut = Math.min(query.limit, order.length)
  while (cut < order.length && cut > 0 && byCounts(order[cut - 1], order[cut]) === 0) cut += 1
  const rows: ElementRow[] = order.slice(0, cut).map((slot) => {
    const name = tables.derived.get([...base, 'en', ids[slot]]) as ElementName | undefined
    const row: ElementRow = {
      page: name?.page ?? '',
      selector: name?.selector ?? '',
      clicks: counts[slot * 4],
      rage: counts[slot * 4 + 1],
      dead: counts[slot * 4 + 2],
      errors: counts[slot * 4 + 3],
      share: 0,
    }
    if (name?.label !== undefined) row.label = name.label
    if (name?.tag !== undefined) row.tag = name.tag
    return row
  })
  const top = rows
    .sort((a, b) => b.clicks - a.clicks || b.rage - a.rage || b.dead - a.dead || b.errors - a.errors || compare(a.page, b.page) || compare(a.selector, b.selector))
    .slice(0, query.limit)
  const pageClicks = new Map<string, number>()
  for (const row of top) {
    if (!pageClicks.has(row.page)) pageClicks.set(row.page, sumPageBuckets(tables, base, shortId(row.page), query.since, query.until).cl)
    const clicks = pageClicks.get(row.page)!
    row.share = clicks === 0 ? 0 : round(row.clicks / clicks)
  }
  return top
}

// ---- friction feed ----

const olderThan = (a: FrictionPosition, b: FrictionPosition) => a.ts < b.ts || (a.ts === b.ts && a.id < b.id)

export function friction(tables: Tables, projectId: string, query: FrictionQuery): FrictionPage {
  const gen = liveGen(tables, projectId)
  const base = [projectId, gen]
  let range_: TimeRange = { since: query.since, until: query.until }
  let keep: ((entry: { sk: string; page: string }) => boolean) | undefined
  let scopes = query.pages ? query.pages.map((p) => pageScope(shortId(p))) : [ALL_SCOPE]
  if (query.sessionKey !== undefined) {
    // A session's friction is the project's within the span of the session's signals, filtered by session.
    const span = tables.derived.get([projectId, gen, 'ss', query.sessionKey]) as SessionRecordOfSignals | undefined
    if (!span) return { items: [] }
    range_ = { since: Math.max(query.since, span.from), until: Math.min(query.until, span.to + 1) }
    if (range_.since >= range_.until) return { items: [] }
    const sk = query.sessionKey
    const pages = query.pages ? new Set(query.pages) : undefined
    keep = (entry) => entry.sk === sk && (!pages || pages.has(entry.page))
    scopes = [ALL_SCOPE]
  }
  const want = query.limit + 1
  const items: FrictionItem[] = []

  for (const scope of scopes) {
    const prefix = [...base, 'fr', scope]
    const start = query.after ? [...prefix, query.after.ts, query.after.id] : [...prefix, range_.until]
    let taken = 0
    for (const { key, value } of range<FrictionRecord | null>(tables, start, [...prefix, range_.since], true)) {
      const [ts, id] = (key as (string | number)[]).slice(-2) as [number, string]
      if (ts >= range_.until) continue
      if (query.after && ts === query.after.ts && id === query.after.id) continue
      // Page scopes hold keys only; the record is the project scope's.
      const record = value ?? (tables.derived.get([...base, 'fr', ALL_SCOPE, ts, id]) as FrictionRecord | undefined)
      if (!record || (keep && !keep(record))) continue
      items.push(frictionItem(ts, id, record))
      if (++taken >= want) break
    }
  }

  for (const group of errorGroups(tables, base, scopes, range_, keep)) {
    if (!query.after || olderThan(group, query.after)) items.push(group)
  }

  items.sort((a, b) => (olderThan(a, b) ? 1 : olderThan(b, a) ? -1 : 0))
  const page = items.slice(0, query.limit)
  const last = page[page.length - 1]
  return items.length > query.limit ? { items: page, next: { ts: last.ts, id: last.id } } : { items: page }
}

function frictionItem(ts: number, id: string, record: FrictionRecord): FrictionItem {
  const { sk, ...rest } = record
  return { ...rest, ts, id, sessionKey: sk }
}

/**
 * JS errors grouped by message: one item per message that occurred in
 * [since, until), placed at its latest occurrence there (whose session the
 * item names), with the count and the first and last occurrence in the range.
 */
function errorGroups(tables: Tables, base: (string | number)[], scopes: string[], query: TimeRange, keep?: (occurrence: ErrorOccurrence) => boolean): FrictionItem[] {
  const groups = new Map<string, FrictionItem>()
  const merge = (msgId: string, message: string, count: number, first: number, last: { ts: number; occurrence: ErrorOccurrence }) => {
    const current = groups.get(msgId)
    if (!current) {
      groups.set(msgId, {
        kind: 'jsError', ts: last.ts, id: `e.${msgId}`, sessionKey: last.occurrence.sk, page: last.occurrence.page, url: last.occurrence.url,
        message, count, firstSeen: first, lastSeen: last.ts,
      })
      return
    }
    current.count! += count
    current.firstSeen = Math.min(current.firstSeen!, first)
    if (last.ts > current.ts) Object.assign(current, { ts: last.ts, lastSeen: last.ts, sessionKey: last.occurrence.sk, page: last.occurrence.page, url: last.occurrence.url })
  }

  for (const scope of scopes) {
    const registry = [...base, 'em', scope]
    for (const { key, value } of range<ErrorMessage>(tables, registry, [...registry, MAX_KEY_PART])) {
      const msgId = (key as string[])[registry.length]
      const occurrences = [...base, 'eo', scope, msgId]
      if (keep) {
        // One session's occurrences, within the span of its signals: few, counted one by one.
        let count = 0
        let first = Infinity
        let last: { ts: number; occurrence: ErrorOccurrence } | undefined
        for (const { key: k, value: occurrence } of range<ErrorOccurrence>(tables, [...occurrences, query.since], [...occurrences, query.until])) {
          if (!keep(occurrence)) continue
          const ts = (k as (string | number)[])[occurrences.length] as number
          count += 1
          first = Math.min(first, ts)
          last = { ts, occurrence }
        }
        if (last) merge(msgId, value.message, count, first, last)
        continue
      }
      const latest = firstOf(range<ErrorOccurrence | null>(tables, [...occurrences, query.until], [...occurrences, query.since], true, 1))
      if (!latest) continue
      const earliest = firstOf(range<ErrorOccurrence | null>(tables, [...occurrences, query.since], [...occurrences, query.until], false, 1))!
      const tsOf = (entry: Entry<unknown>) => (entry.key as (string | number)[])[occurrences.length] as number
      // Page scopes hold keys only; the occurrence is the project scope's.
      const [ts, id] = (latest.key as (string | number)[]).slice(-2)
      const occurrence = latest.value ?? (tables.derived.get([...base, 'eo', ALL_SCOPE, msgId, ts, id]) as ErrorOccurrence)
      merge(msgId, value.message, countErrors(tables, base, scope, msgId, query), tsOf(earliest), { ts: tsOf(latest), occurrence })
    }
  }
  return [...groups.values()]
}

function firstOf<T>(entries: Iterable<T>): T | undefined {
  for (const entry of entries) return entry
  return undefined
}

/** Occurrences in [since, until): whole hours from the hour counts, the partial hours at either end counted exactly. */
function countErrors(tables: Tables, base: (string | number)[], scope: string, msgId: string, { since, until }: TimeRange): number {
  const occurrences = [...base, 'eo', scope, msgId]
  const exact = (a: number, b: number) => (a >= b ? 0 : tables.derived.getKeysCount({ start: [...occurrences, a], end: [...occurrences, b] }))
  const firstFull = Math.ceil(since / HOUR_MS)
  const lastFull = Math.floor(until / HOUR_MS)
  if (firstFull >= lastFull) return exact(since, until)
  let count = exact(since, firstFull * HOUR_MS) + exact(lastFull * HOUR_MS, until)
  const hours = [...base, 'eh', scope, msgId]
  for (const { value } of range<number>(tables, [...hours, firstFull], [...hours, lastFull])) count += value
  return count
}

// ---- pages ----

export function pageInsights(tables: Tables, projectId: string, query: TimeRange): PageInsight[] {
  const base = [projectId, liveGen(tables, projectId)]
  const pages: PageInsight[] = []
  for (const page of derivedPages(tables, projectId)) {
    const b = sumPageBuckets(tables, base, shortId(page), query.since, query.until)
    if (b.v === 0 && b.s === 0 && b.cl === 0 && b.er === 0) continue
    const slash = page.indexOf('/')
    const ratio = (n: number, d: number) => (d === 0 ? null : round(n / d))
    pages.push({
      page,
      host: slash === -1 ? page : page.slice(0, slash),
      path: slash === -1 ? '/' : page.slice(slash),
      sessions: b.s,
      views: b.v,
      avgActiveMs: b.av === 0 ? null : Math.round(b.am / b.av),
      avgScrollPct: b.sv === 0 ? null : Math.round(b.sp / b.sv / 10) / 10,
      exitRate: ratio(b.ex, b.v),
      quickBackRate: ratio(b.qb, b.v),
      errors: b.er,
      clicks: b.cl,
    })
  }
  return pages.sort((a, b) => b.views - a.views || b.clicks - a.clicks || (a.page < b.page ? -1 : 1))
}

// ---- sessions ----

export function sessionSignals(tables: Tables, projectId: string, sk: string, gen = liveGen(tables, projectId)): SessionSignals {
  const record = tables.derived.get([projectId, gen, 'ss', sk]) as SessionRecordOfSignals | undefined
  if (!record) return emptySessionSignals()
  const { from: _from, to: _to, ...counts } = record
  return counts
}

export function durationOf(session: SessionRecord): number {
  return Math.max(0, session.lastTs - Math.min(session.startedAt, session.firstTs))
}

/**
 * Newest first by [startedAt, sk], a key no write ever moves: a cursor on it
 * neither skips nor repeats a session while ingest goes on. Filters are
 * applied as the index is read; at most SESSION_SCAN_BUDGET entries are
 * examined per call, so a selective filter answers a short page with a cursor
 * rather than scanning the whole project.
 */
export function sessionPage(tables: Tables, projectId: string, query: SessionListQuery): SessionListPage {
  const gen = liveGen(tables, projectId)
  const elements = query.selector !== undefined ? (query.pages ?? []).map((page) => elementIdOf(page, query.selector!)) : undefined
  const clicked = elements && fewClickedBy(tables, projectId, gen, elements)
  if (clicked) return clickedSessionPage(tables, projectId, gen, query, clicked)
  const start = query.after ? [projectId, query.after.startedAt, query.after.sk] : [projectId, query.until ?? MAX_KEY_PART]
  const end = query.since !== undefined ? [projectId, query.since] : [projectId]
  const pages = query.pages ? new Set(query.pages) : undefined
  const sessions: SessionListPage['sessions'] = []
  let scanned = 0
  let last: { startedAt: number; sk: string } | undefined
  for (const key of tables.sessionsByStart.getKeys({ start, end, reverse: true })) {
    const [, startedAt, sk] = key as [string, number, string]
    if (query.after && startedAt === query.after.startedAt && sk === query.after.sk) continue
    if (sessions.length === query.limit) return { sessions, next: last }
    if (++scanned > SESSION_SCAN_BUDGET) return { sessions, next: last }
    last = { startedAt, sk }
    if (elements && !elements.some((id) => tables.derived.doesExist([projectId, gen, 'es', id, sk]))) continue
    const match = matching(tables, projectId, gen, sk, query, pages)
    if (match) sessions.push(match)
  }
  return { sessions }
}

/** The session `sk` with its signal counts if it passes the query's filters (all but the time range and the element). */
function matching(tables: Tables, projectId: string, gen: number, sk: string, query: SessionListQuery, pages: Set<string> | undefined): SessionListPage['sessions'][number] | undefined {
  const session = tables.sessions.get([projectId, sk])
  if (!session) return undefined
  if (query.userId !== undefined && session.identity?.userId !== query.userId) return undefined
  if (query.accountId !== undefined && session.identity?.accountId !== query.accountId) return undefined
  if (query.minDurationMs !== undefined && durationOf(session) < query.minDurationMs) return undefined
  if (pages && !session.pages.some((p) => pages.has(p.page))) return undefined
  if (query.hasConsoleErrors !== undefined && (session.consoleErrors ?? 0) > 0 !== query.hasConsoleErrors) return undefined
  if (query.hasFailedRequests !== undefined && (session.failedRequests ?? 0) > 0 !== query.hasFailedRequests) return undefined
  const signals = sessionSignals(tables, projectId, sk, gen)
  if (query.hasErrors !== undefined && signals.errors > 0 !== query.hasErrors) return undefined
  if (query.hasRage !== undefined && signals.rage > 0 !== query.hasRage) return undefined
  return { session, signals }
}

/** Up to this many sessions that clicked an element are listed from the element's own index; more, and the time index is scanned with them as a filter. */
const CLICKED_DIRECT_MAX = 2_000

/** Keys of the sessions that clicked any of `elements`, if there are at most CLICKED_DIRECT_MAX of them. */
function fewClickedBy(tables: Tables, projectId: string, gen: number, elements: number[]): Set<string> | undefined {
  const sessions = new Set<string>()
  for (const id of elements) {
    const base = [projectId, gen, 'es', id]
    for (const key of tables.derived.getKeys({ start: base, end: [...base, MAX_KEY_PART] })) {
      sessions.add((key as Key[])[4] as string)
      if (sessions.size > CLICKED_DIRECT_MAX) return undefined
    }
  }
  return sessions
}

/** The list for an element clicked in few sessions: those sessions, in the list's order, without scanning the project. */
function clickedSessionPage(tables: Tables, projectId: string, gen: number, query: SessionListQuery, clicked: Set<string>): SessionListPage {
  const pages = query.pages ? new Set(query.pages) : undefined
  const before = (a: SessionPosition, b: SessionPosition) => a.startedAt - b.startedAt || (a.sk < b.sk ? -1 : a.sk > b.sk ? 1 : 0)
  const found: SessionListPage['sessions'] = []
  for (const sk of clicked) {
    const match = matching(tables, projectId, gen, sk, query, pages)
    if (!match) continue
    const { startedAt } = match.session
    if (query.since !== undefined && startedAt < query.since) continue
    if (query.until !== undefined && startedAt >= query.until) continue
    if (query.after && before({ startedAt, sk }, query.after) >= 0) continue
    found.push(match)
  }
  found.sort((a, b) => before(b.session, a.session))
  const sessions = found.slice(0, query.limit)
  const last = sessions.at(-1)?.session
  return found.length > query.limit && last ? { sessions, next: { startedAt: last.startedAt, sk: last.sk } } : { sessions }
}
