/**
 * The aggregates derived from signal batches (issue 6), kept up to date inside
 * the write transaction that stores the raw batch, so they can never disagree
 * with it after a crash.
 *
 * Everything derived lives in one table under [projectId, generation, tag, …].
 * A backfill re-keys pages and rebuilds the aggregates into a new generation
 * while ingest goes on writing to both; at its end the new generation goes
 * live and the old one is deleted in bounded steps (lifecycle.ts). Tags:
 *
 *   pg  [pageId]                          → { key }                    pages of this generation
 *   pb  [pageId, hour]                    → PageBucket                 views, sessions, times, scroll histogram
 *   ht  [pageId, kind a|r|d, hour]        → { m?, t?, d?, u?: Buffer } click bins per device (sorted uint32 pairs bin,count)
 *   el  [scope, hour]                     → ElementEntry[]             element counts (scope `*` or `p:<pageId>`)
 *   fr  [scope, ts, id]                   → FrictionRecord             rage, dead and error clicks, quick backs
 *   em  [scope, msgId]                    → { message, first, last }   JS error messages
 *   eh  [scope, msgId, hour]              → count                      JS errors per hour
 *   eo  [scope, msgId, ts, id]            → { sk, page, url }          JS error occurrences
 *   ss  [sk]                              → SessionSignals             per-session counts for the session list
 *   vw  [sk, startedAt, urlId]            → ViewState                  a view as merged so far (a resent view replaces its contribution)
 *   sp  [sk, pageId]                      → hour                       the hour of a session's first view of a page
 *   ag  [batchId]                         → true                       batches ingest added while this generation was being built
 *
 * Scopes: `*` the whole project, `p:<pageId>` one page, `s:<sk>` one session.
 * Page keys and messages enter keys as short hashes: a page key may be
 * 2,000 characters and LMDB keys are capped at 1,978 bytes.
 *
 * Buckets that many entries touch (heat bins, elements, page and session
 * counts) are accumulated in memory over the whole transaction and written
 * once at its end: a transaction of 64 batches that all hit one busy page
 * rewrites that page's hour bucket once, not 64 times.
 */
import { createHash } from 'node:crypto'
import type { Click, SignalsRecord, View } from '../store.js'
import {
  clampTime,
  deviceOf,
  ELEMENTS_PER_BUCKET,
  emptySessionSignals,
  heatBin,
  hourOf,
  OTHER_ELEMENTS,
  scrollStep,
  SCROLL_STEPS,
  type Device,
  type FrictionKind,
  type SessionSignals,
} from '../insights.js'
import type { Key, Tables } from './index.js'

/** A part of a derived-table key. */
type Part = string | number

/** Which generation of a project's aggregates reads use, and which a running backfill builds. */
export interface DerivedState {
  live: number
  building?: number
  /** Generations whose entries are still to be deleted. */
  prune?: number[]
  /** Highest generation ever used: a new one is always fresh. */
  lastGen: number
}

export function derivedStateOf(tables: Tables, projectId: string): DerivedState {
  return tables.derivedState.get(projectId) ?? { live: 0, lastGen: 0 }
}

/** Device slot of a heat bucket or scroll histogram; `u` when the viewport width is unknown. */
export type DeviceSlot = 'm' | 't' | 'd' | 'u'
export const DEVICE_SLOT: Record<Device, DeviceSlot> = { mobile: 'm', tablet: 't', desktop: 'd' }
export const ALL_SLOTS: readonly DeviceSlot[] = ['m', 't', 'd', 'u']

function slotOf(viewportWidth: number | undefined): DeviceSlot {
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

export function emptyPageBucket(): PageBucket {
  return { v: 0, s: 0, am: 0, av: 0, sp: 0, sv: 0, ex: 0, qb: 0, er: 0, cl: 0, sh: {} }
}

/** [selector, clicks, rage, dead, errorClicks, label, tag]; in the `*` scope the selector is prefixed by `<pageId>\n`. */
export type ElementEntry = [string, number, number, number, number, string | undefined, string | undefined]

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

export interface ErrorMessage {
  message: string
  first: number
  last: number
}

/** A view as merged from every copy received; each field merges commutatively, so the order copies arrive in does not matter. */
interface ViewState {
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
export const sessionScope = (sk: string) => `s:${sk}`
export const ALL_SCOPE = '*'

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

function mergePairs(existing: Uint32Array, delta: Map<number, number>): Buffer {
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

// ---- the accumulator of one transaction ----

interface Pending<V> {
  key: Key
  value: V
}

function pending<V>(map: Map<string, Pending<V>>, key: Key, init: () => V): V {
  const id = JSON.stringify(key)
  let entry = map.get(id)
  if (!entry) {
    entry = { key, value: init() }
    map.set(id, entry)
  }
  return entry.value
}

type HeatDelta = Partial<Record<DeviceSlot, Map<number, number>>>
type ElementDelta = Map<string, ElementEntry>

function addTo<T extends Record<string, any>>(target: T, delta: Partial<T>): void {
  for (const field in delta) (target as any)[field] += (delta as any)[field]
}

/**
 * Collects what the batches of one write transaction add to the aggregates
 * and writes it with `flush()` before the transaction commits. Not shared
 * between transactions.
 */
export class Deriver {
  private heat = new Map<string, Pending<HeatDelta>>()
  private elements = new Map<string, Pending<ElementDelta>>()
  private pageBuckets = new Map<string, Pending<PageBucket>>()
  private sessions = new Map<string, Pending<SessionSignals>>()
  private errorHours = new Map<string, Pending<number>>()
  private errorMessages = new Map<string, Pending<ErrorMessage>>()
  private knownPages = new Set<string>()

  private states = new Map<string, DerivedState>()

  constructor(private readonly tables: Tables) {}

  /**
   * Ingest: adds a batch just stored under `signalsKey` to the live
   * generation, and to the one a running backfill builds (marked there, so
   * that the backfill does not count it a second time).
   */
  addStored(projectId: string, signalsKey: Key, batch: SignalsRecord): void {
    let state = this.states.get(projectId)
    if (!state) {
      state = derivedStateOf(this.tables, projectId)
      this.states.set(projectId, state)
    }
    const receivedAt = (signalsKey as [string, number])[1]
    const batchId = batchIdOf(signalsKey)
    this.addBatch(projectId, state.live, receivedAt, batchId, batch)
    if (state.building !== undefined) {
      this.addBatch(projectId, state.building, receivedAt, batchId, batch)
      this.tables.derived.put([projectId, state.building, 'ag', batchId], true)
    }
  }

  /** Backfill: adds a stored (re-keyed) batch to the generation being built, unless ingest already did. */
  addRebuilt(projectId: string, gen: number, signalsKey: Key, batch: SignalsRecord): void {
    const batchId = batchIdOf(signalsKey)
    if (this.tables.derived.doesExist([projectId, gen, 'ag', batchId])) return
    this.addBatch(projectId, gen, (signalsKey as [string, number])[1], batchId, batch)
  }

  /** Adds one stored batch (`batchId` from its signals key) to generation `gen`. */
  addBatch(projectId: string, gen: number, receivedAt: number, batchId: string, batch: SignalsRecord): void {
    const base: Part[] = [projectId, gen]
    const { sk } = batch
    const session = pending(this.sessions, [...base, 'ss', sk], emptySessionSignals)
    batch.clicks.forEach((click, i) => this.addClick(base, sk, session, receivedAt, `${batchId}.c${i}`, click))
    batch.errors.forEach((error, i) => {
      const page = error.page ?? ''
      const pageId = this.notePage(base, page)
      const ts = clampTime(error.ts, receivedAt)
      const hour = hourOf(ts)
      const msgId = shortId(error.message)
      const id = `${batchId}.e${i}`
      session.errors += 1
      pending(this.pageBuckets, [...base, 'pb', pageId, hour], emptyPageBucket).er += 1
      for (const scope of [ALL_SCOPE, pageScope(pageId), sessionScope(sk)]) {
        this.tables.derived.put([...base, 'eo', scope, msgId, ts, id], { sk, page, url: error.url } satisfies ErrorOccurrence)
        const hourKey = [...base, 'eh', scope, msgId, hour]
        const id_ = JSON.stringify(hourKey)
        const counted = this.errorHours.get(id_)
        if (counted) counted.value += 1
        else this.errorHours.set(id_, { key: hourKey, value: 1 })
        const message = pending(this.errorMessages, [...base, 'em', scope, msgId], () => ({ message: error.message, first: ts, last: ts }))
        message.first = Math.min(message.first, ts)
        message.last = Math.max(message.last, ts)
      }
    })
    for (const view of batch.views) this.addView(base, sk, session, receivedAt, view)
  }

  private addClick(base: Part[], sk: string, session: SessionSignals, receivedAt: number, id: string, click: Click): void {
    const page = click.page ?? ''
    const pageId = this.notePage(base, page)
    const ts = clampTime(click.ts, receivedAt)
    const hour = hourOf(ts)
    const slot = slotOf(click.vw)
    const bin = heatBin(click.xRatio, click.yDoc)
    const kind = click.kind ?? 'click'
    this.addHeat([...base, 'ht', pageId, 'a', hour], slot, bin)
    if (kind === 'rage') this.addHeat([...base, 'ht', pageId, 'r', hour], slot, bin)
    else if (kind === 'dead') this.addHeat([...base, 'ht', pageId, 'd', hour], slot, bin)
    pending(this.pageBuckets, [...base, 'pb', pageId, hour], emptyPageBucket).cl += 1
    session.clicks += 1
    if (kind === 'rage') session.rage += 1
    else if (kind === 'dead') session.dead += 1
    else if (kind === 'error') session.errorClicks += 1

    if (click.selector) {
      this.addElement([...base, 'el', pageScope(pageId), hour], click.selector, kind, click)
      this.addElement([...base, 'el', ALL_SCOPE, hour], `${pageId}\n${click.selector}`, kind, click)
    }
    if (kind === 'click') return
    const record: FrictionRecord = { kind: kind === 'error' ? 'errorClick' : kind, sk, page, url: click.url, xRatio: click.xRatio, yDoc: click.yDoc }
    if (click.selector !== undefined) record.selector = click.selector
    if (click.label !== undefined) record.label = click.label
    if (click.tag !== undefined) record.tag = click.tag
    if (click.n !== undefined) record.n = click.n
    this.putFriction(base, pageId, sk, ts, id, record)
  }

  private putFriction(base: Part[], pageId: string, sk: string, ts: number, id: string, record: FrictionRecord): void {
    for (const scope of [ALL_SCOPE, pageScope(pageId), sessionScope(sk)]) this.tables.derived.put([...base, 'fr', scope, ts, id], record)
  }

  private removeFriction(base: Part[], pageId: string, sk: string, ts: number, id: string): void {
    for (const scope of [ALL_SCOPE, pageScope(pageId), sessionScope(sk)]) this.tables.derived.remove([...base, 'fr', scope, ts, id])
  }

  private addView(base: Part[], sk: string, session: SessionSignals, receivedAt: number, view: View): void {
    const page = view.page ?? ''
    const pageId = this.notePage(base, page)
    const viewKey = [...base, 'vw', sk, view.startedAt, shortId(view.url)]
    const before = this.tables.derived.get(viewKey) as ViewState | undefined
    // A view keeps the page it was first counted under (rules may change between copies).
    const after = mergeView(before, view, page, receivedAt)
    const keptPageId = before ? shortId(before.page) : pageId
    this.tables.derived.put(viewKey, after)
    if (before) this.contribute(base, keptPageId, before, -1)
    this.contribute(base, keptPageId, after, 1)

    if (!before) session.views += 1
    session.activeMs += (after.activeMs ?? 0) - (before?.activeMs ?? 0)
    if (after.quickBack && (!before?.quickBack || before.at !== after.at)) {
      // At the view's start: the replay opens where the visitor arrived and bounced. A copy
      // that moves the start (an earlier clamp) moves the item, whatever order copies came in.
      const id = `q.${shortId(`${sk}\n${view.url}`)}.${view.startedAt}`
      if (before?.quickBack) this.removeFriction(base, keptPageId, sk, before.at, id)
      else session.quickBacks += 1
      this.putFriction(base, keptPageId, sk, after.at, id, { kind: 'quickBack', sk, page: after.page, url: view.url })
    }

    // Sessions per page: counted once, in the hour of the session's first view of it.
    const seenKey = [...base, 'sp', sk, keptPageId]
    const seenHour = this.tables.derived.get(seenKey) as number | undefined
    const hour = hourOf(after.at)
    if (seenHour === undefined || hour < seenHour) {
      if (seenHour !== undefined) pending(this.pageBuckets, [...base, 'pb', keptPageId, seenHour], emptyPageBucket).s -= 1
      pending(this.pageBuckets, [...base, 'pb', keptPageId, hour], emptyPageBucket).s += 1
      this.tables.derived.put(seenKey, hour)
    }
  }

  /** Adds (sign 1) or withdraws (sign -1) what a view counts for in its page's hour bucket. */
  private contribute(base: Part[], pageId: string, view: ViewState, sign: 1 | -1): void {
    const bucket = pending(this.pageBuckets, [...base, 'pb', pageId, hourOf(view.at)], emptyPageBucket)
    bucket.v += sign
    if (view.activeMs !== undefined) {
      bucket.am += sign * view.activeMs
      bucket.av += sign
    }
    if (view.maxScrollPct !== undefined) {
      // In hundredths of a percent: integer sums stay exact through any number of withdrawals.
      bucket.sp += sign * Math.round(view.maxScrollPct * 100)
      bucket.sv += sign
      const slot = slotOf(view.vw)
      const histogram = (bucket.sh[slot] ??= new Array<number>(SCROLL_STEPS).fill(0))
      histogram[scrollStep(view.maxScrollPct)] += sign
    }
    if (view.exit) bucket.ex += sign
    if (view.quickBack) bucket.qb += sign
  }

  private addHeat(key: Part[], slot: DeviceSlot, bin: number): void {
    const delta = pending<HeatDelta>(this.heat, key, () => ({}))
    const bins = (delta[slot] ??= new Map())
    bins.set(bin, (bins.get(bin) ?? 0) + 1)
  }

  private addElement(key: Part[], selector: string, kind: NonNullable<Click['kind']>, click: Click): void {
    const delta = pending<ElementDelta>(this.elements, key, () => new Map())
    let entry = delta.get(selector)
    if (!entry) {
      entry = [selector, 0, 0, 0, 0, undefined, undefined]
      delta.set(selector, entry)
    }
    entry[1] += 1
    if (kind === 'rage') entry[2] += 1
    else if (kind === 'dead') entry[3] += 1
    else if (kind === 'error') entry[4] += 1
    if (click.label !== undefined) entry[5] = click.label
    if (click.tag !== undefined) entry[6] = click.tag
  }

  /** The page's id, registering it in this generation the first time. */
  private notePage(base: Part[], page: string): string {
    const pageId = shortId(page)
    const key = [...base, 'pg', pageId]
    const id = JSON.stringify(key)
    if (!this.knownPages.has(id)) {
      this.knownPages.add(id)
      if (!this.tables.derived.doesExist(key)) this.tables.derived.put(key, { key: page })
    }
    return pageId
  }

  /** Writes every accumulated bucket: one read-modify-write each. */
  flush(): void {
    const { derived } = this.tables
    for (const { key, value } of this.heat.values()) {
      const current = (derived.get(key) ?? {}) as Partial<Record<DeviceSlot, Uint8Array>>
      const next: Partial<Record<DeviceSlot, Buffer>> = {}
      for (const slot of ALL_SLOTS) {
        const delta = value[slot]
        if (delta) next[slot] = mergePairs(decodePairs(current[slot]), delta)
        else if (current[slot]) next[slot] = Buffer.from(current[slot]!)
      }
      derived.put(key, next)
    }
    for (const { key, value } of this.elements.values()) {
      const entries = new Map<string, ElementEntry>()
      for (const entry of (derived.get(key) ?? []) as ElementEntry[]) entries.set(entry[0], entry)
      for (const [selector, add] of value) {
        const name = entries.has(selector) || entries.size < ELEMENTS_PER_BUCKET ? selector : otherOf(selector)
        const entry = entries.get(name) ?? ([name, 0, 0, 0, 0, undefined, undefined] as ElementEntry)
        entry[1] += add[1]
        entry[2] += add[2]
        entry[3] += add[3]
        entry[4] += add[4]
        if (name === selector) {
          if (add[5] !== undefined) entry[5] = add[5]
          if (add[6] !== undefined) entry[6] = add[6]
        }
        entries.set(name, entry)
      }
      derived.put(key, [...entries.values()])
    }
    for (const { key, value } of this.pageBuckets.values()) {
      const bucket = (derived.get(key) as PageBucket | undefined) ?? emptyPageBucket()
      const { sh, ...counts } = value
      addTo(bucket, counts)
      for (const slot of Object.keys(sh) as DeviceSlot[]) {
        const histogram = (bucket.sh[slot] ??= new Array<number>(SCROLL_STEPS).fill(0))
        sh[slot]!.forEach((n, i) => (histogram[i] += n))
      }
      derived.put(key, bucket)
    }
    for (const { key, value } of this.sessions.values()) {
      const counts = (derived.get(key) as SessionSignals | undefined) ?? emptySessionSignals()
      addTo(counts, value)
      derived.put(key, counts)
    }
    for (const { key, value } of this.errorHours.values()) derived.put(key, ((derived.get(key) as number | undefined) ?? 0) + value)
    for (const { key, value } of this.errorMessages.values()) {
      const current = derived.get(key) as ErrorMessage | undefined
      derived.put(key, current ? { message: current.message, first: Math.min(current.first, value.first), last: Math.max(current.last, value.last) } : value)
    }
  }
}

/** In the `*` scope the entry name carries its page id: overflow stays within its page. */
function otherOf(selector: string): string {
  const newline = selector.indexOf('\n')
  return newline === -1 ? OTHER_ELEMENTS : `${selector.slice(0, newline)}\n${OTHER_ELEMENTS}`
}

function mergeView(before: ViewState | undefined, view: View, page: string, receivedAt: number): ViewState {
  const at = clampTime(view.startedAt, receivedAt)
  const max = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.max(a, b))
  const merged: ViewState = {
    at: before ? Math.min(before.at, at) : at,
    page: before?.page ?? page,
  }
  const vw = max(before?.vw, view.vw)
  const activeMs = max(before?.activeMs, view.activeMs)
  const maxScrollPct = max(before?.maxScrollPct, view.maxScrollPct)
  if (vw !== undefined) merged.vw = vw
  if (activeMs !== undefined) merged.activeMs = activeMs
  if (maxScrollPct !== undefined) merged.maxScrollPct = maxScrollPct
  if (before?.exit || view.exit) merged.exit = true
  if (before?.quickBack || view.quickBack) merged.quickBack = true
  return merged
}
