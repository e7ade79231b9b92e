/**
 * The overview's part of a fold transaction (src/store/aggregates/overview.ts
 * says what it counts): what the batches add to each session's units is
 * gathered in memory, then at flush each session's record is read once and
 * written once, and each unit's change added to its hour's and day's bucket
 * and page table (overview-pages.ts), each written once.
 *
 *   ou  [sk]            → StoredSession             a session's units: its counts in the project and on each page
 *   ov  [scope, hour]   → Buffer                    bucket counts: for each device slot (m, t, d, u) 10 little-endian float64
 *   od  [scope, day]    → Buffer                    the same by the day
 *   vv  [scope, hour]   → { m?, t?, d?, u? }        visitor sketches per device slot (aggregates/visitors.ts)
 *   vd  [scope, day]    → the same by the day
 *
 * Counts and sketches are kept apart: counts change with every batch of a
 * session (its views' active time and scroll), a sketch only when a session
 * is new to the bucket, so most transactions rewrite 320 bytes per bucket
 * rather than up to 4 KiB of sketches too.
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

/**
 * A session's units as stored, in one record: its project unit, and its
 * units on each page it was active on (which share the project unit's hour
 * and device). One read and one write per session a transaction touches,
 * rather than one per unit.
 */
interface StoredSession extends UnitState {
  p: Record<string, UnitCounts>
}

interface SessionDelta {
  base: Part[]
  sk: string
  vid: string
  /** Where a new session counts: from its first batch in this transaction. */
  place: { h: number; d: DeviceSlot }
  project: UnitCounts
  /** By page id. */
  pages: Map<string, UnitCounts>
}

interface BucketDelta {
  /** BUCKET_FIELDS: each slot's counts, in SLOT_ORDER. */
  counts: Float64Array
  visitors: Partial<Record<DeviceSlot, Set<string>>>
}

export class OverviewBatch {
  private sessions = new Map<string, SessionDelta>()
  /** The session the last entry counted for: a batch's entries all do. */
  private last?: SessionDelta

  constructor(private readonly tables: Tables) {}

  /** A batch of session `batch.sk`: its project unit, counted even when the batch adds nothing else. */
  session(base: Part[], batch: SignalsRecord, receivedAt: number): void {
    const id = `${base[0]}\u0000${base[1]}\u0000${batch.sk}`
    let session = this.sessions.get(id)
    if (!session) this.sessions.set(id, (session = { base, sk: batch.sk, vid: batch.vid, place: placeOf(batch, receivedAt), project: emptyUnitCounts(), pages: new Map() }))
    this.last = session
  }

  click(pageId: string, kind: ClickKind): void {
    for (const counts of this.both(pageId)) countUnitClick(counts, kind)
  }

  error(pageId: string): void {
    for (const counts of this.both(pageId)) counts.jsError += 1
  }

  view(pageId: string, before: Parameters<typeof countUnitView>[1], after: Parameters<typeof countUnitView>[2]): void {
    for (const counts of this.both(pageId)) countUnitView(counts, before, after)
  }

  /** The project unit and the page's unit of the session of the batch being added (session() named it; addBatch calls it first). */
  private both(pageId: string): UnitCounts[] {
    const session = this.last!
    let page = session.pages.get(pageId)
    if (!page) session.pages.set(pageId, (page = emptyUnitCounts()))
    return [session.project, page]
  }

  /** Each session read, updated and written once; then each bucket its units moved. */
  flush(): void {
    const { derived } = this.tables
    const buckets = new Map<string, Pending<BucketDelta>>()
    const pageTables = new Map<string, Pending<TableDelta>>()
    const add = (base: Part[], scope: string, unit: UnitState, gain: Float64Array, vid: string | undefined) => {
      for (const [tag, at] of [['ov', unit.h], ['od', Math.floor(unit.h / DAY_HOURS)]] as const) {
        const bucket = pending<BucketDelta>(buckets, [...base, tag, scope, at], () => ({ counts: new Float64Array(BUCKET_FIELDS), visitors: {} }))
        const offset = SLOT_ORDER.indexOf(unit.d) * COUNT_FIELDS
        for (let i = 0; i < COUNT_FIELDS; i++) bucket.counts[offset + i] += gain[i]
        if (vid !== undefined) (bucket.visitors[unit.d] ??= new Set()).add(vid)
      }
    }
    for (const { base, sk, vid, place, project, pages } of this.sessions.values()) {
      const key = [...base, 'ou', sk]
      const stored = derived.get(key) as StoredSession | undefined
      const { p: storedPages, ...before } = stored ?? { p: {} as Record<string, UnitCounts> }
      const counted = applyToUnit(stored ? (before as UnitState) : undefined, project, place)
      add(base, ALL_SCOPE, counted.after, counted.gain, counted.isNew ? vid : undefined)
      const next: StoredSession = { ...counted.after, p: { ...storedPages } }
      const { h, d } = counted.after
      for (const [pageId, delta] of pages) {
        const kept = storedPages[pageId]
        const page = applyToUnit(kept ? { ...kept, h, d } : undefined, delta, { h, d })
        const { h: _h, d: _d, ...counts } = page.after
        next.p[pageId] = counts
        add(base, pageScope(pageId), page.after, page.gain, page.isNew ? vid : undefined)
        addToTables(pageTables, base, pageId, h, Math.floor(h / DAY_HOURS), d, page.gain)
      }
      derived.put(key, next)
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
