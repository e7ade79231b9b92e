/**
 * The overview's part of a fold transaction (src/store/aggregates/overview.ts
 * says what it counts): what the batches add to each unit is gathered in
 * memory, then at flush each unit is read once, updated, and its change
 * added to its hour's and day's bucket, each bucket written once.
 *
 *   ou  [scope, sk]     → UnitState                 a session's counts in a scope
 *   ov  [scope, hour]   → Buffer                    bucket counts: for each device slot (m, t, d, u) 10 little-endian float64
 *   od  [scope, day]    → Buffer                    the same by the day
 *   vv  [scope, hour]   → { m?, t?, d?, u? }        visitor sketches per device slot (aggregates/visitors.ts)
 *   vd  [scope, day]    → the same by the day
 *
 * Counts and sketches are kept apart so that the top pages, which read every
 * page's counts over the period, decode one small buffer per page and day.
 */
import { applyToUnit, COUNT_FIELDS, countUnitClick, countUnitView, DAY_HOURS, emptyUnitCounts, placeOf, type UnitCounts, type UnitState } from '../aggregates/overview.js'
import type { ClickKind } from '../aggregates/clicks.js'
import type { DeviceSlot } from '../aggregates/slots.js'
import { addVisitors } from '../aggregates/visitors.js'
import type { SignalsRecord } from '../records.js'
import { pending, type Pending } from './bucket-writes.js'
import { addToTables, writeTables, type TableDelta } from './overview-pages.js'
import { ALL_SCOPE, pageScope, type Part } from './derived-keys.js'
import type { Tables } from './tables.js'

/** Device slots in the order their counts follow each other in a stored bucket. */
export const SLOT_ORDER: readonly DeviceSlot[] = ['m', 't', 'd', 'u']
export const BUCKET_FIELDS = SLOT_ORDER.length * COUNT_FIELDS

/** Visitor sketches of a bucket as stored. */
export type StoredSketches = Partial<Record<DeviceSlot, Uint8Array>>

interface UnitDelta {
  base: Part[]
  scope: string
  sk: string
  counts: UnitCounts
}

interface BucketDelta {
  /** BUCKET_FIELDS: each slot's counts, in SLOT_ORDER. */
  counts: Float64Array
  visitors: Partial<Record<DeviceSlot, Set<string>>>
}

/** `p:` before a page id in a page scope (derived-keys.ts). */
const PAGE_SCOPE_PREFIX = pageScope('').length

export class OverviewBatch {
  /** Per session of this transaction: where its units count (from its first batch here) and its visitor. */
  private sessions = new Map<string, { base: Part[]; sk: string; vid: string; place: { h: number; d: DeviceSlot } }>()
  private units = new Map<string, UnitDelta>()

  constructor(private readonly tables: Tables) {}

  /** A batch of session `batch.sk`: its project unit, counted even when the batch adds nothing else. */
  session(base: Part[], batch: SignalsRecord, receivedAt: number): void {
    const id = `${base[0]}\u0000${base[1]}\u0000${batch.sk}`
    if (!this.sessions.has(id)) this.sessions.set(id, { base, sk: batch.sk, vid: batch.vid, place: placeOf(batch, receivedAt) })
    this.unit(base, ALL_SCOPE, batch.sk)
  }

  click(base: Part[], sk: string, pageId: string, kind: ClickKind): void {
    for (const counts of this.both(base, sk, pageId)) countUnitClick(counts, kind)
  }

  error(base: Part[], sk: string, pageId: string): void {
    for (const counts of this.both(base, sk, pageId)) counts.jsError += 1
  }

  view(base: Part[], sk: string, pageId: string, before: Parameters<typeof countUnitView>[1], after: Parameters<typeof countUnitView>[2]): void {
    for (const counts of this.both(base, sk, pageId)) countUnitView(counts, before, after)
  }

  private both(base: Part[], sk: string, pageId: string): UnitCounts[] {
    return [this.unit(base, ALL_SCOPE, sk), this.unit(base, pageScope(pageId), sk)]
  }

  private unit(base: Part[], scope: string, sk: string): UnitCounts {
    const id = `${base[0]}\u0000${base[1]}\u0000${scope}\u0000${sk}`
    let unit = this.units.get(id)
    if (!unit) this.units.set(id, (unit = { base, scope, sk, counts: emptyUnitCounts() }))
    return unit.counts
  }

  /** Each unit read, updated and written once; then each bucket it moved. Project units first: page units take their place. */
  flush(): void {
    const { derived } = this.tables
    const buckets = new Map<string, Pending<BucketDelta>>()
    const places = new Map<string, { h: number; d: DeviceSlot }>()
    const pageTables = new Map<string, Pending<TableDelta>>()
    const ordered = [...this.units.values()].sort((a, b) => Number(b.scope === ALL_SCOPE) - Number(a.scope === ALL_SCOPE))
    for (const { base, scope, sk, counts } of ordered) {
      const sessionId = `${base[0]}\u0000${base[1]}\u0000${sk}`
      const session = this.sessions.get(sessionId)!
      const key = [...base, 'ou', scope, sk]
      const before = derived.get(key) as UnitState | undefined
      const { after, gain, isNew } = applyToUnit(before, counts, places.get(sessionId) ?? session.place)
      if (scope === ALL_SCOPE) places.set(sessionId, { h: after.h, d: after.d })
      derived.put(key, after)
      if (scope !== ALL_SCOPE) addToTables(pageTables, base, scope.slice(PAGE_SCOPE_PREFIX), after.h, Math.floor(after.h / DAY_HOURS), after.d, gain)
      for (const [tag, at] of [['ov', after.h], ['od', Math.floor(after.h / DAY_HOURS)]] as const) {
        const bucket = pending<BucketDelta>(buckets, [...base, tag, scope, at], () => ({ counts: new Float64Array(BUCKET_FIELDS), visitors: {} }))
        const offset = SLOT_ORDER.indexOf(after.d) * COUNT_FIELDS
        for (let i = 0; i < COUNT_FIELDS; i++) bucket.counts[offset + i] += gain[i]
        if (isNew) (bucket.visitors[after.d] ??= new Set()).add(session.vid)
      }
    }
    for (const { key, value } of buckets.values()) {
      const counts = decodeBucket(derived.get(key) as Uint8Array | undefined)
      for (let i = 0; i < BUCKET_FIELDS; i++) counts[i] += value.counts[i]
      derived.put(key, Buffer.from(counts.buffer))
      const slots = Object.keys(value.visitors) as DeviceSlot[]
      if (slots.length === 0) continue
      const parts = key as Part[]
      const sketchKey = [...parts.slice(0, 2), parts[2] === 'ov' ? 'vv' : 'vd', ...parts.slice(3)]
      const stored = (derived.get(sketchKey) as StoredSketches | undefined) ?? {}
      // Copies of the slots left as they were: what a read decoded may be a view of a buffer that is reused.
      const next: StoredSketches = {}
      for (const slot of SLOT_ORDER) {
        if (value.visitors[slot]) next[slot] = addVisitors(stored[slot], value.visitors[slot]!)
        else if (stored[slot]) next[slot] = Buffer.from(stored[slot]!)
      }
      derived.put(sketchKey, next)
    }
    writeTables(derived, pageTables.values())
  }
}

/** A stored bucket's counts (BUCKET_FIELDS); a copy, since LMDB hands out unaligned views. */
export function decodeBucket(bytes: Uint8Array | undefined): Float64Array {
  const counts = new Float64Array(BUCKET_FIELDS)
  if (bytes) new Uint8Array(counts.buffer).set(bytes.subarray(0, BUCKET_FIELDS * 8))
  return counts
}
