/**
 * The layout of the aggregates in LMDB: the keys, stored shapes and codecs of
 * the `derived` table (aggregates environment). What each entry counts is
 * defined backend-neutrally in src/store/aggregates/; the fold that writes
 * them is aggregate-batch.ts, the reads queries.ts.
 *
 * Everything derived lives in one table under [projectId, generation, tag, …].
 * A backfill re-keys pages and rebuilds the aggregates into a new generation
 * while ingest goes on writing to both; at its end the new generation goes
 * live and the old one is deleted in bounded steps (lifecycle.ts). Tags:
 *
 *   pg  [pageId]                          → { key }                    pages of this generation
 *   pb  [pageId, hour]                    → StoredPageBucket           views, sessions, times, scroll histogram
 *   pd  [pageId, day]                     → StoredPageBucket           the same by the day
 *   ht  [pageId, kind a|r|d, hour]        → { m?, t?, d?, u?: Buffer } click bins per device (sorted uint32 pairs bin,count)
 *   el  [scope, hour]                     → Buffer                     element counts (scope `*` or `p:<pageId>`): sorted uint32 records id-high, id-low, clicks, rage, dead, error clicks
 *   ed  [scope, day]                      → Buffer                     the same by the day
 *   en  [elementId]                       → ElementName                page, selector and the latest label and tag of an element
 *   es  [elementId, sk]                   → null                       the sessions that clicked an element (the leaderboard's rows link to them)
 *   fr  [scope, ts, id]                   → FrictionRecord             rage, dead and error clicks, quick backs (null in page scopes)
 *   em  [scope, msgId]                    → { message }                JS error messages (written once)
 *   eh  [scope, msgId, hour]              → count                      JS errors per hour
 *   eo  [scope, msgId, ts, id]            → { sk, page, url }          JS error occurrences (null in page scopes)
 *   sf  [sk, ts, id]                      → null                       a session's friction items (the record is fr's in scope `*`)
 *   se  [sk, msgId, ts, id]               → null                       a session's JS error occurrences (the occurrence is eo's in scope `*`)
 *   ss  [sk]                              → SessionRecordOfSignals     per-session counts, the span of the session's signals, and its findings for search
 *   vw  [sk, startedAt, urlId]            → ViewState                  a view as merged so far (a resent view replaces its contribution)
 *   sp  [sk, pageId]                      → hour                       the hour of a session's first view of a page
 *   ag  [batchId]                         → true                       batches already counted in this generation while a backfill built it
 *   ou, ov, od, vv, vd, tp, th                                          the overview's units, buckets, visitor sketches and page tables (overview-fold.ts, overview-pages.ts)
 *
 * Scopes: `*` the whole project, `p:<pageId>` one page.
 * Page keys and messages enter keys as short hashes: a page key may be
 * 2,000 characters and LMDB keys are capped at 1,978 bytes.
 *
 * Buckets that many entries touch (heat bins, elements, page and session
 * counts) are accumulated in memory over the whole transaction and written
 * once at its end: a transaction of 64 batches that all hit one busy page
 * rewrites that page's hour bucket once, not 64 times.
 */
import type { SessionFinds } from '../aggregates/search.js'
import { SCROLL_STEPS, type SessionSignals } from '../insights.js'
import { countsAsOther } from '../aggregates/elements.js'
import type { ElementCount } from '../aggregates/clicks.js'
import type { DeviceSlot } from '../aggregates/slots.js'
import type { PageBucket } from '../aggregates/views.js'
import type { DerivedState, Key, Tables } from './tables.js'

/** A part of a derived-table key. */
export type Part = string | number

export function derivedStateOf(tables: Tables, projectId: string): DerivedState {
  return tables.derivedState.get(projectId) ?? { live: 0, lastGen: 0 }
}

/** A page bucket as stored: each scroll histogram as 101 little-endian int32 (decoding it is a copy, not 101 numbers). */
export type StoredPageBucket = Omit<PageBucket, 'sh'> & { sh: Partial<Record<DeviceSlot, Uint8Array>> }

export function decodeHistogram(bytes: Uint8Array | undefined): Int32Array {
  const histogram = new Int32Array(SCROLL_STEPS)
  if (bytes) new Uint8Array(histogram.buffer).set(bytes.subarray(0, SCROLL_STEPS * 4))
  return histogram
}

/** What an element id stands for. */
export interface ElementName {
  page: string
  selector: string
  label?: string
  tag?: string
}

/**
 * uint32 fields per element record of an `el` bucket: id high (20 bits), id
 * low, clicks, rage, dead, error clicks. Fixed-size binary records are cheap
 * to merge at a fold and cheap to add up over 720 hours at read time.
 */
export const ELEMENT_FIELDS = 6

export function decodeRecords(bytes: Uint8Array | undefined): Uint32Array {
  return decodePairs(bytes)
}

/** A message of the registry: written once; when it occurred is in `eo` and `eh`. */
export interface ErrorMessage {
  message: string
}

export const pageScope = (pageId: string) => `p:${pageId}`
export const ALL_SCOPE = '*'

/**
 * A session's counts, and the span of its signals' (clamped) times: a
 * session's friction is read from the project's feed within that span, so
 * that no friction item is written a third time for a session scope.
 */
/** `f`: what the session did, for search (aggregates/search.ts); absent until it did anything searchable. */
/**
 * `ix`: the session's friction and errors are indexed under `sf` and `se`
 * from its first signal on (a session whose first signals were folded before
 * those tags existed has none, and its friction is found by scanning its span).
 */
export type SessionRecordOfSignals = SessionSignals & { from: number; to: number; f?: SessionFinds; ix?: 1 }

/**
 * Identity of a stored batch, from its key in the signals table: the base of its entries' ids. A batch from the
 * cluster mode's log is keyed by its entry's id ([project, receivedAt, sk, id]), the same on every node; one the
 * process received itself by process, thread and counter.
 */
export function batchIdOf(signalsKey: Key): string {
  if ((signalsKey as unknown[]).length === 4) {
    const [, receivedAt, , id] = signalsKey as [string, number, string, string]
    return `${receivedAt}.${id}`
  }
  const [, receivedAt, , pid, threadId, nonce] = signalsKey as [string, number, string, number, number, number]
  return `${receivedAt}.${pid}.${threadId}.${nonce}`
}

// ---- heat buckets: sorted (bin, count) pairs as little-endian uint32 ----

export function decodePairs(bytes: Uint8Array | undefined): Uint32Array {
  if (!bytes || bytes.byteLength === 0) return new Uint32Array(0)
  // A copy: LMDB hands out unaligned views, and Uint32Array needs 4-byte alignment.
  const pairs = new Uint32Array(bytes.byteLength >> 2)
  new Uint8Array(pairs.buffer).set(bytes)
  return pairs
}

export function mergePairs(existing: Uint32Array, delta: Map<number, number>): Buffer {
  const bins = [...delta.keys()].sort((a, b) => a - b)
  const out = new Uint32Array(existing.length + bins.length * 2)
  let i = 0
  let j = 0
  let o = 0
  while (i < existing.length || j < bins.length) {
    if (j >= bins.length || (i < existing.length && existing[i] < bins[j])) {
      out[o++] = existing[i]
      out[o++] = existing[i + 1]
      i += 2
    } else if (i >= existing.length || bins[j] < existing[i]) {
      out[o++] = bins[j]
      out[o++] = delta.get(bins[j])!
      j += 1
    } else {
      out[o++] = existing[i]
      out[o++] = existing[i + 1] + delta.get(bins[j])!
      i += 2
      j += 1
    }
  }
  return Buffer.from(out.buffer, 0, o * 4)
}

/** Merges counts into a bucket's sorted records; ids new to a full bucket go to their page's `(other)`. */
export function mergeRecords(existing: Uint32Array, delta: ElementDelta, other: (page: string) => number): Buffer {
  const index = new Map<number, number>()
  const fields = ELEMENT_FIELDS
  for (let i = 0; i < existing.length; i += fields) index.set(existing[i] * 0x1_0000_0000 + existing[i + 1], i / fields)
  const records: number[][] = []
  for (let i = 0; i < existing.length; i += fields) records.push(Array.from(existing.subarray(i, i + fields)))
  for (const [id, add] of delta) {
    const target = countsAsOther(index.has(id), index.size) ? other(add.page) : id
    let at = index.get(target)
    if (at === undefined) {
      at = records.length
      index.set(target, at)
      records.push([Math.floor(target / 0x1_0000_0000), target >>> 0, 0, 0, 0, 0])
    }
    const record = records[at]
    record[2] += add.clicks
    record[3] += add.rage
    record[4] += add.dead
    record[5] += add.errors
  }
  records.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  const out = new Uint32Array(records.length * fields)
  records.forEach((record, i) => out.set(record, i * fields))
  return Buffer.from(out.buffer)
}

/** Element counts of one bucket, by element id. */
export type ElementDelta = Map<number, ElementCount>

// ---- reading the live generation ----

export type Entry<V> = { key: Key; value: V }

/** Entries of the derived table in [start, end). */
export function range<V>(tables: Tables, start: Key, end: Key, reverse = false, limit?: number): Iterable<Entry<V>> {
  return tables.derived.getRange({ start, end, reverse, limit }) as Iterable<Entry<V>>
}

export function liveGen(tables: Tables, projectId: string): number {
  return derivedStateOf(tables, projectId).live
}
