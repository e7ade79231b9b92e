/**
 * The overview (issue 35): per-session figures kept by the hour of the
 * session's start and its device, so that a month of a project with a million
 * sessions is read from a few hundred precomputed buckets, never by scanning
 * sessions.
 *
 * A unit is a session in a scope: the whole project, or one page (the
 * session's views, clicks and errors on that page). Each unit keeps its own
 * counts; what it adds to its bucket is a function of them (one session, its
 * views, active time and scroll, and 1 for each kind of friction it has at
 * least once), so a batch that changes a unit withdraws the unit's old
 * contribution and adds the new one, the way a resent view does (views.ts).
 *
 * A unit counts in the hour its session started, as the first batch that
 * names it says (the tracker's session start, clamped like every client
 * time), and in the device class of the first viewport width that batch
 * carries; a page's unit takes both from its session's project unit, so the
 * figures of a page never disagree with the project's on when or what device.
 */
import { clampTime, hourOf, HOUR_MS, type Device, type FrictionKind } from '../insights.js'
import type { SignalsRecord } from '../records.js'
import type { ClickKind } from './clicks.js'
import { round } from './views.js'
import { slotOf, type DeviceSlot } from './slots.js'
import { estimate } from './visitors.js'

/** The counts a bucket keeps, at these indexes of a Float64Array (sums of a month of activeMs pass 2^32). */
export const SESSIONS = 0
const VIEWS = 1
const ACTIVE_MS = 2
/** Sum of the views' deepest scroll, in hundredths of a percent (integers stay exact through withdrawals). */
const SCROLL_SUM = 3
const SCROLL_VIEWS = 4
/** Sessions with at least one of each friction kind. */
const FRICTION_AT: Record<FrictionKind, number> = { rage: 5, dead: 6, errorClick: 7, quickBack: 8, jsError: 9 }
export const COUNT_FIELDS = 10
export const frictionIndex = (kind: FrictionKind): number => FRICTION_AT[kind]
export const FRICTION_KINDS: readonly FrictionKind[] = ['rage', 'dead', 'errorClick', 'quickBack', 'jsError']

/** What a unit has gathered so far. */
export interface UnitCounts {
  v: number
  am: number
  sp: number
  sv: number
  rage: number
  dead: number
  errorClick: number
  quickBack: number
  jsError: number
}

export interface UnitState extends UnitCounts {
  /** Hour of the session's start. */
  h: number
  d: DeviceSlot
}

export const emptyUnitCounts = (): UnitCounts => ({ v: 0, am: 0, sp: 0, sv: 0, rage: 0, dead: 0, errorClick: 0, quickBack: 0, jsError: 0 })

/** Where a session's units count: from the first batch that names it. */
export function placeOf(batch: SignalsRecord, receivedAt: number): { h: number; d: DeviceSlot } {
  let start = batch.startedAt
  if (start === undefined) {
    // No session start (an older tracker): the earliest entry of the batch, else its receipt.
    const times = [...batch.views.map((v) => v.startedAt), ...batch.clicks.map((c) => c.ts), ...batch.errors.map((e) => e.ts)]
    start = times.length > 0 ? Math.min(...times) : receivedAt
  }
  const vw = batch.views.find((v) => v.vw !== undefined)?.vw ?? batch.clicks.find((c) => c.vw !== undefined)?.vw
  return { h: hourOf(clampTime(start, receivedAt)), d: slotOf(vw) }
}

/** A click in a unit's counts: friction kinds only (plain clicks are not an overview figure). */
export function countUnitClick(counts: UnitCounts, kind: ClickKind): void {
  if (kind === 'rage') counts.rage += 1
  else if (kind === 'dead') counts.dead += 1
  else if (kind === 'error') counts.errorClick += 1
}

/** What a merged view's change adds to a unit (views.ts's ViewState before and after the copy). */
export function countUnitView(
  counts: UnitCounts,
  before: { activeMs?: number; maxScrollPct?: number; quickBack?: boolean } | undefined,
  after: { activeMs?: number; maxScrollPct?: number; quickBack?: boolean },
): void {
  if (!before) counts.v += 1
  counts.am += (after.activeMs ?? 0) - (before?.activeMs ?? 0)
  const scroll = (pct: number | undefined) => (pct === undefined ? 0 : Math.round(pct * 100))
  counts.sp += scroll(after.maxScrollPct) - scroll(before?.maxScrollPct)
  counts.sv += (after.maxScrollPct !== undefined ? 1 : 0) - (before?.maxScrollPct !== undefined ? 1 : 0)
  if (after.quickBack && !before?.quickBack) counts.quickBack += 1
}

export function addUnitCounts(into: UnitCounts, add: UnitCounts): void {
  for (const field of Object.keys(add) as (keyof UnitCounts)[]) into[field] += add[field]
}

/** What a unit adds to its bucket. */
export function contributionOf(unit: UnitCounts): Float64Array {
  const out = new Float64Array(COUNT_FIELDS)
  out[SESSIONS] = 1
  out[VIEWS] = unit.v
  out[ACTIVE_MS] = unit.am
  out[SCROLL_SUM] = unit.sp
  out[SCROLL_VIEWS] = unit.sv
  for (const kind of FRICTION_KINDS) out[FRICTION_AT[kind]] = unit[kind] > 0 ? 1 : 0
  return out
}

/**
 * Adds `delta` to a unit (`before`: as kept; none: a new unit placed at
 * `place`). Answers the unit after, and what its bucket gains (negative
 * fields: withdrawn); `isNew` says the session's visitor joins the bucket.
 */
export function applyToUnit(before: UnitState | undefined, delta: UnitCounts, place: { h: number; d: DeviceSlot }): { after: UnitState; gain: Float64Array; isNew: boolean } {
  const after: UnitState = before ? { ...before } : { ...emptyUnitCounts(), ...place }
  addUnitCounts(after, delta)
  const gain = contributionOf(after)
  if (before) {
    const old = contributionOf(before)
    for (let i = 0; i < COUNT_FIELDS; i++) gain[i] -= old[i]
  }
  return { after, gain, isNew: !before }
}

export function addInto(into: Float64Array, add: ArrayLike<number>): void {
  for (let i = 0; i < COUNT_FIELDS; i++) into[i] += add[i]
}

// ---- queries and answers ----

export type OverviewBucket = 'hour' | 'day'
export const DAY_HOURS = 24

export interface OverviewQuery {
  /** Whole hours, or whole UTC days with bucket `day` (the operation rounds them out). */
  since: number
  until: number
  bucket: OverviewBucket
  device?: Device
  /** Page keys: the overview of sessions on these pages. */
  pages?: readonly string[]
  /** Pages per friction kind in `topPages`. */
  top: number
}

export type MetricId = 'sessions' | 'visitors' | 'pagesPerSession' | 'activeMs' | 'scrollPct' | FrictionKind
export const METRICS: readonly MetricId[] = ['sessions', 'visitors', 'pagesPerSession', 'activeMs', 'scrollPct', ...FRICTION_KINDS]
/** Shares compare by their difference; counts and averages by the relative change. */
const SHARES = new Set<MetricId>(FRICTION_KINDS)

export interface Metric {
  value: number | null
  previous: number | null
  /** Relative change (0.1: 10% more) for counts and averages; the difference for shares (0.01: one point more); null without a previous value. */
  change: number | null
}

export interface TopPage {
  page: string
  /** Sessions with activity on the page. */
  sessions: number
  /** Of those, sessions with this kind of friction on the page. */
  withFriction: number
  share: number
}

export interface Overview {
  since: number
  until: number
  bucket: OverviewBucket
  previous: { since: number; until: number }
  metrics: Record<MetricId, Metric>
  /** `t`: each bucket's start (epoch ms); every metric a value per bucket (null where it has no sessions). */
  series: { t: number[] } & Record<MetricId, (number | null)[]>
  topPages: Record<FrictionKind, TopPage[]>
}

/** Summed counts and merged visitor registers of some buckets. */
export interface Totals {
  counts: Float64Array
  registers: Uint8Array
}

/** What a backend reads for the overview. `scopes` are the backend's own names of the project scope or some pages. */
export interface OverviewSource {
  /** The totals of each step of `step` hours from `from` to `to` (hours since the epoch; `to - from` a multiple of `step`). */
  steps(scopes: readonly string[], from: number, to: number, step: number, slots: readonly DeviceSlot[]): Totals[]
  /** The totals of [from, to) for each page of the project (or of `pages` when given), with their page keys. */
  pageTotals(pages: readonly string[] | undefined, from: number, to: number, slots: readonly DeviceSlot[]): { page: string; totals: Totals }[]
  /** The backend's scopes of the project or of `pages`. */
  scopesOf(pages: readonly string[] | undefined): string[]
}

export function figuresOf(counts: ArrayLike<number>, visitors: number): Record<MetricId, number | null> {
  const sessions = counts[SESSIONS]
  const per = (n: number) => (sessions > 0 ? round(n / sessions) : null)
  const figures = {
    sessions,
    visitors,
    pagesPerSession: per(counts[VIEWS]),
    activeMs: sessions > 0 ? Math.round(counts[ACTIVE_MS] / sessions) : null,
    scrollPct: counts[SCROLL_VIEWS] > 0 ? Math.round(counts[SCROLL_SUM] / counts[SCROLL_VIEWS] / 10) / 10 : null,
  } as Record<MetricId, number | null>
  for (const kind of FRICTION_KINDS) figures[kind] = per(counts[FRICTION_AT[kind]])
  return figures
}

const sumOf = (steps: Totals[]): Totals => {
  const counts = new Float64Array(COUNT_FIELDS)
  const registers = new Uint8Array(steps[0]?.registers.length ?? 0)
  for (const step of steps) {
    addInto(counts, step.counts)
    for (let i = 0; i < registers.length; i++) if (step.registers[i] > registers[i]) registers[i] = step.registers[i]
  }
  return { counts, registers }
}

const DEVICE_SLOTS: Record<Device, DeviceSlot> = { mobile: 'm', tablet: 't', desktop: 'd' }
const ALL: readonly DeviceSlot[] = ['m', 't', 'd', 'u']

/** The overview from a backend's buckets: the same assembly for every store. */
export function assembleOverview(source: OverviewSource, query: OverviewQuery): Overview {
  const step = query.bucket === 'day' ? DAY_HOURS : 1
  const from = Math.floor(query.since / HOUR_MS / step) * step
  const to = Math.ceil(query.until / HOUR_MS / step) * step
  const length = to - from
  const slots = query.device ? [DEVICE_SLOTS[query.device]] : ALL
  const scopes = source.scopesOf(query.pages)
  const now = source.steps(scopes, from, to, step, slots)
  const before = sumOf(source.steps(scopes, from - length, from, length, slots))
  const total = sumOf(now)
  const current = figuresOf(total.counts, estimate(total.registers))
  const previous = figuresOf(before.counts, estimate(before.registers))
  const metrics = {} as Record<MetricId, Metric>
  for (const id of METRICS) metrics[id] = { value: current[id], previous: previous[id], change: changeOf(id, current[id], previous[id]) }
  const series = { t: now.map((_, i) => (from + i * step) * HOUR_MS) } as Overview['series']
  const points = now.map((s) => figuresOf(s.counts, estimate(s.registers)))
  for (const id of METRICS) series[id] = points.map((p) => p[id])
  return {
    since: from * HOUR_MS,
    until: to * HOUR_MS,
    bucket: query.bucket,
    previous: { since: (from - length) * HOUR_MS, until: from * HOUR_MS },
    metrics,
    series,
    topPages: topPagesOf(source.pageTotals(query.pages, from, to, slots), query.top),
  }
}

function changeOf(id: MetricId, value: number | null, previous: number | null): number | null {
  if (value === null || previous === null) return null
  if (SHARES.has(id)) return round(value - previous)
  return previous === 0 ? null : round((value - previous) / previous)
}

/** Per friction kind, the pages with the most sessions that had it there; ties by sessions, then key. */
function topPagesOf(pages: { page: string; totals: Totals }[], top: number): Record<FrictionKind, TopPage[]> {
  const answer = {} as Record<FrictionKind, TopPage[]>
  for (const kind of FRICTION_KINDS) {
    const at = FRICTION_AT[kind]
    answer[kind] = pages
      .filter(({ totals }) => totals.counts[at] > 0)
      .sort((a, b) => b.totals.counts[at] - a.totals.counts[at] || b.totals.counts[SESSIONS] - a.totals.counts[SESSIONS] || (a.page < b.page ? -1 : 1))
      .slice(0, top)
      .map(({ page, totals }) => ({ page, sessions: totals.counts[SESSIONS], withFriction: totals.counts[at], share: round(totals.counts[at] / Math.max(1, totals.counts[SESSIONS])) }))
  }
  return answer
}
