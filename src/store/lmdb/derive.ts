/**
 * The accumulator of one write transaction: what the stored signal batches it
 * takes add to the aggregates (derived-keys.ts), kept in memory and written once
 * at its end.
 */
import { compareKeys } from 'lmdb'
import type { Click, SignalsRecord, View } from '../records.js'
import { clampTime, emptySessionSignals, heatBin, hourOf, OTHER_ELEMENTS, scrollStep, SCROLL_STEPS, type SessionSignals } from '../insights.js'
import {
  ALL_SCOPE,
  ALL_SLOTS,
  batchIdOf,
  decodeHistogram,
  decodePairs,
  decodeRecords,
  derivedStateOf,
  elementIdOf,
  emptyPageBucket,
  mergePairs,
  mergeRecords,
  pageScope,
  shortId,
  slotOf,
  type DeviceSlot,
  type ElementDelta,
  type ElementName,
  type ErrorMessage,
  type ErrorOccurrence,
  type FrictionRecord,
  type PageBucket,
  type Part,
  type SessionRecordOfSignals,
  type StoredPageBucket,
  type ViewState,
} from './derived-keys.js'
import type { DerivedState, Key, Tables } from './tables.js'


/**
 * Pages and messages known to be in their generation's registries, per
 * thread: registry entries are never removed but with their whole generation
 * (whose number is in the id), so a hit is never stale.
 */
const registeredKeys = new Set<string>()

/**
 * Element names as this thread last read them (committed). A label another
 * thread wrote meanwhile is overwritten only when this one sees a different
 * label: either way the registry holds a label recently seen.
 */
const elementNames = new Map<string, ElementName>()

// ---- the accumulator of one transaction ----

interface Pending<V> {
  key: Key
  value: V
}

/** The accumulator entry of a bucket. Ids join the key parts with NUL: the one free-text part (a session key) is followed only by parts without NUL, so ids cannot collide. */
function pending<V>(map: Map<string, Pending<V>>, key: Part[], init: () => V): V {
  const id = key.join('\u0000')
  let entry = map.get(id)
  if (!entry) {
    entry = { key, value: init() }
    map.set(id, entry)
  }
  return entry.value
}

type HeatDelta = Partial<Record<DeviceSlot, Map<number, number>>>

interface ClickBuckets {
  pageId: string
  heat: HeatDelta
  rage: HeatDelta
  dead: HeatDelta
  bucket: PageBucket
  elements: ElementDelta
  allElements: ElementDelta
  /** Elements of this page already noted in this transaction, by selector: their id and the label and tag noted. */
  noted: Map<string, { id: number; label?: string; tag?: string }>
  /** Sessions already indexed under each element of this page in this transaction, by element id. */
  clickedBy: Map<number, Set<string>>
}

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
  /** Pages and messages this transaction registered. */
  private written = new Set<string>()
  /** Element names this transaction wrote. */
  private names = new Map<string, ElementName>()
  private clickRefs = new Map<string, ClickBuckets>()
  /** The buckets the previous click used: the next click of a batch nearly always shares them. */
  private lastClickRefs?: { projectId: Part; gen: Part; page: string; hour: number; refs: ClickBuckets }
  /** Per page of this transaction: the elements noted and the element-session pairs indexed. */
  private pageMemos = new Map<string, Pick<ClickBuckets, 'noted' | 'clickedBy'>>()
  private spans = new Map<string, Pending<{ from: number; to: number }>>()

  private states = new Map<string, DerivedState>()

  constructor(private readonly tables: Tables) {}

  /**
   * The deriver: adds a stored batch to the live generation and to the one a
   * running backfill builds.
   *
   * The backfill walks the stored batches in key order, re-keys each and
   * counts it in the generation it builds, folded or not. So the deriver
   * leaves a batch the walk has yet to reach to the walk (it would count it
   * under its old pages), and counts in that generation only a batch the walk
   * passed before it was stored. A batch counted in a generation being built
   * is marked there (`ag`), by whichever counted it, and never counted there
   * again, even after that generation has gone live.
   */
  addStored(projectId: string, signalsKey: Key, batch: SignalsRecord): void {
    let state = this.states.get(projectId)
    if (!state) {
      state = derivedStateOf(this.tables, projectId)
      this.states.set(projectId, state)
    }
    const receivedAt = (signalsKey as [string, number])[1]
    const batchId = batchIdOf(signalsKey)
    for (const gen of [state.live, state.building]) {
      if (gen === undefined) continue
      // Not yet walked: the walk will count it, re-keyed.
      if (gen === state.building && (state.walkedThrough === undefined || compareKeys(signalsKey, state.walkedThrough) > 0)) continue
      // Generation 0 was never built by a backfill: no marks to look for.
      if (gen > 0 && this.tables.derived.doesExist([projectId, gen, 'ag', batchId])) continue
      this.addBatch(projectId, gen, receivedAt, batchId, batch)
      if (gen === state.building) this.tables.derived.put([projectId, gen, 'ag', batchId], true)
    }
  }

  /** Backfill: adds a stored (re-keyed) batch to the generation being built, unless the deriver already did. */
  addRebuilt(projectId: string, gen: number, signalsKey: Key, batch: SignalsRecord): void {
    const batchId = batchIdOf(signalsKey)
    const mark = [projectId, gen, 'ag', batchId]
    if (this.tables.derived.doesExist(mark)) return
    this.addBatch(projectId, gen, (signalsKey as [string, number])[1], batchId, batch)
    this.tables.derived.put(mark, true)
  }

  /** Adds one stored batch (`batchId` from its signals key) to generation `gen`. */
  addBatch(projectId: string, gen: number, receivedAt: number, batchId: string, batch: SignalsRecord): void {
    const base: Part[] = [projectId, gen]
    const { sk } = batch
    const session = pending(this.sessions, [...base, 'ss', sk], emptySessionSignals)
    const span = pending(this.spans, [...base, 'ss', sk], () => ({ from: Infinity, to: -Infinity }))
    for (const click of batch.clicks) spanOver(span, clampTime(click.ts, receivedAt))
    for (const error of batch.errors) spanOver(span, clampTime(error.ts, receivedAt))
    for (const view of batch.views) spanOver(span, clampTime(view.startedAt, receivedAt))
    batch.clicks.forEach((click, i) => this.addClick(base, sk, session, receivedAt, batchId, i, click))
    batch.errors.forEach((error, i) => {
      const page = error.page ?? ''
      const pageId = this.notePage(base, page)
      const ts = clampTime(error.ts, receivedAt)
      const hour = hourOf(ts)
      const msgId = shortId(error.message)
      const id = `${batchId}.e${i}`
      session.errors += 1
      pending(this.pageBuckets, [...base, 'pb', pageId, hour], emptyPageBucket).er += 1
      for (const scope of [ALL_SCOPE, pageScope(pageId)]) {
        // The page scope's entry is the key alone: readers take the record from the project scope.
        this.tables.derived.put([...base, 'eo', scope, msgId, ts, id], scope === ALL_SCOPE ? ({ sk, page, url: error.url } satisfies ErrorOccurrence) : null)
        const hourKey = [...base, 'eh', scope, msgId, hour]
        const hourId = hourKey.join('\u0000')
        const counted = this.errorHours.get(hourId)
        if (counted) counted.value += 1
        else this.errorHours.set(hourId, { key: hourKey, value: 1 })
        this.noteMessage([...base, 'em', scope, msgId], error.message)
      }
    })
    for (const view of batch.views) this.addView(base, sk, session, receivedAt, view)
  }

  /**
   * The buckets of one page and hour, looked up once for all the clicks that
   * share them (a batch's clicks nearly always do): the per-click work is then
   * a few additions, not a handful of key builds and map lookups.
   */
  private clickBuckets(base: Part[], page: string, hour: number): ClickBuckets {
    const last = this.lastClickRefs
    if (last && last.page === page && last.hour === hour && last.projectId === base[0] && last.gen === base[1]) return last.refs
    const id = `${base[0]}\u0000${base[1]}\u0000${page}\u0000${hour}`
    let refs = this.clickRefs.get(id)
    if (!refs) {
      const pageId = this.notePage(base, page)
      refs = {
        pageId,
        heat: pending<HeatDelta>(this.heat, [...base, 'ht', pageId, 'a', hour], () => ({})),
        rage: pending<HeatDelta>(this.heat, [...base, 'ht', pageId, 'r', hour], () => ({})),
        dead: pending<HeatDelta>(this.heat, [...base, 'ht', pageId, 'd', hour], () => ({})),
        bucket: pending(this.pageBuckets, [...base, 'pb', pageId, hour], emptyPageBucket),
        elements: pending<ElementDelta>(this.elements, [...base, 'el', pageScope(pageId), hour], () => new Map()),
        allElements: pending<ElementDelta>(this.elements, [...base, 'el', ALL_SCOPE, hour], () => new Map()),
        ...this.pageMemo(base, page),
      }
      this.clickRefs.set(id, refs)
    }
    this.lastClickRefs = { projectId: base[0], gen: base[1], page, hour, refs }
    return refs
  }

  /** The `index`-th click of batch `batchId`: its friction item, if any, is `${batchId}.c${index}`. */
  private addClick(base: Part[], sk: string, session: SessionSignals, receivedAt: number, batchId: string, index: number, click: Click): void {
    const page = click.page ?? ''
    const ts = clampTime(click.ts, receivedAt)
    const refs = this.clickBuckets(base, page, hourOf(ts))
    const { pageId } = refs
    const slot = slotOf(click.vw)
    const bin = heatBin(click.xRatio, click.yDoc)
    const kind = click.kind ?? 'click'
    addHeat(refs.heat, slot, bin)
    if (kind === 'rage') addHeat(refs.rage, slot, bin)
    else if (kind === 'dead') addHeat(refs.dead, slot, bin)
    refs.bucket.cl += 1
    session.clicks += 1
    if (kind === 'rage') session.rage += 1
    else if (kind === 'dead') session.dead += 1
    else if (kind === 'error') session.errorClicks += 1

    if (click.selector) {
      // The clicks of a transaction keep hitting the same few elements: a repeat with nothing new costs a lookup.
      let noted = refs.noted.get(click.selector)
      if (!noted || (click.label !== undefined && click.label !== noted.label) || (click.tag !== undefined && click.tag !== noted.tag)) {
        noted = { id: this.noteElement(base, page, click.selector, click.label, click.tag), label: click.label ?? noted?.label, tag: click.tag ?? noted?.tag }
        refs.noted.set(click.selector, noted)
      }
      addElement(refs.elements, noted.id, page, kind)
      addElement(refs.allElements, noted.id, page, kind)
      let sessions = refs.clickedBy.get(noted.id)
      if (!sessions) refs.clickedBy.set(noted.id, (sessions = new Set()))
      if (!sessions.has(sk)) {
        sessions.add(sk)
        this.noteClickedBy(base, noted.id, sk)
      }
    }
    if (kind === 'click') return
    const record: FrictionRecord = { kind: kind === 'error' ? 'errorClick' : kind, sk, page, url: click.url, xRatio: click.xRatio, yDoc: click.yDoc }
    if (click.selector !== undefined) record.selector = click.selector
    if (click.label !== undefined) record.label = click.label
    if (click.tag !== undefined) record.tag = click.tag
    if (click.n !== undefined) record.n = click.n
    this.putFriction(base, pageId, sk, ts, `${batchId}.c${index}`, record)
  }

  /** Indexes a session under an element it clicked, unless an earlier transaction did (the caller asks once per transaction). */
  private noteClickedBy(base: Part[], elementId: number, sk: string): void {
    const key = [...base, 'es', elementId, sk]
    if (!this.tables.derived.doesExist(key)) this.tables.derived.put(key, null)
  }

  /** What a page's clicks have noted in this transaction, shared by the page's hour buckets. */
  private pageMemo(base: Part[], page: string): Pick<ClickBuckets, 'noted' | 'clickedBy'> {
    const id = `${base[0]}\u0000${base[1]}\u0000${page}`
    let memo = this.pageMemos.get(id)
    if (!memo) this.pageMemos.set(id, (memo = { noted: new Map(), clickedBy: new Map() }))
    return memo
  }

  private putFriction(base: Part[], pageId: string, sk: string, ts: number, id: string, record: FrictionRecord): void {
    // The page scope's entry is the key alone: readers take the record from the project scope.
    this.tables.derived.put([...base, 'fr', ALL_SCOPE, ts, id], record)
    this.tables.derived.put([...base, 'fr', pageScope(pageId), ts, id], null)
  }

  private removeFriction(base: Part[], pageId: string, sk: string, ts: number, id: string): void {
    for (const scope of [ALL_SCOPE, pageScope(pageId)]) this.tables.derived.remove([...base, 'fr', scope, ts, id])
  }

  private addView(base: Part[], sk: string, session: SessionSignals, receivedAt: number, view: View): void {
    const page = view.page ?? ''
    const pageId = this.notePage(base, page)
    const viewKey = [...base, 'vw', sk, view.startedAt, shortId(view.url)]
    const before = this.tables.derived.get(viewKey) as ViewState | undefined
    // A view keeps the page it was first counted under (rules may change between copies).
    const after = mergeView(before, view, page, receivedAt)
    if (before && sameView(before, after)) return // a copy that adds nothing
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

    // Sessions per page: counted once, in the hour of the session's first view of it
    // (a copy of a view already counted matters only if it moves the view earlier).
    if (before && before.at === after.at) return
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

  /**
   * An element's id, registering its name the first time and whenever its
   * label or tag changes (the latest wins). What this thread last wrote or
   * read is remembered, so a steady element costs no read.
   */
  private noteElement(base: Part[], page: string, selector: string, label: string | undefined, tag: string | undefined): number {
    const id = elementIdOf(page, selector)
    const cacheId = `${base[0]}\u0000${base[1]}\u0000${id}`
    const unchanged = (name: ElementName) => (label === undefined || label === name.label) && (tag === undefined || tag === name.tag)
    const local = this.names.get(cacheId)
    if (local && unchanged(local)) return id
    const cached = local ? undefined : elementNames.get(cacheId)
    if (cached && unchanged(cached)) return id
    const key = [...base, 'en', id]
    const stored = local ?? (this.tables.derived.get(key) as ElementName | undefined)
    const next: ElementName = { page, selector }
    const nextLabel = label ?? stored?.label
    const nextTag = tag ?? stored?.tag
    if (nextLabel !== undefined) next.label = nextLabel
    if (nextTag !== undefined) next.tag = nextTag
    if (!stored || stored.label !== next.label || stored.tag !== next.tag) {
      this.tables.derived.put(key, next)
      this.names.set(cacheId, next)
    } else if (!local) {
      // Read, so committed: this thread may remember it.
      if (elementNames.size >= 50_000) elementNames.clear()
      elementNames.set(cacheId, stored)
    }
    return id
  }

  /** Registers a message in its scope the first time (like a page: a hit in this thread is never stale). */
  private noteMessage(key: Part[], message: string): void {
    const id = key.join('\u0000')
    if (registeredKeys.has(id) || this.written.has(id)) return
    if (this.tables.derived.doesExist(key)) {
      if (registeredKeys.size >= 100_000) registeredKeys.clear()
      registeredKeys.add(id)
    } else {
      this.tables.derived.put(key, { message } satisfies ErrorMessage)
      this.written.add(id)
    }
  }

  /** The page's id, registering it in this generation the first time. */
  private notePage(base: Part[], page: string): string {
    const pageId = shortId(page)
    const id = `${base[0]}\u0000${base[1]}\u0000${pageId}`
    if (registeredKeys.has(id) || this.written.has(id)) return pageId
    const key = [...base, 'pg', pageId]
    if (this.tables.derived.doesExist(key)) {
      // Found, so committed by an earlier transaction: this thread need not look again.
      if (registeredKeys.size >= 100_000) registeredKeys.clear()
      registeredKeys.add(id)
    } else {
      this.tables.derived.put(key, { key: page })
      this.written.add(id)
    }
    return pageId
  }

  /** Writes every accumulated bucket: one read-modify-write each. */
  flush(): void {
    const { derived } = this.tables
    for (const { key, value } of this.heat.values()) {
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
    // Element and page buckets are kept by the hour and, added up, by the day (tags ed and pd), so that a
    // 30-day read takes 30 daily buckets and the partial days at its ends by the hour.
    const elementDays = new Map<string, Pending<ElementDelta>>()
    for (const { key, value } of this.elements.values()) {
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
    for (const { key, value } of [...this.elements.values(), ...elementDays.values()]) {
      if (value.size === 0) continue
      const base = (key as Part[]).slice(0, 2)
      const other = (page: string) => this.noteElement(base, page, OTHER_ELEMENTS, undefined, undefined)
      derived.put(key, mergeRecords(decodeRecords(derived.get(key) as Uint8Array | undefined), value, other))
    }
    const pageDays = new Map<string, Pending<PageBucket>>()
    for (const { key, value } of this.pageBuckets.values()) {
      const [projectId, gen, , pageId, hour] = key as Part[]
      const day = pending(pageDays, [projectId, gen, 'pd', pageId, Math.floor((hour as number) / 24)], emptyPageBucket)
      const { sh, ...counts } = value
      addTo(day, counts)
      for (const slot of Object.keys(sh) as DeviceSlot[]) {
        const histogram = (day.sh[slot] ??= new Array<number>(SCROLL_STEPS).fill(0))
        sh[slot]!.forEach((n, i) => (histogram[i] += n))
      }
    }
    for (const { key, value } of [...this.pageBuckets.values(), ...pageDays.values()]) {
      const stored = derived.get(key) as StoredPageBucket | undefined
      const { sh, ...counts } = value
      const { sh: storedSh, ...sums }: StoredPageBucket = stored ?? { ...emptyPageBucket(), sh: {} }
      addTo(sums, counts)
      const histograms: Partial<Record<DeviceSlot, Buffer>> = {}
      for (const slot of ALL_SLOTS) {
        if (!sh[slot] && !storedSh[slot]) continue
        const histogram = decodeHistogram(storedSh[slot])
        sh[slot]?.forEach((n, i) => (histogram[i] += n))
        histograms[slot] = Buffer.from(histogram.buffer)
      }
      derived.put(key, { ...sums, sh: histograms } satisfies StoredPageBucket)
    }
    for (const [id, { key, value }] of this.sessions) {
      const counts = (derived.get(key) as SessionRecordOfSignals | undefined) ?? { ...emptySessionSignals(), from: Infinity, to: -Infinity }
      const { from, to, ...sums } = counts
      addTo(sums, value)
      const span = this.spans.get(id)!.value
      derived.put(key, { ...sums, from: Math.min(from, span.from), to: Math.max(to, span.to) })
    }
    for (const { key, value } of this.errorHours.values()) derived.put(key, ((derived.get(key) as number | undefined) ?? 0) + value)
  }
}

function addHeat(delta: HeatDelta, slot: DeviceSlot, bin: number): void {
  const bins = (delta[slot] ??= new Map())
  bins.set(bin, (bins.get(bin) ?? 0) + 1)
}

function addElement(delta: ElementDelta, id: number, page: string, kind: NonNullable<Click['kind']>): void {
  let entry = delta.get(id)
  if (!entry) {
    entry = { page, clicks: 0, rage: 0, dead: 0, errors: 0 }
    delta.set(id, entry)
  }
  entry.clicks += 1
  if (kind === 'rage') entry.rage += 1
  else if (kind === 'dead') entry.dead += 1
  else if (kind === 'error') entry.errors += 1
}


function spanOver(span: { from: number; to: number }, at: number): void {
  if (at < span.from) span.from = at
  if (at > span.to) span.to = at
}


function sameView(a: ViewState, b: ViewState): boolean {
  return a.at === b.at && a.vw === b.vw && a.activeMs === b.activeMs && a.maxScrollPct === b.maxScrollPct && a.exit === b.exit && a.quickBack === b.quickBack
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
