/**
 * The accumulator of one write transaction: what the stored signal batches it
 * takes add to the aggregates (derived-keys.ts), by the rules of
 * src/store/aggregates/, kept in memory and written once at its end.
 *
 * Buckets that many entries touch (heat bins, elements, page and session
 * counts) are accumulated over the whole transaction and written once at its
 * end: a transaction of 64 batches that all hit one busy page rewrites that
 * page's hour bucket once, not 64 times.
 */
import { compareKeys } from 'lmdb'
import type { Click, SignalsRecord, View } from '../records.js'
import { clampTime, emptySessionSignals, heatBin, hourOf, type SessionSignals } from '../insights.js'
import { clickKindOf, countClick, countElementClick, frictionOfClick, heatLayersOf, type ClickLayer, type ErrorOccurrence, type FrictionRecord } from '../aggregates/clicks.js'
import { countsAsOtherName, OTHER_SELECTOR } from '../aggregates/elements.js'
import { countsAsOtherMessage, OTHER_MESSAGE } from '../aggregates/messages.js'
import { countsAsOtherPage, OTHER_PAGE } from '../aggregates/pages.js'
import { clickItemId, elementIdOf, errorItemId, quickBackItemId, shortId } from '../aggregates/ids.js'
import { slotOf, type DeviceSlot } from '../aggregates/slots.js'
import { FoundDelta } from '../aggregates/search.js'
import { contributeView, emptyPageBucket, mergeView, movesFirstView, sameView, viewHour, type PageBucket, type ViewState } from '../aggregates/views.js'
import {
  ALL_SCOPE,
  batchIdOf,
  derivedStateOf,
  pageScope,
  type ElementDelta,
  type ElementName,
  type ErrorMessage,
  type Part,
} from './derived-keys.js'
import { pending, writeElements, writeHeat, writePageBuckets, writeSessions, type HeatDelta, type Pending } from './bucket-writes.js'
import { GenerationCounts } from './generation-counts.js'
import { OverviewBatch } from './overview-fold.js'
import type { RegistryCache } from './registry-cache.js'
import type { DerivedState, Key, Tables } from './tables.js'

// ---- the accumulator of one transaction ----

interface ClickBuckets {
  /** The page the clicks count under: theirs, or (other) past the page cap. */
  page: string
  pageId: string
  heat: Record<ClickLayer, HeatDelta>
  bucket: PageBucket
  elements: ElementDelta
  allElements: ElementDelta
  /** Elements of this page already noted in this transaction, by selector: their id and the label and tag noted. */
  noted: Map<string, { id: number; label?: string; tag?: string }>
  /** Sessions already indexed under each element of this page in this transaction, by element id. */
  clickedBy: Map<number, Set<string>>
}

/**
 * Collects what the batches of one write transaction add to the aggregates
 * and writes it with `flush()` before the transaction commits. Not shared
 * between transactions; `registry` is the store's (registry-cache.ts).
 */
export class AggregateBatch {
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
  private finds = new Map<string, Pending<FoundDelta>>()
  private overview: OverviewBatch

  private states = new Map<string, DerivedState>()
  /** What each project generation holds of what the caps bound: pages, messages, element names. */
  private readonly counts: GenerationCounts

  constructor(
    private readonly tables: Tables,
    private readonly registry: RegistryCache,
    /** The page cap (aggregates/pages.ts): ingest applies it as it stores a batch; here it holds for batches a backfill re-keys and for those stored before it. */
    private readonly maxPages: number,
  ) {
    this.counts = new GenerationCounts(tables)
    this.overview = new OverviewBatch(tables)
  }

  /**
   * The fold: adds a stored batch to the live generation and to the one a
   * running backfill builds.
   *
   * The backfill walks the stored batches in key order, re-keys each and
   * counts it in the generation it builds, folded or not. So the fold
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

  /** Backfill: adds a stored (re-keyed) batch to the generation being built, unless the fold already did. */
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
    this.overview.session(base, batch, receivedAt)
    pending(this.finds, [...base, 'ss', sk], () => new FoundDelta()).add(batch, receivedAt)
    for (const click of batch.clicks) spanOver(span, clampTime(click.ts, receivedAt))
    for (const error of batch.errors) spanOver(span, clampTime(error.ts, receivedAt))
    for (const view of batch.views) spanOver(span, clampTime(view.startedAt, receivedAt))
    batch.clicks.forEach((click, i) => this.addClick(base, sk, session, receivedAt, batchId, i, click))
    batch.errors.forEach((error, i) => {
      const page = this.notePage(base, error.page ?? '')
      const pageId = shortId(page)
      const ts = clampTime(error.ts, receivedAt)
      const hour = hourOf(ts)
      const message = this.admitMessage(base, error.message)
      const msgId = shortId(message)
      const id = errorItemId(batchId, i)
      session.errors += 1
      this.overview.error(pageId)
      pending(this.pageBuckets, [...base, 'pb', pageId, hour], emptyPageBucket).er += 1
      for (const scope of [ALL_SCOPE, pageScope(pageId)]) {
        // The page scope's entry is the key alone: readers take the record from the project scope.
        this.tables.derived.put([...base, 'eo', scope, msgId, ts, id], scope === ALL_SCOPE ? ({ sk, page, url: error.url } satisfies ErrorOccurrence) : null)
        const hourKey = [...base, 'eh', scope, msgId, hour]
        const hourId = hourKey.join('\u0000')
        const counted = this.errorHours.get(hourId)
        if (counted) counted.value += 1
        else this.errorHours.set(hourId, { key: hourKey, value: 1 })
        this.noteMessage([...base, 'em', scope, msgId], message)
      }
      this.tables.derived.put([...base, 'se', sk, msgId, ts, id], null)
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
      const counted = this.notePage(base, page)
      const pageId = shortId(counted)
      refs = {
        page: counted,
        pageId,
        heat: {
          click: pending<HeatDelta>(this.heat, [...base, 'ht', pageId, 'a', hour], () => ({})),
          rage: pending<HeatDelta>(this.heat, [...base, 'ht', pageId, 'r', hour], () => ({})),
          dead: pending<HeatDelta>(this.heat, [...base, 'ht', pageId, 'd', hour], () => ({})),
        },
        bucket: pending(this.pageBuckets, [...base, 'pb', pageId, hour], emptyPageBucket),
        elements: pending<ElementDelta>(this.elements, [...base, 'el', pageScope(pageId), hour], () => new Map()),
        allElements: pending<ElementDelta>(this.elements, [...base, 'el', ALL_SCOPE, hour], () => new Map()),
        ...this.pageMemo(base, counted),
      }
      this.clickRefs.set(id, refs)
    }
    this.lastClickRefs = { projectId: base[0], gen: base[1], page, hour, refs }
    return refs
  }

  /** The `index`-th click of batch `batchId`: its friction item, if any, is `${batchId}.c${index}`. */
  private addClick(base: Part[], sk: string, session: SessionSignals, receivedAt: number, batchId: string, index: number, click: Click): void {
    const ts = clampTime(click.ts, receivedAt)
    const refs = this.clickBuckets(base, click.page ?? '', hourOf(ts))
    const { page, pageId } = refs
    const slot = slotOf(click.vw)
    const bin = heatBin(click.xRatio, click.yDoc)
    const kind = clickKindOf(click)
    for (const layer of heatLayersOf(kind)) addHeat(refs.heat[layer], slot, bin)
    refs.bucket.cl += 1
    countClick(session, kind)
    this.overview.click(pageId, kind)

    if (click.selector) {
      // The clicks of a transaction keep hitting the same few elements: a repeat with nothing new costs a lookup.
      let noted = refs.noted.get(click.selector)
      if (!noted || (click.label !== undefined && click.label !== noted.label) || (click.tag !== undefined && click.tag !== noted.tag)) {
        noted = { id: this.noteElement(base, page, click.selector, click.label, click.tag), label: click.label ?? noted?.label, tag: click.tag ?? noted?.tag }
        refs.noted.set(click.selector, noted)
      }
      countElementClick(elementCount(refs.elements, noted.id, page), kind)
      countElementClick(elementCount(refs.allElements, noted.id, page), kind)
      let sessions = refs.clickedBy.get(noted.id)
      if (!sessions) refs.clickedBy.set(noted.id, (sessions = new Set()))
      if (!sessions.has(sk)) {
        sessions.add(sk)
        this.noteClickedBy(base, noted.id, sk)
      }
    }
    const friction = frictionOfClick(click, sk, page)
    if (friction) this.putFriction(base, pageId, ts, clickItemId(batchId, index), friction)
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

  private putFriction(base: Part[], pageId: string, ts: number, id: string, record: FrictionRecord): void {
    // The page scope's and the session's entries are the key alone: readers take the record from the project scope.
    this.tables.derived.put([...base, 'fr', ALL_SCOPE, ts, id], record)
    this.tables.derived.put([...base, 'fr', pageScope(pageId), ts, id], null)
    this.tables.derived.put([...base, 'sf', record.sk, ts, id], null)
  }

  private removeFriction(base: Part[], sk: string, pageId: string, ts: number, id: string): void {
    for (const scope of [ALL_SCOPE, pageScope(pageId)]) this.tables.derived.remove([...base, 'fr', scope, ts, id])
    this.tables.derived.remove([...base, 'sf', sk, ts, id])
  }

  private addView(base: Part[], sk: string, session: SessionSignals, receivedAt: number, view: View): void {
    const page = this.notePage(base, view.page ?? '')
    const pageId = shortId(page)
    const viewKey = [...base, 'vw', sk, view.startedAt, shortId(view.url)]
    const before = this.tables.derived.get(viewKey) as ViewState | undefined
    // A view keeps the page it was first counted under (rules may change between copies).
    const after = mergeView(before, view, page, receivedAt)
    if (before && sameView(before, after)) return // a copy that adds nothing
    const keptPageId = before ? shortId(before.page) : pageId
    this.tables.derived.put(viewKey, after)
    if (before) this.contribute(base, keptPageId, before, -1)
    this.contribute(base, keptPageId, after, 1)
    this.overview.view(keptPageId, before, after)

    if (!before) session.views += 1
    session.activeMs += (after.activeMs ?? 0) - (before?.activeMs ?? 0)
    if (after.quickBack && (!before?.quickBack || before.at !== after.at)) {
      // At the view's start: the replay opens where the visitor arrived and bounced. A copy
      // that moves the start (an earlier clamp) moves the item, whatever order copies came in.
      const id = quickBackItemId(sk, view.url, view.startedAt)
      if (before?.quickBack) this.removeFriction(base, sk, keptPageId, before.at, id)
      else session.quickBacks += 1
      this.putFriction(base, keptPageId, after.at, id, { kind: 'quickBack', sk, page: after.page, url: view.url })
    }

    // Sessions per page: counted once, in the hour of the session's first view of it
    // (a copy of a view already counted matters only if it moves the view earlier).
    if (before && before.at === after.at) return
    const seenKey = [...base, 'sp', sk, keptPageId]
    const seenHour = this.tables.derived.get(seenKey) as number | undefined
    const hour = viewHour(after)
    if (movesFirstView(seenHour, hour)) {
      if (seenHour !== undefined) pending(this.pageBuckets, [...base, 'pb', keptPageId, seenHour], emptyPageBucket).s -= 1
      pending(this.pageBuckets, [...base, 'pb', keptPageId, hour], emptyPageBucket).s += 1
      this.tables.derived.put(seenKey, hour)
    }
  }

  /** Adds (sign 1) or withdraws (sign -1) what a view counts for in its page's hour bucket. */
  private contribute(base: Part[], pageId: string, view: ViewState, sign: 1 | -1): void {
    contributeView(pending(this.pageBuckets, [...base, 'pb', pageId, viewHour(view)], emptyPageBucket), view, sign)
  }

  /**
   * An element's id, registering its name the first time and whenever its
   * label or tag changes (the latest wins). What this store last wrote or
   * read is remembered, so a steady element costs no read.
   */
  private noteElement(base: Part[], page: string, selector: string, label: string | undefined, tag: string | undefined): number {
    const id = elementIdOf(page, selector)
    const cacheId = `${base[0]}\u0000${base[1]}\u0000${id}`
    const unchanged = (name: ElementName) => (label === undefined || label === name.label) && (tag === undefined || tag === name.tag)
    const local = this.names.get(cacheId)
    if (local && unchanged(local)) return id
    const cached = local ? undefined : this.registry.nameOf(cacheId)
    if (cached && unchanged(cached)) return id
    const key = [...base, 'en', id]
    const stored = local ?? (this.tables.derived.get(key) as ElementName | undefined)
    if (!stored && selector !== OTHER_SELECTOR && countsAsOtherName(false, this.counts.of(base, 'names'))) return this.noteElement(base, page, OTHER_SELECTOR, undefined, undefined)
    if (!stored) this.counts.added(base, 'names')
    const next: ElementName = { page, selector }
    const nextLabel = label ?? stored?.label
    const nextTag = tag ?? stored?.tag
    if (nextLabel !== undefined) next.label = nextLabel
    if (nextTag !== undefined) next.tag = nextTag
    if (!stored || stored.label !== next.label || stored.tag !== next.tag) {
      this.tables.derived.put(key, next)
      this.names.set(cacheId, next)
    } else if (!local) {
      // Read, so committed: this store may remember it.
      this.registry.noteName(cacheId, stored)
    }
    return id
  }

  /** Registers a message in its scope the first time (like a page: a hit is never stale). */
  private noteMessage(key: Part[], message: string): void {
    const id = key.join('\u0000')
    if (this.registry.isRegistered(id) || this.written.has(id)) return
    if (this.tables.derived.doesExist(key)) {
      this.registry.noteRegistered(id)
    } else {
      this.tables.derived.put(key, { message } satisfies ErrorMessage)
      this.written.add(id)
    }
  }

  /**
   * The message an error counts under in this generation: its own when the project's registry holds it or has room
   * (it is registered by noteMessage), else OTHER_MESSAGE (aggregates/messages.ts).
   */
  private admitMessage(base: Part[], message: string): string {
    const key = [...base, 'em', ALL_SCOPE, shortId(message)]
    const id = key.join('\u0000')
    if (message === OTHER_MESSAGE || this.registry.isRegistered(id) || this.written.has(id) || this.tables.derived.doesExist(key)) return message
    if (countsAsOtherMessage(false, this.counts.of(base, 'messages'))) return OTHER_MESSAGE
    this.counts.added(base, 'messages')
    return message
  }

  /** The page an entry counts under in this generation: its own, registered the first time, or (other) past the page cap. */
  private notePage(base: Part[], page: string): string {
    const pageId = shortId(page)
    const id = `${base[0]}\u0000${base[1]}\u0000${pageId}`
    if (this.registry.isRegistered(id) || this.written.has(id)) return page
    const key = [...base, 'pg', pageId]
    if (this.tables.derived.doesExist(key)) {
      // Found, so committed by an earlier transaction: this store need not look again.
      this.registry.noteRegistered(id)
      return page
    }
    if (page !== OTHER_PAGE && countsAsOtherPage(false, this.counts.of(base, 'pages'), this.maxPages)) return this.notePage(base, OTHER_PAGE)
    this.tables.derived.put(key, { key: page })
    this.written.add(id)
    if (page !== OTHER_PAGE) this.counts.added(base, 'pages')
    return page
  }

  /** Writes every accumulated bucket: one read-modify-write each (bucket-writes.ts). */
  flush(): void {
    const { derived } = this.tables
    writeHeat(derived, this.heat.values())
    writeElements(derived, this.elements.values(), (base, page) => this.noteElement(base, page, OTHER_SELECTOR, undefined, undefined))
    writePageBuckets(derived, this.pageBuckets.values())
    writeSessions(derived, this.sessions, this.spans, this.finds)
    for (const { key, value } of this.errorHours.values()) derived.put(key, ((derived.get(key) as number | undefined) ?? 0) + value)
    this.overview.flush()
  }
}

function addHeat(delta: HeatDelta, slot: DeviceSlot, bin: number): void {
  const bins = (delta[slot] ??= new Map())
  bins.set(bin, (bins.get(bin) ?? 0) + 1)
}

/** The row of an element in a bucket's counts, created empty. */
function elementCount(delta: ElementDelta, id: number, page: string) {
  let entry = delta.get(id)
  if (!entry) {
    entry = { page, clicks: 0, rage: 0, dead: 0, errors: 0 }
    delta.set(id, entry)
  }
  return entry
}

function spanOver(span: { from: number; to: number }, at: number): void {
  if (at < span.from) span.from = at
  if (at > span.to) span.to = at
}

