/** Heatmaps, the element leaderboard, the friction feed and page insights over the in-memory aggregates (derived.ts), answered as the LMDB store answers them. */
import {
  HEAT_X_BINS,
  hoursOf,
  SCROLL_STEPS,
  type ClickHeatmap,
  type ElementRow,
  type ElementsQuery,
  type FrictionItem,
  type FrictionSlice,
  type FrictionPosition,
  type FrictionQuery,
  type HeatmapQuery,
  type PageInsight,
  type ScrollHeatmap,
  type TimeRange,
} from '../insights.js'
import { ALL_SLOTS, DEVICE_SLOT } from '../aggregates/slots.js'
import { byViews, emptyPageBucket, pageInsightOf, round, type PageBucket } from '../aggregates/views.js'
import { ALL, pageScope, type Derived } from './derived.js'

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The entries of an hourly map whose hour a [since, until) range reads. */
function* inRange<V>(hourly: Map<number, V> | undefined, range: TimeRange): Iterable<V> {
  const { from, to } = hoursOf(range.since, range.until)
  for (const [hour, value] of hourly ?? []) if (hour >= from && hour < to) yield value
}

function pageTotals(derived: Derived, page: string, range: TimeRange): PageBucket {
  const total = emptyPageBucket()
  for (const bucket of inRange(derived.buckets.get(page), range)) {
    const { sh, ...counts } = bucket
    for (const field of Object.keys(counts) as (keyof typeof counts)[]) total[field] += counts[field]
    for (const [slot, histogram] of Object.entries(sh)) {
      const sum = (total.sh[slot as keyof typeof sh] ??= new Array<number>(SCROLL_STEPS).fill(0))
      histogram.forEach((n, i) => (sum[i] += n))
    }
  }
  return total
}

export function heatmap(derived: Derived, query: HeatmapQuery): ClickHeatmap | ScrollHeatmap {
  const slots = query.device ? [DEVICE_SLOT[query.device]] : ALL_SLOTS
  if (query.kind === 'scroll') {
    const histogram = new Array<number>(SCROLL_STEPS).fill(0)
    for (const page of query.pages) {
      const { sh } = pageTotals(derived, page, query)
      for (const slot of slots) sh[slot]?.forEach((n, i) => (histogram[i] += n))
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
  const grid = new Map<number, number>()
  for (const page of query.pages) {
    for (const bySlot of inRange(derived.heatOf(query.kind, page), query)) {
      for (const slot of slots) for (const [bin, n] of bySlot[slot] ?? []) grid.set(bin, (grid.get(bin) ?? 0) + n)
    }
  }
  const cells = [...grid].sort(([a], [b]) => a - b).map(([bin, n]): [number, number, number] => [bin % HEAT_X_BINS, Math.floor(bin / HEAT_X_BINS), n])
  return { kind: query.kind, total: cells.reduce((sum, cell) => sum + cell[2], 0), maxCount: cells.reduce((max, cell) => Math.max(max, cell[2]), 0), cells }
}

export function topElements(derived: Derived, query: ElementsQuery): ElementRow[] {
  const counts = new Map<number, { clicks: number; rage: number; dead: number; errors: number }>()
  for (const scope of query.pages ? query.pages.map(pageScope) : [ALL]) {
    for (const bucket of inRange(derived.elements.get(scope), query)) {
      for (const [id, add] of bucket) {
        const sum = counts.get(id) ?? { clicks: 0, rage: 0, dead: 0, errors: 0 }
        sum.clicks += add.clicks
        sum.rage += add.rage
        sum.dead += add.dead
        sum.errors += add.errors
        counts.set(id, sum)
      }
    }
  }
  const rows = [...counts].map(([id, sum]) => {
    const name = derived.names.get(id)
    const row: ElementRow = { page: name?.page ?? '', selector: name?.selector ?? '', ...sum, share: 0 }
    if (name?.label !== undefined) row.label = name.label
    if (name?.tag !== undefined) row.tag = name.tag
    return row
  })
  const top = rows
    .sort((a, b) => b.clicks - a.clicks || b.rage - a.rage || b.dead - a.dead || b.errors - a.errors || compare(a.page, b.page) || compare(a.selector, b.selector))
    .slice(0, query.limit)
  for (const row of top) {
    const clicks = pageTotals(derived, row.page, query).cl
    row.share = clicks === 0 ? 0 : round(row.clicks / clicks)
  }
  return top
}

const olderThan = (a: FrictionPosition, b: FrictionPosition) => a.ts < b.ts || (a.ts === b.ts && a.id < b.id)

export function friction(derived: Derived, query: FrictionQuery): FrictionSlice {
  let range: TimeRange = { since: query.since, until: query.until }
  const pages = query.pages ? new Set(query.pages) : undefined
  if (query.sessionKey !== undefined) {
    // A session's friction is the project's within the span of the session's signals, as the LMDB store reads it.
    const span = derived.sessions.get(query.sessionKey)
    if (!span) return { items: [] }
    range = { since: Math.max(query.since, span.from), until: Math.min(query.until, span.to + 1) }
    if (range.since >= range.until) return { items: [] }
  }
  const keep = (entry: { ts: number; sk: string; page: string }) =>
    entry.ts >= range.since && entry.ts < range.until && (!pages || pages.has(entry.page)) && (query.sessionKey === undefined || entry.sk === query.sessionKey)
  const items: FrictionItem[] = []
  for (const { ts, id, record } of derived.friction.values()) {
    if (!keep({ ts, ...record })) continue
    const { sk, ...rest } = record
    items.push({ ...rest, ts, id, sessionKey: sk })
  }
  const groups = new Map<string, FrictionItem>()
  for (const occurrence of derived.errors) {
    if (!keep(occurrence)) continue
    const group = groups.get(occurrence.msgId)
    const latest = { ts: occurrence.ts, lastSeen: occurrence.ts, sessionKey: occurrence.sk, page: occurrence.page, url: occurrence.url }
    if (!group) {
      groups.set(occurrence.msgId, { kind: 'jsError', id: `e.${occurrence.msgId}`, message: occurrence.message, count: 1, firstSeen: occurrence.ts, ...latest })
      continue
    }
    group.count! += 1
    group.firstSeen = Math.min(group.firstSeen!, occurrence.ts)
    if (occurrence.ts > group.ts) Object.assign(group, latest)
  }
  items.push(...groups.values())
  const after = query.after
  const listed = items.filter((item) => !after || olderThan(item, after)).sort((a, b) => (olderThan(a, b) ? 1 : olderThan(b, a) ? -1 : 0))
  const page = listed.slice(0, query.limit)
  const last = page.at(-1)
  return listed.length > query.limit && last ? { items: page, next: { ts: last.ts, id: last.id } } : { items: page }
}

export function pageInsights(derived: Derived, query: TimeRange & { pages?: readonly string[] }): PageInsight[] {
  const insights: PageInsight[] = []
  for (const page of query.pages?.filter((p) => derived.pages.has(p)) ?? derived.pageKeys()) {
    const row = pageInsightOf(page, pageTotals(derived, page, query))
    if (row) insights.push(row)
  }
  return insights.sort(byViews)
}
