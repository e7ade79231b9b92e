/**
 * The aggregates of the in-memory store, derived from the batches applied so
 * far by the rules of src/store/aggregates/, kept by page and hour as the
 * LMDB store keeps them, and recomputed after anything changes them.
 */
import { clampTime, emptySessionSignals, heatBin, hourOf, type SessionSignals } from '../insights.js'
import { clickKindOf, countClick, countElementClick, frictionOfClick, heatLayersOf, type ClickLayer, type ElementCount, type FrictionRecord } from '../aggregates/clicks.js'
import { countsAsOther, countsAsOtherName, OTHER_SELECTOR, otherElementIdOf } from '../aggregates/elements.js'
import { countsAsOtherMessage, OTHER_MESSAGE } from '../aggregates/messages.js'
import { countsAsOtherPage, OTHER_PAGE } from '../aggregates/pages.js'
import { clickItemId, elementIdOf, errorItemId, quickBackItemId, shortId } from '../aggregates/ids.js'
import { slotOf, type DeviceSlot } from '../aggregates/slots.js'
import { contributeView, emptyPageBucket, mergeView, movesFirstView, sameView, viewHour, type PageBucket, type ViewState } from '../aggregates/views.js'
import type { SignalsRecord } from '../records.js'
import { FoundDelta } from '../aggregates/search.js'
import type { MemoryData } from './data.js'
import { MemoryOverview } from './overview.js'

export interface ElementName {
  page: string
  selector: string
  label?: string
  tag?: string
}

export interface FrictionEntry {
  ts: number
  id: string
  record: FrictionRecord
}

export interface Occurrence {
  msgId: string
  message: string
  ts: number
  id: string
  sk: string
  page: string
  url: string
}

/** Scope of element counts: the whole project, or one page. */
export const ALL = '*'
export const pageScope = (page: string): string => `p:${page}`

type Hourly<V> = Map<number, V>

function at<K, V>(map: Map<K, V>, key: K, init: () => V): V {
  let value = map.get(key)
  if (value === undefined) map.set(key, (value = init()))
  return value
}

export class Derived {
  /** Every page an applied entry landed on. */
  readonly pages = new Set<string>()
  readonly buckets = new Map<string, Hourly<PageBucket>>()
  /** By layer and page (`layer\npage`), hour, device slot: counts by heat bin. */
  readonly heat = new Map<string, Hourly<Partial<Record<DeviceSlot, Map<number, number>>>>>()
  /** By scope, hour: counts by element id (capped per bucket). */
  readonly elements = new Map<string, Hourly<Map<number, ElementCount>>>()
  readonly names = new Map<number, ElementName>()
  readonly clickedBy = new Map<number, Set<string>>()
  readonly friction = new Map<string, FrictionEntry>()
  readonly errors: Occurrence[] = []
  readonly sessions = new Map<string, SessionSignals & { from: number; to: number }>()
  /** What each session did, for search (aggregates/search.ts). */
  readonly finds = new Map<string, FoundDelta>()
  readonly overview = new MemoryOverview()
  private readonly views = new Map<string, ViewState>()
  private readonly firstViews = new Map<string, number>()

  /** `maxPages`: the page cap (aggregates/pages.ts), which holds here as in LMDB's fold for batches a backfill re-keyed. */
  constructor(private readonly maxPages: number) {}

  /** Distinct error messages held (the message cap, aggregates/messages.ts). */
  private readonly messages = new Set<string>()

  /** The message an error counts under: its own, or OTHER_MESSAGE past the message cap. */
  private admitMessage(message: string): string {
    if (!this.messages.has(message) && message !== OTHER_MESSAGE && countsAsOtherMessage(false, this.messages.size - (this.messages.has(OTHER_MESSAGE) ? 1 : 0))) message = OTHER_MESSAGE
    this.messages.add(message)
    return message
  }

  /** The page an entry counts under: its own, or (other) past the page cap. */
  private notePage(page: string): string {
    if (!this.pages.has(page) && page !== OTHER_PAGE && countsAsOtherPage(false, this.pages.size - (this.pages.has(OTHER_PAGE) ? 1 : 0), this.maxPages)) page = OTHER_PAGE
    this.pages.add(page)
    return page
  }

  bucket(page: string, hour: number): PageBucket {
    return at(at(this.buckets, page, () => new Map()), hour, emptyPageBucket)
  }

  heatOf(layer: ClickLayer, page: string): Hourly<Partial<Record<DeviceSlot, Map<number, number>>>> | undefined {
    return this.heat.get(`${layer}\n${page}`)
  }

  sessionSignals(sk: string): SessionSignals {
    const record = this.sessions.get(sk)
    if (!record) return emptySessionSignals()
    const { from: _from, to: _to, ...counts } = record
    return counts
  }

  /** In the order the LMDB store lists them (by their short id). */
  pageKeys(): string[] {
    return [...this.pages].sort((a, b) => (shortId(a) < shortId(b) ? -1 : 1))
  }

  add(batchId: string, receivedAt: number, batch: SignalsRecord): void {
    const { sk } = batch
    const session = at(this.sessions, sk, () => ({ ...emptySessionSignals(), from: Infinity, to: -Infinity }))
    this.overview.session(batch, receivedAt)
    at(this.finds, sk, () => new FoundDelta()).add(batch, receivedAt)
    for (const time of [...batch.clicks.map((c) => c.ts), ...batch.errors.map((e) => e.ts), ...batch.views.map((v) => v.startedAt)]) {
      const clamped = clampTime(time, receivedAt)
      session.from = Math.min(session.from, clamped)
      session.to = Math.max(session.to, clamped)
    }
    batch.clicks.forEach((click, index) => {
      const page = this.notePage(click.page ?? '')
      const ts = clampTime(click.ts, receivedAt)
      const hour = hourOf(ts)
      const kind = clickKindOf(click)
      const slot = slotOf(click.vw)
      const bin = heatBin(click.xRatio, click.yDoc)
      for (const layer of heatLayersOf(kind)) {
        const bySlot = at(at(this.heat, `${layer}\n${page}`, () => new Map()), hour, () => ({}) as Partial<Record<DeviceSlot, Map<number, number>>>)
        const bins = (bySlot[slot] ??= new Map<number, number>())
        bins.set(bin, (bins.get(bin) ?? 0) + 1)
      }
      this.bucket(page, hour).cl += 1
      countClick(session, kind)
      this.overview.click(sk, page, kind)
      if (click.selector) {
        let id = elementIdOf(page, click.selector)
        let selector = click.selector
        if (countsAsOtherName(this.names.has(id), this.names.size)) [id, selector] = [otherElementIdOf(page), OTHER_SELECTOR]
        const named = this.names.get(id)
        const name: ElementName = { page, selector }
        const other = selector === OTHER_SELECTOR
        const label = other ? undefined : (click.label ?? named?.label)
        const tag = other ? undefined : (click.tag ?? named?.tag)
        if (label !== undefined) name.label = label
        if (tag !== undefined) name.tag = tag
        this.names.set(id, name)
        for (const scope of [pageScope(page), ALL]) {
          const counts = at(at(this.elements, scope, () => new Map()), hour, () => new Map<number, ElementCount>())
          let target = id
          if (countsAsOther(counts.has(id), counts.size)) {
            target = otherElementIdOf(page)
            if (!this.names.has(target)) this.names.set(target, { page, selector: OTHER_SELECTOR })
          }
          countElementClick(at(counts, target, () => ({ page, clicks: 0, rage: 0, dead: 0, errors: 0 })), kind)
        }
        at(this.clickedBy, id, () => new Set<string>()).add(sk)
      }
      const record = frictionOfClick(click, sk, page)
      if (record) this.friction.set(clickItemId(batchId, index), { ts, id: clickItemId(batchId, index), record })
    })
    batch.errors.forEach((error, index) => {
      const page = this.notePage(error.page ?? '')
      const ts = clampTime(error.ts, receivedAt)
      session.errors += 1
      this.overview.error(sk, page)
      this.bucket(page, hourOf(ts)).er += 1
      const message = this.admitMessage(error.message)
      this.errors.push({ msgId: shortId(message), message, ts, id: errorItemId(batchId, index), sk, page, url: error.url })
    })
    for (const view of batch.views) {
      const page = this.notePage(view.page ?? '')
      const key = JSON.stringify([sk, view.startedAt, view.url])
      const before = this.views.get(key)
      const after = mergeView(before, view, page, receivedAt)
      if (before && sameView(before, after)) continue
      const kept = before ? before.page : page
      this.views.set(key, after)
      if (before) contributeView(this.bucket(kept, viewHour(before)), before, -1)
      contributeView(this.bucket(kept, viewHour(after)), after, 1)
      this.overview.view(sk, kept, before, after)
      if (!before) session.views += 1
      session.activeMs += (after.activeMs ?? 0) - (before?.activeMs ?? 0)
      if (after.quickBack && (!before?.quickBack || before.at !== after.at)) {
        const id = quickBackItemId(sk, view.url, view.startedAt)
        if (!before?.quickBack) session.quickBacks += 1
        this.friction.set(id, { ts: after.at, id, record: { kind: 'quickBack', sk, page: after.page, url: view.url } })
      }
      if (before && before.at === after.at) continue
      const seenKey = `${sk}\n${kept}`
      const seen = this.firstViews.get(seenKey)
      const hour = viewHour(after)
      if (movesFirstView(seen, hour)) {
        if (seen !== undefined) this.bucket(kept, seen).s -= 1
        this.bucket(kept, hour).s += 1
        this.firstViews.set(seenKey, hour)
      }
    }
  }
}

/** How many times batches were taken out of a store's data (erasure): what was derived before is stale then. */
const removals = new WeakMap<MemoryData, number>()

export function batchesRemoved(data: MemoryData): void {
  removals.set(data, (removals.get(data) ?? 0) + 1)
}

/** The aggregates of each project, derived when first read after a change. */
export class DerivedCache {
  private readonly byProject = new Map<string, Derived>()
  private removalsSeen = 0

  constructor(private readonly data: MemoryData) {}

  forget(): void {
    this.byProject.clear()
  }

  of(projectId: string): Derived {
    const removed = removals.get(this.data) ?? 0
    if (removed !== this.removalsSeen) {
      this.byProject.clear()
      this.removalsSeen = removed
    }
    let derived = this.byProject.get(projectId)
    if (!derived) {
      derived = new Derived(this.data.maxPagesPerProject)
      for (const stored of this.data.signals.slice(0, this.data.applied)) {
        if (stored.projectId === projectId) derived.add(String(stored.id), stored.receivedAt, stored.batch)
      }
      this.byProject.set(projectId, derived)
    }
    return derived
  }
}
