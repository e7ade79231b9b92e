/**
 * The overview's part of a fold transaction (src/store/aggregates/overview.ts
 * says what it counts): what the batches add to each unit is gathered in
 * memory, then at flush each unit is read once, updated, and its change
 * added to its hour's and day's bucket, each bucket written once.
 *
 *   ou  [scope, sk]     → UnitState                                  a session's counts in a scope
 *   ov  [scope, hour]   → { c: {slot: Float64 ×10}, v: {slot: sketch} }  bucket counts and visitor sketch per device slot
 *   od  [scope, day]    → the same by the day
 */
import { addInto, applyToUnit, COUNT_FIELDS, countUnitClick, countUnitView, DAY_HOURS, emptyUnitCounts, placeOf, type UnitCounts, type UnitState } from '../aggregates/overview.js'
import type { ClickKind } from '../aggregates/clicks.js'
import type { DeviceSlot } from '../aggregates/slots.js'
import { addVisitors } from '../aggregates/visitors.js'
import type { SignalsRecord } from '../records.js'
import { pending, type Pending } from './bucket-writes.js'
import { ALL_SCOPE, pageScope, type Part } from './derived-keys.js'
import type { Tables } from './tables.js'

/** An overview bucket as stored: per device slot, the counts (little-endian float64) and the visitor sketch. */
export interface StoredOverviewBucket {
  c: Partial<Record<DeviceSlot, Uint8Array>>
  v: Partial<Record<DeviceSlot, Uint8Array>>
}

interface UnitDelta {
  base: Part[]
  scope: string
  sk: string
  counts: UnitCounts
}

interface BucketDelta {
  counts: Partial<Record<DeviceSlot, Float64Array>>
  visitors: Partial<Record<DeviceSlot, Set<string>>>
}

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
    const ordered = [...this.units.values()].sort((a, b) => Number(b.scope === ALL_SCOPE) - Number(a.scope === ALL_SCOPE))
    for (const { base, scope, sk, counts } of ordered) {
      const sessionId = `${base[0]}\u0000${base[1]}\u0000${sk}`
      const session = this.sessions.get(sessionId)!
      const key = [...base, 'ou', scope, sk]
      const before = derived.get(key) as UnitState | undefined
      const { after, gain, isNew } = applyToUnit(before, counts, places.get(sessionId) ?? session.place)
      if (scope === ALL_SCOPE) places.set(sessionId, { h: after.h, d: after.d })
      derived.put(key, after)
      for (const [tag, at] of [['ov', after.h], ['od', Math.floor(after.h / DAY_HOURS)]] as const) {
        const bucket = pending<BucketDelta>(buckets, [...base, tag, scope, at], () => ({ counts: {}, visitors: {} }))
        addInto((bucket.counts[after.d] ??= new Float64Array(COUNT_FIELDS)), gain)
        if (isNew) (bucket.visitors[after.d] ??= new Set()).add(session.vid)
      }
    }
    for (const { key, value } of buckets.values()) {
      const stored = (derived.get(key) as StoredOverviewBucket | undefined) ?? { c: {}, v: {} }
      // Copies of the slots left as they were: what a read decoded may be a view of a buffer that is reused.
      const next: StoredOverviewBucket = { c: copySlots(stored.c), v: copySlots(stored.v) }
      for (const slot of Object.keys(value.counts) as DeviceSlot[]) {
        const counts = decodeCounts(stored.c[slot])
        addInto(counts, value.counts[slot]!)
        next.c[slot] = Buffer.from(counts.buffer)
      }
      for (const slot of Object.keys(value.visitors) as DeviceSlot[]) next.v[slot] = addVisitors(stored.v[slot], value.visitors[slot]!)
      derived.put(key, next)
    }
  }
}

/** A stored slot's counts; a copy, since LMDB hands out unaligned views. */
export function decodeCounts(bytes: Uint8Array | undefined): Float64Array {
  const counts = new Float64Array(COUNT_FIELDS)
  if (bytes) new Uint8Array(counts.buffer).set(bytes.subarray(0, COUNT_FIELDS * 8))
  return counts
}

function copySlots(slots: Partial<Record<DeviceSlot, Uint8Array>>): Partial<Record<DeviceSlot, Uint8Array>> {
  const copy: Partial<Record<DeviceSlot, Uint8Array>> = {}
  for (const slot of Object.keys(slots) as DeviceSlot[]) copy[slot] = Buffer.from(slots[slot]!)
  return copy
}
