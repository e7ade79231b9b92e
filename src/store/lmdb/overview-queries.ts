/**
 * Reads of the overview's buckets (overview-fold.ts): a range is read from
 * the daily buckets for its whole days and the hourly ones for the hours at
 * its ends, so a month costs about 30 bucket reads per scope whatever the
 * number of sessions in it.
 */
import { addInto, assembleOverview, COUNT_FIELDS, DAY_HOURS, type Overview, type OverviewQuery, type OverviewSource, type Totals } from '../aggregates/overview.js'
import { shortId } from '../aggregates/ids.js'
import type { DeviceSlot } from '../aggregates/slots.js'
import { registersOf, REGISTERS } from '../aggregates/visitors.js'
import { ALL_SCOPE, liveGen, pageScope, range, type Part } from './derived-keys.js'
import { decodeCounts, type StoredOverviewBucket } from './overview-fold.js'
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
          for (const { key, value } of range<StoredOverviewBucket>(tables, [...base, 'ov', scope, from], [...base, 'ov', scope, to])) addBucket(out[(key as Part[])[4] as number - from], value, slots)
        } else {
          out.forEach((totals, i) => sumRange(tables, base, scope, from + i * step, from + (i + 1) * step, slots, totals))
        }
      }
      return out
    },
    pageTotals(pages, from, to, slots) {
      return (pages ?? derivedPages(tables, projectId)).map((page) => ({ page, totals: sumRange(tables, base, pageScope(shortId(page)), from, to, slots, emptyTotals(false)) }))
    },
  }
  return assembleOverview(source, query)
}

/** `withVisitors`: whether to merge sketches too (the top pages need only counts). */
function emptyTotals(withVisitors: boolean): Totals {
  return { counts: new Float64Array(COUNT_FIELDS), registers: new Uint8Array(withVisitors ? REGISTERS : 0) }
}

function addBucket(totals: Totals, bucket: StoredOverviewBucket, slots: readonly DeviceSlot[]): void {
  for (const slot of slots) {
    const counts = bucket.c[slot]
    if (counts) addInto(totals.counts, decodeCounts(counts))
    if (totals.registers.length > 0 && bucket.v[slot]) registersOf(bucket.v[slot], totals.registers)
  }
}

/** Adds a scope's buckets over the hours [from, to) into `totals`: whole days from the daily buckets, the rest by the hour. */
function sumRange(tables: Tables, base: Part[], scope: string, from: number, to: number, slots: readonly DeviceSlot[], totals: Totals): Totals {
  const firstDay = Math.ceil(from / DAY_HOURS)
  const endDay = Math.floor(to / DAY_HOURS)
  const hours = (a: number, b: number) => {
    if (a < b) for (const { value } of range<StoredOverviewBucket>(tables, [...base, 'ov', scope, a], [...base, 'ov', scope, b])) addBucket(totals, value, slots)
  }
  if (firstDay >= endDay) {
    hours(from, to)
    return totals
  }
  hours(from, firstDay * DAY_HOURS)
  for (const { value } of range<StoredOverviewBucket>(tables, [...base, 'od', scope, firstDay], [...base, 'od', scope, endDay])) addBucket(totals, value, slots)
  hours(endDay * DAY_HOURS, to)
  return totals
}
