/**
 * The aggregates derived from signal batches (issue 6), folded in after the
 * acknowledgement. The ingest transaction stores a batch and logs it
 * (fold-log.ts); the deriver (workers/fold.ts, a thread of the control
 * worker) takes the logged batches, FOLD_BATCHES at a time, and in one
 * transaction adds them to the aggregates and moves its cursors past them. A
 * batch is therefore counted exactly once, whatever crashes, and the
 * aggregates can never disagree with the raw batches for longer than the
 * deriver's lag.
 *
 * Why after and not inside the ingest transaction: the busy buckets (heat
 * bins, elements, page counts) are read-modify-writes per transaction, and an
 * ingest transaction holds the few batches that arrived meanwhile, so each
 * was rewritten a few times per batch. A fold rewrites each once: measured on
 * the read bench's batches, ~500 µs of writer time per batch inside 8-batch
 * ingest transactions, ~120 µs in 250-batch folds, ~80 µs in 2,000-batch
 * ones. The aggregates live in an LMDB environment of their own
 * (`aggregates/` in DATA_DIR), whose write lock ingest never takes: in the
 * main one, folds held up ingest commits, which cost /signals a third more
 * throughput and pushed its p99 to ~200 ms with large folds. Reads fold what
 * is pending first (bounded), so a client reads its writes.
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
 *   ss  [sk]                              → SessionRecordOfSignals     per-session counts, and the span of the session's signals
 *   vw  [sk, startedAt, urlId]            → ViewState                  a view as merged so far (a resent view replaces its contribution)
 *   sp  [sk, pageId]                      → hour                       the hour of a session's first view of a page
 *   ag  [batchId]                         → true                       batches already counted in this generation while a backfill built it
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
import { createHash } from 'node:crypto'
import {
  deviceOf,
  ELEMENTS_PER_BUCKET,
  SCROLL_STEPS,
  type Device,
  type FrictionKind,
  type SessionSignals,
} from '../insights.js'
import type { DerivedState, Key, Tables } from './tables.js'

/** A part of a derived-table key. */
export type Part = string | number

export function derivedStateOf(tables: Tables, projectId: string): DerivedState {
  return tables.derivedState.get(projectId) ?? { live: 0, lastGen: 0 }
}

/** Device slot of a heat bucket or scroll histogram; `u` when the viewport width is unknown. */
export type DeviceSlot = 'm' | 't' | 'd' | 'u'
export const DEVICE_SLOT: Record<Device, DeviceSlot> = { mobile: 'm', tablet: 't', desktop: 'd' }
export const ALL_SLOTS: readonly DeviceSlot[] = ['m', 't', 'd', 'u']

export function slotOf(viewportWidth: number | undefined): DeviceSlot {
  const device = deviceOf(viewportWidth)
  return device ? DEVICE_SLOT[device] : 'u'
}

export interface PageBucket {
  /** views, sessions, activeMs sum, views with activeMs, scroll depth sum (hundredths of a percent), views with a depth, exits, quick backs, JS errors, clicks */
  v: number
  s: number
  am: number
  av: number
  sp: number
  sv: number
  ex: number
  qb: number
  er: number
  cl: number
  /** Scroll-depth histogram per device slot: views whose deepest scroll was each whole percent. */
  sh: Partial<Record<DeviceSlot, number[]>>
}

/** A page bucket as stored: each scroll histogram as 101 little-endian int32 (decoding it is a copy, not 101 numbers). */
export type StoredPageBucket = Omit<PageBucket, 'sh'> & { sh: Partial<Record<DeviceSlot, Uint8Array>> }

export function decodeHistogram(bytes: Uint8Array | undefined): Int32Array {
  const histogram = new Int32Array(SCROLL_STEPS)
  if (bytes) new Uint8Array(histogram.buffer).set(bytes.subarray(0, SCROLL_STEPS * 4))
  return histogram
}

export function emptyPageBucket(): PageBucket {
  return { v: 0, s: 0, am: 0, av: 0, sp: 0, sv: 0, ex: 0, qb: 0, er: 0, cl: 0, sh: {} }
}

/** What an element id stands for. */
export interface ElementName {
  page: string
  selector: string
  label?: string
  tag?: string
}

/** uint32 fields per element record of an `el` bucket: id high (20 bits), id low, clicks, rage, dead, error clicks. */
export const ELEMENT_FIELDS = 6

/**
 * An element's id: 52 bits of SHA-1 of its page key and selector, exact in a
 * double, so that buckets hold fixed-size binary records instead of strings
 * (cheap to merge at ingest, cheap to add up over 720 hours at read time).
 */
export function elementIdOf(page: string, selector: string): number {
  const text = `${page}\n${selector}`
  let id = elementIds.get(text)
  if (id === undefined) {
    const digest = createHash('sha1').update(text).digest()
    id = (digest.readUInt32BE(0) & 0xfffff) * 0x1_0000_0000 + digest.readUInt32BE(4)
    if (elementIds.size >= 50_000) elementIds.clear()
    elementIds.set(text, id)
  }
  return id
}

const elementIds = new Map<string, number>()

export function decodeRecords(bytes: Uint8Array | undefined): Uint32Array {
  return decodePairs(bytes)
}

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

export interface ErrorOccurrence {
  sk: string
  page: string
  url: string
}

/** A message of the registry: written once; when it occurred is in `eo` and `eh`. */
export interface ErrorMessage {
  message: string
}

export interface ViewState {
  /** Clamped start: the earliest of the copies. */
  at: number
  page: string
  vw?: number
  activeMs?: number
  maxScrollPct?: number
  exit?: boolean
  quickBack?: boolean
}

// ---- short, stable ids for key parts ----

const idCache = new Map<string, string>()
/** 96 bits of SHA-1, base64url: a page key or message as a key part. Collisions are not a practical concern at this width. */
export function shortId(text: string): string {
  let id = idCache.get(text)
  if (id === undefined) {
    id = createHash('sha1').update(text).digest('base64url').slice(0, 16)
    if (idCache.size >= 50_000) idCache.clear()
    idCache.set(text, id)
  }
  return id
}

export const pageScope = (pageId: string) => `p:${pageId}`
export const ALL_SCOPE = '*'

/**
 * A session's counts, and the span of its signals' (clamped) times: a
 * session's friction is read from the project's feed within that span, so
 * that no friction item is written a third time for a session scope.
 */
export type SessionRecordOfSignals = SessionSignals & { from: number; to: number }

/** Identity of a stored batch, from its key in the signals table: the base of its entries' ids. */
export function batchIdOf(signalsKey: Key): string {
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
    let target = id
    if (!index.has(id) && index.size >= ELEMENTS_PER_BUCKET) target = other(add.page)
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

/** What clicks add to one element in a bucket. */
export interface ElementCount {
  page: string
  clicks: number
  rage: number
  dead: number
  errors: number
}
export type ElementDelta = Map<number, ElementCount>
