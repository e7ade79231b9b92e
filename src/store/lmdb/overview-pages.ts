/**
 * The overview's page tables: for each hour and each day, one buffer of
 * fixed-size records, one per page with sessions then, holding per device
 * slot the page's sessions and its sessions with each kind of friction.
 *
 *   tp  [day]    → Buffer   sorted uint32 records: page id high, low, then for m, t, d, u: sessions, rage, dead, error clicks, quick backs, JS errors
 *   th  [hour]   → Buffer   the same by the hour
 *
 * The top pages read every page over the period: from per-page buckets that
 * is one entry per page and day (200 pages over 30 days: 6,000 entries,
 * about 50 ms on this machine), from these one entry per day, as the element
 * leaderboard's `el` buckets do for elements.
 */
import { COUNT_FIELDS, FRICTION_KINDS, frictionIndex, SESSIONS, type Totals } from '../aggregates/overview.js'
import type { DeviceSlot } from '../aggregates/slots.js'
import { pending, type Pending } from './bucket-writes.js'
import type { Part } from './derived-keys.js'
import { range } from './derived-keys.js'
import type { Tables } from './tables.js'

const SLOTS: readonly DeviceSlot[] = ['m', 't', 'd', 'u']
/** Per slot: sessions, then each friction kind. */
const PER_SLOT = 1 + FRICTION_KINDS.length
const RECORD = 2 + SLOTS.length * PER_SLOT

/** 48 bits of a page's short id (ids.ts): records hold numbers, and ids of a project's pages do not collide at this width. */
export function pageNumber(pageId: string): number {
  const bytes = Buffer.from(pageId, 'base64url')
  return bytes.readUInt16BE(0) * 0x1_0000_0000 + bytes.readUInt32BE(2)
}

/** What a transaction adds to one table: by page number, the record's fields after the id. */
export type TableDelta = Map<number, Int32Array>

/** Adds a page unit's gain (aggregates/overview.ts's contribution difference) to the tables of its hour and day. */
export function addToTables(tables: Map<string, Pending<TableDelta>>, base: Part[], pageId: string, hour: number, day: number, slot: DeviceSlot, gain: Float64Array): void {
  const offset = SLOTS.indexOf(slot) * PER_SLOT
  const id = pageNumber(pageId)
  for (const key of [[...base, 'th', hour], [...base, 'tp', day]]) {
    const table = pending<TableDelta>(tables, key, () => new Map())
    let fields = table.get(id)
    if (!fields) table.set(id, (fields = new Int32Array(RECORD - 2)))
    fields[offset] += gain[SESSIONS]
    FRICTION_KINDS.forEach((kind, i) => (fields![offset + 1 + i] += gain[frictionIndex(kind)]))
  }
}

/** Merges each table's delta into its stored records, written once. */
export function writeTables(derived: Tables['derived'], tables: Iterable<Pending<TableDelta>>): void {
  for (const { key, value } of tables) {
    const stored = decodeTable(derived.get(key) as Uint8Array | undefined)
    const index = new Map<number, number>()
    for (let at = 0; at < stored.length; at += RECORD) index.set(stored[at] * 0x1_0000_0000 + stored[at + 1], at)
    const added = [...value.keys()].filter((id) => !index.has(id))
    const out = new Uint32Array(stored.length + added.length * RECORD)
    out.set(stored)
    added.forEach((id, i) => {
      const at = stored.length + i * RECORD
      out[at] = Math.floor(id / 0x1_0000_0000)
      out[at + 1] = id >>> 0
      index.set(id, at)
    })
    for (const [id, fields] of value) {
      const at = index.get(id)! + 2
      for (let i = 0; i < fields.length; i++) out[at + i] += fields[i]
    }
    derived.put(key, Buffer.from(out.buffer))
  }
}

function decodeTable(bytes: Uint8Array | undefined): Uint32Array {
  if (!bytes || bytes.byteLength === 0) return new Uint32Array(0)
  // A copy: LMDB hands out unaligned views, and Uint32Array needs 4-byte alignment.
  const records = new Uint32Array(bytes.byteLength >> 2)
  new Uint8Array(records.buffer).set(bytes)
  return records
}

/** Each page's sessions and sessions with each friction kind over the hours [from, to) (whole days from `tp`), by page number. */
export function readTables(tables: Tables, base: Part[], from: number, to: number, slots: readonly DeviceSlot[]): Map<number, Totals> {
  const totals = new Map<number, Totals>()
  const offsets = slots.map((slot) => SLOTS.indexOf(slot) * PER_SLOT)
  const read = (tag: string, a: number, b: number) => {
    if (a >= b) return
    for (const { value } of range<Uint8Array>(tables, [...base, tag, a], [...base, tag, b])) {
      const records = decodeTable(value)
      for (let at = 0; at < records.length; at += RECORD) {
        const id = records[at] * 0x1_0000_0000 + records[at + 1]
        let sum = totals.get(id)
        if (!sum) totals.set(id, (sum = { counts: new Float64Array(COUNT_FIELDS), registers: new Uint8Array(0) }))
        for (const offset of offsets) {
          sum.counts[SESSIONS] += records[at + 2 + offset]
          FRICTION_KINDS.forEach((kind, i) => (sum!.counts[frictionIndex(kind)] += records[at + 3 + offset + i]))
        }
      }
    }
  }
  const firstDay = Math.ceil(from / 24)
  const endDay = Math.floor(to / 24)
  if (firstDay >= endDay) {
    read('th', from, to)
    return totals
  }
  read('th', from, firstDay * 24)
  read('tp', firstDay, endDay)
  read('th', endDay * 24, to)
  return totals
}
