/**
 * How a view counts in its page's hour bucket. A tracker may send a view
 * more than once as it learns more (active time, scroll depth, exit); the
 * copies merge into one view, and the bucket holds the merged view's
 * contribution: a new copy withdraws the old contribution and adds the new.
 */
import { clampTime, hourOf, SCROLL_STEPS, scrollStep } from '../insights.js'
import type { PageInsight } from '../insights.js'
import type { View } from '../records.js'
import { OTHER_PAGE } from './pages.js'
import { slotOf, type DeviceSlot } from './slots.js'

/** What a page's views, clicks and errors add up to in one hour (or day). */
export interface PageBucket {
  /** views, sessions, activeMs sum, views with activeMs, scroll depth sum (hundredths of a percent), views with a depth, exits, quick backs, JS errors, clicks */
  v: number
  s: number
  am: number
  av: number
  sp: number
  sv: number
  ex: number
  qb: number
  er: number
  cl: number
  /** Scroll-depth histogram per device slot: views whose deepest scroll was each whole percent. */
  sh: Partial<Record<DeviceSlot, number[]>>
}

export function emptyPageBucket(): PageBucket {
  return { v: 0, s: 0, am: 0, av: 0, sp: 0, sv: 0, ex: 0, qb: 0, er: 0, cl: 0, sh: {} }
}

/** Adds every numeric field of `delta` to `target`. */
export function addCounts<T extends object>(target: T, delta: Partial<T>): void {
  const sums = target as Record<string, number>
  const adds = delta as Record<string, number>
  for (const field in adds) sums[field] += adds[field]
}

/** A view as merged from every copy received; each field merges commutatively, so the order copies arrive in does not matter. */
export interface ViewState {
  /** Clamped start: the earliest of the copies. */
  at: number
  /** The page the view was first counted under: rules may change between copies. */
  page: string
  vw?: number
  activeMs?: number
  maxScrollPct?: number
  exit?: boolean
  quickBack?: boolean
}

export function mergeView(before: ViewState | undefined, view: View, page: string, receivedAt: number): ViewState {
  const at = clampTime(view.startedAt, receivedAt)
  const max = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.max(a, b))
  const merged: ViewState = {
    at: before ? Math.min(before.at, at) : at,
    page: before?.page ?? page,
  }
  const vw = max(before?.vw, view.vw)
  const activeMs = max(before?.activeMs, view.activeMs)
  const maxScrollPct = max(before?.maxScrollPct, view.maxScrollPct)
  if (vw !== undefined) merged.vw = vw
  if (activeMs !== undefined) merged.activeMs = activeMs
  if (maxScrollPct !== undefined) merged.maxScrollPct = maxScrollPct
  if (before?.exit || view.exit) merged.exit = true
  if (before?.quickBack || view.quickBack) merged.quickBack = true
  return merged
}

/** Whether two merged states count the same: a copy that changes nothing changes no aggregate. */
export function sameView(a: ViewState, b: ViewState): boolean {
  return a.at === b.at && a.vw === b.vw && a.activeMs === b.activeMs && a.maxScrollPct === b.maxScrollPct && a.exit === b.exit && a.quickBack === b.quickBack
}

/** The hour bucket a view counts in: the hour of its (clamped) start. */
export const viewHour = (view: ViewState): number => hourOf(view.at)

/** Adds (sign 1) or withdraws (sign -1) what a view counts for in its page's bucket. */
export function contributeView(bucket: PageBucket, view: ViewState, sign: 1 | -1): void {
  bucket.v += sign
  if (view.activeMs !== undefined) {
    bucket.am += sign * view.activeMs
    bucket.av += sign
  }
  if (view.maxScrollPct !== undefined) {
    // In hundredths of a percent: integer sums stay exact through any number of withdrawals.
    bucket.sp += sign * Math.round(view.maxScrollPct * 100)
    bucket.sv += sign
    const histogram = (bucket.sh[slotOf(view.vw)] ??= new Array<number>(SCROLL_STEPS).fill(0))
    histogram[scrollStep(view.maxScrollPct)] += sign
  }
  if (view.exit) bucket.ex += sign
  if (view.quickBack) bucket.qb += sign
}

/**
 * Sessions per page are counted once, in the hour of the session's first
 * view of the page. Given the hour counted so far (undefined: none) and a
 * view's hour, answers whether the count moves to the view's hour.
 */
export const movesFirstView = (countedHour: number | undefined, hour: number): boolean => countedHour === undefined || hour < countedHour

/** Rates and shares are answered to four decimals: finer than any chart shows, and equal whichever backend summed them. */
export const round = (x: number): number => Math.round(x * 10_000) / 10_000

/** A page's row of the page insights, from its buckets summed over the range; undefined for a page with nothing in it. */
export function pageInsightOf(page: string, b: Omit<PageBucket, 'sh'>): PageInsight | undefined {
  if (b.v === 0 && b.s === 0 && b.cl === 0 && b.er === 0) return undefined
  // (other), the pages past the cap (pages.ts), has no host and shows as itself.
  const slash = page === OTHER_PAGE ? 0 : page.indexOf('/')
  const ratio = (n: number, d: number) => (d === 0 ? null : round(n / d))
  return {
    page,
    host: slash === -1 ? page : page.slice(0, slash),
    path: page === OTHER_PAGE ? OTHER_PAGE : slash === -1 ? '/' : page.slice(slash),
    sessions: b.s,
    views: b.v,
    avgActiveMs: b.av === 0 ? null : Math.round(b.am / b.av),
    avgScrollPct: b.sv === 0 ? null : Math.round(b.sp / b.sv / 10) / 10,
    exitRate: ratio(b.ex, b.v),
    quickBackRate: ratio(b.qb, b.v),
    errors: b.er,
    clicks: b.cl,
  }
}

/** Most viewed pages first, then most clicked, then by key. */
export const byViews = (a: PageInsight, b: PageInsight): number => b.views - a.views || b.clicks - a.clicks || (a.page < b.page ? -1 : 1)
