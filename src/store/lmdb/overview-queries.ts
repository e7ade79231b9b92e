/**
 * Reads of the overview's buckets (overview-fold.ts): a range is read from
 * the daily buckets for its whole days and the hourly ones for the hours at
 * its ends, so a month costs about 30 bucket reads per scope whatever the
 * number of sessions in it.
 */
import { assembleOverview, COUNT_FIELDS, DAY_HOURS, type Overview, type OverviewQuery, type OverviewSource, type Totals } from '../aggregates/overview.js'
import { shortId } from '../aggregates/ids.js'
import type { DeviceSlot } from '../aggregates/slots.js'
import { registersOf, REGISTERS } from '../aggregates/visitors.js'
import { ALL_SCOPE, liveGen, pageScope, range, type Part } from './derived-keys.js'
import { pageNumber, readTables } from './overview-pages.js'
import { BUCKET_FIELDS, SLOT_ORDER, type StoredSketches } from './overview-fold.js'
import { derivedPages } from './queries.js'
import type { Tables } from './tables.js'

export function overview(tables: Tables, projectId: string, query: OverviewQuery): Overview {
  const base: Part[] = [projectId, liveGen(tables, projectId)]
  const source: OverviewSource = {
    scopesOf: (pages) => (pages ? pages.map((page) => pageScope(shortId(page))) : [ALL_SCOPE]),
    steps(scopes, from, to, step, slots) {
      const out: Totals[] = []
      for (let at = from; at < to; at += step) out.push(emptyTotals(true))
      for (const scope of scopes) {
        if (step === 1) {
          // One range each over the hours' counts and sketches, each bucket added to its step.
          for (const { key, value } of range<Uint8Array>(tables, [...base, 'ov', scope, from], [...base, 'ov', scope, to])) addCounts(out[((key as Part[])[4] as number) - from], value, slots)
          for (const { key, value } of range<StoredSketches>(tables, [...base, 'vv', scope, from], [...base, 'vv', scope, to])) addSketches(out[((key as Part[])[4] as number) - from], value, slots)
        } else {
          out.forEach((totals, i) => sumRange(tables, base, scope, from + i * step, from + (i + 1) * step, slots, totals))
        }
      }
      return out
    },
    pageTotals(pages, from, to, slots) {
      const byNumber = readTables(tables, base, from, to, slots)
      return (pages ?? derivedPages(tables, projectId)).map((page) => ({ page, totals: byNumber.get(pageNumber(shortId(page))) ?? emptyTotals(false) }))
    },
  }
  return assembleOverview(source, query)
}

/** `withVisitors`: whether to merge sketches too (the top pages need only counts). */
function emptyTotals(withVisitors: boolean): Totals {
  return { counts: new Float64Array(COUNT_FIELDS), registers: new Uint8Array(withVisitors ? REGISTERS : 0) }
}

/** One stored bucket's counts at a time, decoded into this rather than a new array per bucket. */
const scratch = new Float64Array(BUCKET_FIELDS)
const scratchBytes = new Uint8Array(scratch.buffer)

function addCounts(totals: Totals, bytes: Uint8Array, slots: readonly DeviceSlot[]): void {
  // A copy: LMDB hands out unaligned views, and Float64Array needs 8-byte alignment.
  scratchBytes.set(bytes.subarray(0, BUCKET_FIELDS * 8))
  for (const slot of slots) {
    const offset = SLOT_ORDER.indexOf(slot) * COUNT_FIELDS
    for (let i = 0; i < COUNT_FIELDS; i++) totals.counts[i] += scratch[offset + i]
  }
}

function addSketches(totals: Totals, sketches: StoredSketches, slots: readonly DeviceSlot[]): void {
  for (const slot of slots) if (sketches[slot]) registersOf(sketches[slot], totals.registers)
}

/** Adds a scope's buckets over the hours [from, to) into `totals`: whole days from the daily buckets, the rest by the hour; sketches only when `totals` takes them. */
function sumRange(tables: Tables, base: Part[], scope: string, from: number, to: number, slots: readonly DeviceSlot[], totals: Totals): Totals {
  const read = (countsTag: string, sketchTag: string, a: number, b: number) => {
    if (a >= b) return
    for (const { value } of range<Uint8Array>(tables, [...base, countsTag, scope, a], [...base, countsTag, scope, b])) addCounts(totals, value, slots)
    if (totals.registers.length === 0) return
    for (const { value } of range<StoredSketches>(tables, [...base, sketchTag, scope, a], [...base, sketchTag, scope, b])) addSketches(totals, value, slots)
  }
  const firstDay = Math.ceil(from / DAY_HOURS)
  const endDay = Math.floor(to / DAY_HOURS)
  if (firstDay >= endDay) {
    read('ov', 'vv', from, to)
    return totals
  }
  read('ov', 'vv', from, firstDay * DAY_HOURS)
  read('od', 'vd', firstDay, endDay)
  read('ov', 'vv', endDay * DAY_HOURS, to)
  return totals
}
