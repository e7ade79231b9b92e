/**
 * The end of a fold's transaction: each bucket the batches touched, read,
 * merged with what they added, and written once. Element and page buckets
 * are kept by the hour and, added up, by the day (tags ed and pd), so that a
 * 30-day read takes 30 daily buckets and the partial days at its ends by the
 * hour.
 */
import { emptySessionSignals, SCROLL_STEPS, type SessionSignals } from '../insights.js'
import { ALL_SLOTS, type DeviceSlot } from '../aggregates/slots.js'
import { emptyFinds, mergeFinds, type FoundDelta } from '../aggregates/search.js'
import { addCounts, emptyPageBucket, type PageBucket } from '../aggregates/views.js'
import {
  decodeHistogram,
  decodePairs,
  decodeRecords,
  mergePairs,
  mergeRecords,
  type ElementDelta,
  type Part,
  type SessionRecordOfSignals,
  type StoredPageBucket,
} from './derived-keys.js'
import type { Key, Tables } from './tables.js'

type Derived = Tables['derived']

export interface Pending<V> {
  key: Key
  value: V
}

/** The accumulator entry of a bucket. Ids join the key parts with NUL: the one free-text part (a session key) is followed only by parts without NUL, so ids cannot collide. */
export function pending<V>(map: Map<string, Pending<V>>, key: Part[], init: () => V): V {
  const id = key.join('\u0000')
  let entry = map.get(id)
  if (!entry) {
    entry = { key, value: init() }
    map.set(id, entry)
  }
  return entry.value
}

/** Heat counts to add, by device slot and bin. */
export type HeatDelta = Partial<Record<DeviceSlot, Map<number, number>>>

/** Heat bins per device slot: sorted (bin, count) pairs. */
export function writeHeat(derived: Derived, heat: Iterable<Pending<HeatDelta>>): void {
  for (const { key, value } of heat) {
    if (!value.m && !value.t && !value.d && !value.u) continue // a rage or dead bucket looked up for clicks of another kind
    const current = (derived.get(key) ?? {}) as Partial<Record<DeviceSlot, Uint8Array>>
    const next: Partial<Record<DeviceSlot, Buffer>> = {}
    for (const slot of ALL_SLOTS) {
      const delta = value[slot]
      if (delta) next[slot] = mergePairs(decodePairs(current[slot]), delta)
      else if (current[slot]) next[slot] = Buffer.from(current[slot]!)
    }
    derived.put(key, next)
  }
}

/** Element counts, by the hour and by the day; `other` names a page's `(other)` element for a full bucket. */
export function writeElements(derived: Derived, elements: Iterable<Pending<ElementDelta>>, other: (base: Part[], page: string) => number): void {
  const hourly = [...elements]
  const elementDays = new Map<string, Pending<ElementDelta>>()
  for (const { key, value } of hourly) {
    const [projectId, gen, , scope, hour] = key as Part[]
    const day = pending(elementDays, [projectId, gen, 'ed', scope, Math.floor((hour as number) / 24)], () => new Map())
    for (const [id, add] of value) {
      const sum = day.get(id) ?? { page: add.page, clicks: 0, rage: 0, dead: 0, errors: 0 }
      sum.clicks += add.clicks
      sum.rage += add.rage
      sum.dead += add.dead
      sum.errors += add.errors
      day.set(id, sum)
    }
  }
  for (const { key, value } of [...hourly, ...elementDays.values()]) {
    if (value.size === 0) continue
    const base = (key as Part[]).slice(0, 2)
    derived.put(key, mergeRecords(decodeRecords(derived.get(key) as Uint8Array | undefined), value, (page) => other(base, page)))
  }
}

/** Page buckets, by the hour and by the day; scroll histograms as int32 arrays. */
export function writePageBuckets(derived: Derived, buckets: Iterable<Pending<PageBucket>>): void {
  const hourly = [...buckets]
  const pageDays = new Map<string, Pending<PageBucket>>()
  for (const { key, value } of hourly) {
    const [projectId, gen, , pageId, hour] = key as Part[]
    const day = pending(pageDays, [projectId, gen, 'pd', pageId, Math.floor((hour as number) / 24)], emptyPageBucket)
    const { sh, ...counts } = value
    addCounts(day, counts)
    for (const slot of Object.keys(sh) as DeviceSlot[]) {
      const histogram = (day.sh[slot] ??= new Array<number>(SCROLL_STEPS).fill(0))
      sh[slot]!.forEach((n, i) => (histogram[i] += n))
    }
  }
  for (const { key, value } of [...hourly, ...pageDays.values()]) {
    const stored = derived.get(key) as StoredPageBucket | undefined
    const { sh, ...counts } = value
    const { sh: storedSh, ...sums }: StoredPageBucket = stored ?? { ...emptyPageBucket(), sh: {} }
    addCounts(sums, counts)
    const histograms: Partial<Record<DeviceSlot, Buffer>> = {}
    for (const slot of ALL_SLOTS) {
      if (!sh[slot] && !storedSh[slot]) continue
      const histogram = decodeHistogram(storedSh[slot])
      sh[slot]?.forEach((n, i) => (histogram[i] += n))
      histograms[slot] = Buffer.from(histogram.buffer)
    }
    derived.put(key, { ...sums, sh: histograms } satisfies StoredPageBucket)
  }
}

/** Per-session counts and the span of the session's signals. */
export function writeSessions(
  derived: Derived,
  sessions: Map<string, Pending<SessionSignals>>,
  spans: Map<string, Pending<{ from: number; to: number }>>,
  finds: Map<string, Pending<FoundDelta>>,
): void {
  for (const [id, { key, value }] of sessions) {
    const counts = (derived.get(key) as SessionRecordOfSignals | undefined) ?? { ...emptySessionSignals(), from: Infinity, to: -Infinity, ix: 1 as const }
    const { from, to, f, ix, ...sums } = counts
    addCounts(sums, value)
    const span = spans.get(id)!.value
    const found = finds.get(id)?.value
    let kept = f
    if (found?.any) mergeFinds((kept ??= emptyFinds()), found.finds())
    derived.put(key, { ...sums, from: Math.min(from, span.from), to: Math.max(to, span.to), ...(kept ? { f: kept } : {}), ...(ix ? { ix } : {}) })
  }
}
