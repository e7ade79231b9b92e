/**
 * How a click counts: in the heat layers, the session's counts, its element's
 * row of the leaderboard, and, for a rage, dead or error click, the friction
 * feed.
 */
import type { FrictionKind, HeatKind, SessionSignals } from '../insights.js'
import type { Click } from '../records.js'

export type ClickKind = NonNullable<Click['kind']>

export const clickKindOf = (click: Click): ClickKind => click.kind ?? 'click'

/** Every click heats the `click` layer; a rage or dead click its own layer as well. */
export function heatLayersOf(kind: ClickKind): readonly ClickLayer[] {
  return kind === 'rage' ? RAGE_LAYERS : kind === 'dead' ? DEAD_LAYERS : CLICK_LAYERS
}

export type ClickLayer = Exclude<HeatKind, 'scroll'>
const CLICK_LAYERS: readonly ClickLayer[] = ['click']
const RAGE_LAYERS: readonly ClickLayer[] = ['click', 'rage']
const DEAD_LAYERS: readonly ClickLayer[] = ['click', 'dead']

/** A click in its session's counts: every click, and its kind's own count. */
export function countClick(session: SessionSignals, kind: ClickKind): void {
  session.clicks += 1
  if (kind === 'rage') session.rage += 1
  else if (kind === 'dead') session.dead += 1
  else if (kind === 'error') session.errorClicks += 1
}

/** What clicks add to one element's row in a bucket. */
export interface ElementCount {
  page: string
  clicks: number
  rage: number
  dead: number
  errors: number
}

export function countElementClick(count: ElementCount, kind: ClickKind): void {
  count.clicks += 1
  if (kind === 'rage') count.rage += 1
  else if (kind === 'dead') count.dead += 1
  else if (kind === 'error') count.errors += 1
}

/** An item of the friction feed as kept (a JS error group is assembled at read time instead). */
export interface FrictionRecord {
  kind: Exclude<FrictionKind, 'jsError'>
  sk: string
  page: string
  url: string
  selector?: string
  label?: string
  tag?: string
  xRatio?: number
  yDoc?: number
  n?: number
}

/** The friction item a click makes: rage, dead and error clicks do; plain clicks do not. */
export function frictionOfClick(click: Click, sk: string, page: string): FrictionRecord | undefined {
  const kind = clickKindOf(click)
  if (kind === 'click') return undefined
  const record: FrictionRecord = { kind: kind === 'error' ? 'errorClick' : kind, sk, page, url: click.url, xRatio: click.xRatio, yDoc: click.yDoc }
  if (click.selector !== undefined) record.selector = click.selector
  if (click.label !== undefined) record.label = click.label
  if (click.tag !== undefined) record.tag = click.tag
  if (click.n !== undefined) record.n = click.n
  return record
}

/** A JS error occurrence as kept; its message is in the message registry. */
export interface ErrorOccurrence {
  sk: string
  page: string
  url: string
}
