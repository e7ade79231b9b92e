/**
 * Reads of the aggregates (derived-keys.ts): the page list and page insights,
 * heatmaps, the element leaderboard. Each reads the live generation only, and
 * at most one bucket per page and hour of the range (30 days: 720 per page).
 * The friction feed is in friction-queries.ts, the session list in
 * session-queries.ts.
 */
import {
  HEAT_X_BINS,
  HEAT_Y_BINS,
  SCROLL_STEPS,
  hoursOf,
  type ClickHeatmap,
  type ElementRow,
  type ElementsQuery,
  type HeatmapQuery,
  type PageInsight,
  type ScrollHeatmap,
  type TimeRange,
} from '../insights.js'
import { shortId } from '../aggregates/ids.js'
import { ALL_SLOTS, DEVICE_SLOT, type DeviceSlot } from '../aggregates/slots.js'
import { byViews, emptyPageBucket, pageInsightOf, round, type PageBucket } from '../aggregates/views.js'
import {
  ALL_SCOPE,
  ELEMENT_FIELDS,
  decodeHistogram,
  decodePairs,
  decodeRecords,
  liveGen,
  range,
  type Entry,
  pageScope,
  type ElementName,
  type StoredPageBucket,
} from './derived-keys.js'
import type { PageSlice } from '../records.js'
import type { Tables } from './tables.js'
import { MAX_KEY_PART } from './keys.js'

/** Page keys of the live generation (every page any signal landed on), by page id; or a slice of them. */
export function derivedPages(tables: Tables, projectId: string, slice?: PageSlice): string[] {
  const base = [projectId, liveGen(tables, projectId), 'pg']
  const start = slice?.after === undefined ? base : [...base, shortId(slice.after)]
  const keys = Array.from(range<{ key: string }>(tables, start, [...base, MAX_KEY_PART], false, slice && slice.limit + 1), ({ value }) => value.key)
  // The range starts at `after` itself, which the slice before ended on.
  if (slice?.after !== undefined && keys[0] === slice.after) keys.shift()
  return slice ? keys.slice(0, slice.limit) : keys
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

export function pageInsights(tables: Tables, projectId: string, query: TimeRange & { pages?: readonly string[] }): PageInsight[] {
  const base = [projectId, liveGen(tables, projectId)]
  const pages: PageInsight[] = []
  for (const page of query.pages ?? derivedPages(tables, projectId)) {
    const row = pageInsightOf(page, sumPageBuckets(tables, base, shortId(page), query.since, query.until))
    if (row) pages.push(row)
  }
  return pages.sort(byViews)
}
