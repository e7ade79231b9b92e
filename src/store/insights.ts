/**
 * What the aggregates behind heatmaps, the element leaderboard, the friction
 * feed and the page list are, independent of any storage: the bins, the
 * device classes, the hour buckets, the clamp on client times, and the shapes
 * of the queries and answers. Every store implementation keeps its
 * aggregates by these definitions, and the property test recounts raw signals
 * with them.
 */
import type { CompiledRule } from '../grouping/rules.js'
import { READ_LIMITS, type ReadBudget } from './read-budget.js'
import type { SessionRecord } from './records.js'

/** Aggregates are kept per page and per hour, so 30 days read at most 720 buckets per page. */
export const HOUR_MS = 60 * 60 * 1000

/**
 * Heatmap resolution: 144 columns of the viewport width (one per 10 CSS px of
 * a 1440 px-wide page, the width the dashboard draws at) by rows of 10
 * document px. A heatmap drawn with the usual 20-30 px blur radius looks
 * smooth at that grain; finer bins would only cost storage.
 */
export const HEAT_X_BINS = 144
export const HEAT_Y_BIN_PX = 10
/** Clicks deeper than this (infinite-scroll pages) land in the last row. */
export const HEAT_MAX_Y_PX = 50_000
export const HEAT_Y_BINS = HEAT_MAX_Y_PX / HEAT_Y_BIN_PX

/** Scroll depth is kept per whole percent (0 to 100). */
export const SCROLL_STEPS = 101

/**
 * Device classes from the viewport width, at the 768 px and 1024 px
 * breakpoints most CSS frameworks use (Bootstrap `md`/`lg`, Tailwind
 * `md`/`lg`). Entries without a width are counted in no class but in the total.
 */
export type Device = 'mobile' | 'tablet' | 'desktop'
export const DEVICES: readonly Device[] = ['mobile', 'tablet', 'desktop']
export const TABLET_MIN_PX = 768
export const DESKTOP_MIN_PX = 1024

export function deviceOf(viewportWidth: number | undefined): Device | undefined {
  if (viewportWidth === undefined || !(viewportWidth > 0)) return undefined
  if (viewportWidth < TABLET_MIN_PX) return 'mobile'
  return viewportWidth < DESKTOP_MIN_PX ? 'tablet' : 'desktop'
}

/** The heat bin of a click: row-major, `yBin * HEAT_X_BINS + xBin`. */
export function heatBin(xRatio: number, yDoc: number): number {
  const x = Math.min(HEAT_X_BINS - 1, Math.max(0, Math.floor(xRatio * HEAT_X_BINS)))
  const y = Math.min(HEAT_Y_BINS - 1, Math.max(0, Math.floor(yDoc / HEAT_Y_BIN_PX)))
  return y * HEAT_X_BINS + x
}

export function scrollStep(maxScrollPct: number): number {
  return Math.min(SCROLL_STEPS - 1, Math.max(0, Math.floor(maxScrollPct)))
}

export function hourOf(ts: number): number {
  return Math.floor(ts / HOUR_MS)
}

/**
 * Client times (click `ts`, view `startedAt`, error `ts`) are clamped into
 * [receivedAt - 24 h, receivedAt + 5 min], the window the contract applies to
 * a batch's `startedAt` (LIMITS.clampPastMs / clampFutureMs): one client with
 * a wrong clock cannot place its signals years away.
 */
export const CLAMP_PAST_MS = 24 * 60 * 60 * 1000
export const CLAMP_FUTURE_MS = 5 * 60 * 1000

export function clampTime(ts: number, receivedAt: number): number {
  return Math.min(Math.max(ts, receivedAt - CLAMP_PAST_MS), receivedAt + CLAMP_FUTURE_MS)
}

/**
 * Hours a [since, until) query reads: every hour that overlaps it. Aggregates
 * have hour resolution, so since is rounded down and until up to whole hours.
 */
export function hoursOf(since: number, until: number): { from: number; to: number } {
  return { from: hourOf(since), to: Math.ceil(until / HOUR_MS) }
}

/**
 * Elements are capped per hour bucket so that one page with generated
 * selectors cannot grow a bucket without bound; clicks beyond the cap count
 * under this selector.
 */
export const ELEMENTS_PER_BUCKET = 2000
export const OTHER_ELEMENTS = '(other)'

// ---- queries and answers ----

export interface TimeRange {
  since: number
  until: number
}

export type HeatKind = 'click' | 'rage' | 'dead' | 'scroll'

export interface HeatmapQuery extends TimeRange {
  /** Page keys to merge (a display path can name the same path on several hosts). */
  pages: string[]
  kind: HeatKind
  device?: Device
}

export interface ClickHeatmap {
  kind: 'click' | 'rage' | 'dead'
  total: number
  maxCount: number
  /** [xBin, yBin, count], bins with a count only, row by row. */
  cells: [number, number, number][]
}

export interface ScrollHeatmap {
  kind: 'scroll'
  /** Views that reported a scroll depth. */
  views: number
  /** Share of those views that reached each depth, 0 to 1 (the index is the depth, 0 to 100 percent). */
  reached: number[]
}

export interface ElementsQuery extends TimeRange {
  /** Page keys; absent for the whole project. */
  pages?: string[]
  limit: number
}

export interface ElementRow {
  page: string
  selector: string
  label?: string
  tag?: string
  clicks: number
  rage: number
  dead: number
  errors: number
  /** This element's clicks over all clicks of its page in the range, 0 to 1. */
  share: number
}

export type FrictionKind = 'rage' | 'dead' | 'errorClick' | 'quickBack' | 'jsError'

export interface FrictionQuery extends TimeRange {
  pages?: string[]
  sessionKey?: string
  limit: number
  /** Where the previous page stopped: items strictly older than it. */
  after?: FrictionPosition
}

export interface FrictionPosition {
  ts: number
  id: string
}

export interface FrictionItem {
  kind: FrictionKind
  /** Epoch ms: when it happened (for a JS error group, its latest occurrence in the range). */
  ts: number
  /** Stable identity of the item, the tie-break of the order. */
  id: string
  sessionKey: string
  page: string
  url: string
  selector?: string
  label?: string
  tag?: string
  xRatio?: number
  yDoc?: number
  /** Rage clicks: repeats collapsed into this one. */
  n?: number
  /** JS error groups. */
  message?: string
  count?: number
  firstSeen?: number
  lastSeen?: number
}

export interface FrictionSlice {
  items: FrictionItem[]
  /** Position of the last item when more may follow. */
  next?: FrictionPosition
}

export interface PageInsight {
  page: string
  host: string
  path: string
  /** Distinct sessions whose first view of the page falls in the range. */
  sessions: number
  views: number
  avgActiveMs: number | null
  avgScrollPct: number | null
  exitRate: number | null
  quickBackRate: number | null
  errors: number
  clicks: number
}

/** Per-session signal counts, for the session list. */
export interface SessionSignals {
  views: number
  activeMs: number
  clicks: number
  rage: number
  dead: number
  errorClicks: number
  errors: number
  quickBacks: number
}

export function emptySessionSignals(): SessionSignals {
  return { views: 0, activeMs: 0, clicks: 0, rage: 0, dead: 0, errorClicks: 0, errors: 0, quickBacks: 0 }
}

/** A search by what happened (aggregates/search.ts), prepared once per request: each present test must find something. */
export interface FindQuery {
  /** The path pattern a visited path (pathOfUrl's form) matches: data, so that a search can run in a read thread (src/control/read-pool.ts). */
  visited?: CompiledRule
  /** Lowercased: in an element's label or selector. */
  clicked?: string
  /** Lowercased: in an error's message. */
  error?: string
  /** Lowercased: in a console error's or warning's text. */
  console?: string
  /** Lowercased: in a failed request's `METHOD url status`. */
  request?: string
  /** Lowercased: in the origin of the site the session came from. */
  referrer?: string
}

export type MatchKind = 'visit' | 'click' | 'error' | 'console' | 'request' | 'referrer'

export interface FoundMoment {
  ts: number
  kind: MatchKind
  label: string
}

export interface SessionListQuery {
  since?: number
  until?: number
  /** Page keys: sessions that viewed any of them. */
  pages?: string[]
  /** With `pages`: sessions that clicked the element with this selector on one of them (the element leaderboard's rows). */
  selector?: string
  userId?: string
  accountId?: string
  minDurationMs?: number
  hasErrors?: boolean
  hasRage?: boolean
  hasConsoleErrors?: boolean
  hasFailedRequests?: boolean
  /** Sessions on this device class (the recording's viewport, else the first view's). */
  device?: Device
  /** Search by what happened (aggregates/search.ts): each present test must find something; results carry what matched. */
  find?: FindQuery
  limit: number
  /** Where the previous page stopped: sessions strictly after it in the order (newest first). */
  after?: SessionPosition
  /** What the call may cost (read-budget.ts); READ_LIMITS when absent. Past it the page ends with a cursor. */
  budget?: ReadBudget
}

export interface SessionListSlice {
  /** `moments`: with a search (`find`), every moment that matched, in time order. */
  sessions: { session: SessionRecord; signals: SessionSignals; moments?: FoundMoment[] }[]
  /** Where to go on from, when more may follow. */
  next?: SessionPosition
}

export interface SessionPosition {
  startedAt: number
  sk: string
}

/**
 * Index entries a filtered list examines per call at most: a page can then be
 * short, even empty, with a cursor to go on. 2,000 keeps a call near 10 ms
 * (about 4 µs per session examined; bench/read-results.md).
 */
export const SESSION_SCAN_BUDGET = READ_LIMITS.entries
