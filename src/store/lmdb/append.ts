/**
 * What one ingest item does to the tables, run inside a write transaction
 * (LMDB serialises write transactions across processes, so the
 * read-modify-write of a session record is atomic).
 */
import { threadId } from 'node:worker_threads'
import type { IngestItem, IngestOutcome, JournalPosition, MovedPlace, PageRecord, ProjectStats } from '../records.js'
import { itemIdentity } from '../recording-records.js'
import { shortId } from '../aggregates/ids.js'
import { countsAsOtherPage, moveToOther, OTHER_PAGE, otherPageRecord } from '../aggregates/pages.js'
import { chunkInfoOf, countChunk, emptyStats, sessionWithChunk } from '../recording-records.js'
import { countCompleteness, sessionWithLosses } from '../session-losses.js'
import { admitStyle } from '../../recordings/styles.js'
import { logForFold } from './fold-log.js'
import { MAX_KEY_PART } from './keys.js'
import type { Key, Tables } from './tables.js'

type ChunkItem = Extract<IngestItem, { kind: 'chunk' }>
type SignalsItem = Extract<IngestItem, { kind: 'signals' }>
type StyleItem = Extract<IngestItem, { kind: 'style' }>

/**
 * The project counters a run of items changes, read once and written once
 * per project at its end (`flush`), inside the same transaction: every item
 * of a batch would otherwise decode and re-encode the same record.
 */
class StatsUpdates {
  private readonly changed = new Map<string, ProjectStats>()

  constructor(private readonly tables: Tables) {}

  of(projectId: string): ProjectStats {
    let stats = this.changed.get(projectId)
    if (!stats) this.changed.set(projectId, (stats = { ...(this.tables.projectStats.get(projectId) ?? emptyStats()) }))
    return stats
  }

  flush(): void {
    for (const [projectId, stats] of this.changed) this.tables.projectStats.put(projectId, stats)
    this.changed.clear()
  }
}

/** Applies a run of items in the current transaction, each project's counters written once; `maxPages`: the page cap (aggregates/pages.ts). */
export function applyItems(tables: Tables, items: IngestItem[], aggregate: boolean, maxPages: number, moved: MovedPlace[] = []): IngestOutcome[] {
  const stats = new StatsUpdates(tables)
  const pages = new PageIndex(tables.pages, maxPages)
  const outcomes = items.map((item) =>
    item.kind === 'chunk' ? applyChunk(tables, item, stats, pages, moved) : item.kind === 'style' ? applyStyle(tables, item, stats) : applySignals(tables, item, aggregate, stats, pages, moved),
  )
  stats.flush()
  return outcomes
}

function applyChunk(tables: Tables, item: ChunkItem, counters: StatsUpdates, pages: PageIndex, moved: MovedPlace[]): IngestOutcome {
  const { projectId, meta, body, receivedAt } = item
  const key = [projectId, meta.sk, meta.seq]
  // A repeated seq is a retry of a chunk already acknowledged: keep the first copy, at the log's newer place if it moved.
  if (tables.chunkInfo.doesExist(key)) {
    const from = item.journal && moveTo(tables.chunkInfo, key, item.journal)
    if (from) moved.push({ from, item: itemIdentity(item) })
    return 'duplicate'
  }

  const info = chunkInfoOf(item)
  const sessionKey = [projectId, meta.sk]
  const existing = tables.sessions.get(sessionKey)
  // Retention or the disk budget deleted this recording already: a tail of it would not replay, and nothing would delete it again.
  if (!item.bytesInLog && existing?.purgedAt === undefined) tables.chunks.put(key, Buffer.from(body.buffer, body.byteOffset, body.byteLength))
  tables.chunkInfo.put(key, info)

  // Past the page cap the session lists the view under (other), as the aggregates count it.
  if (item.page) item.page = pages.admit(projectId, item.page)
  const { session } = sessionWithChunk(existing, item, info)
  tables.sessions.put(sessionKey, session)
  if (!existing) {
    tables.sessionsByTime.put([receivedAt, projectId, meta.sk], true)
    // The session list's order: startedAt never changes once the session exists, so a cursor on it is stable.
    tables.sessionsByStart.put([projectId, session.startedAt, meta.sk], true)
  }

  countChunk(counters.of(projectId), existing, session, info)
  countCompleteness(counters.of(projectId), existing, session)
  return 'stored'
}

/** A stylesheet is kept once per project: the hash names its text, so a second copy is the same bytes. */
function applyStyle(tables: Tables, item: StyleItem, counters: StatsUpdates): IngestOutcome {
  const key = [item.projectId, item.hash]
  if (tables.styles.doesExist(key)) return 'duplicate'
  const stats = counters.of(item.projectId)
  if (!admitStyle(stats, item)) return 'over_quota'
  tables.styles.put(key, Buffer.from(item.body.buffer, item.body.byteOffset, item.body.byteLength))
  return 'stored'
}

/**
 * A record held already, met again at another place in the log: an erasure rewrote the message that held it
 * (log-scrub.ts) and will remove the old one, so the record follows its copy.
 */
function moveTo<R extends { journal?: JournalPosition }>(table: { get(key: Key): R | undefined; put(key: Key, value: R): unknown }, key: Key, place: JournalPosition): JournalPosition | undefined {
  const held = table.get(key)
  if (!held || (held.journal?.stream === place.stream && held.journal.seq === place.seq && held.journal.part === place.part)) return undefined
  table.put(key, { ...held, journal: place })
  return held.journal
}

/** Distinguishes batches received in the same millisecond within one transaction. */
let signalsNonce = 0

/** The key of a batch this process received itself (the embedded mode): unique by process, thread and a counter. */
function localSignalsKey(projectId: string, receivedAt: number, sk: string): Key {
  signalsNonce = (signalsNonce + 1) % 1_000_000_000
  return [projectId, receivedAt, sk, process.pid, threadId, signalsNonce]
}

/**
 * Stores a batch and, unless aggregation is switched off, logs it for the
 * fold thread to count into the aggregates after the acknowledgement
 * (fold-log.ts): the entry commits with the batch, so none is ever missed.
 */
function applySignals(tables: Tables, item: SignalsItem, aggregate: boolean, counters: StatsUpdates, pages: PageIndex, moved: MovedPlace[]): IngestOutcome {
  const { projectId, batch, receivedAt } = item
  const reportOnly = batch.lost !== undefined && !batch.views.length && !batch.clicks.length && !batch.errors.length && !batch.console && !batch.requests
  if (batch.lost) noteLosses(tables, item, counters)
  // A batch that only reported losses has nothing else to keep.
  if (reportOnly) return 'stored'
  // From the log, the entry's id is the batch's identity on every node, and a repeat of it is counted once.
  const key = item.id === undefined ? localSignalsKey(projectId, receivedAt, batch.sk) : [projectId, receivedAt, batch.sk, item.id]
  if (item.id !== undefined && tables.signals.doesExist(key)) {
    const from = batch.journal && moveTo(tables.signals, key, batch.journal)
    if (from) moved.push({ from, item: itemIdentity(item) })
    return 'duplicate'
  }
  // The client's own id: a resend arrives at another time, under another key, in another log entry.
  if (batch.batchId !== undefined) {
    const id = [projectId, batch.sk, batch.batchId]
    if (tables.signalBatchIds.doesExist(id)) return 'duplicate'
    tables.signalBatchIds.put(id, true)
  }
  // Pages past the cap are decided here, once, and the batch stored with its entries on (other): every fold of it agrees.
  let refused: Set<string> | undefined
  for (const page of item.pages ?? []) if (pages.admit(projectId, page) !== page) (refused ??= new Set()).add(page.key)
  if (refused) moveToOther(batch, refused)
  tables.signals.put(key, batch)
  if (aggregate) logForFold(tables, key)
  counters.of(projectId).signalBatches += 1
  return 'stored'
}

/**
 * Applies the losses a batch reports to its session record, and takes them
 * off the batch (they are kept there only). Only batches that carry `lost` pay
 * the session's read and write; a report for a session that has no record yet
 * (none of its chunks arrived before it) is not kept.
 */
function noteLosses(tables: Tables, item: SignalsItem, counters: StatsUpdates): void {
  const { projectId, batch } = item
  const lost = batch.lost!
  delete batch.lost
  const key = [projectId, batch.sk]
  const existing = tables.sessions.get(key)
  const session = existing && sessionWithLosses(existing, lost)
  if (!session) return
  tables.sessions.put(key, session)
  countCompleteness(counters.of(projectId), existing, session)
}

/** Page keys up to this many UTF-8 bytes enter the pages index as they are; longer ones as a hash. */
const PAGE_KEY_INLINE_BYTES = 1024

/**
 * Key of a page in the pages index. A page key may be 2,000 characters (of up
 * to 3 UTF-8 bytes each), past LMDB's 1,978-byte key limit: a chunk or signal
 * with such a URL failed its whole transaction. A long key therefore enters as
 * `#` + its hash (no page key starts with `#`); the value keeps the full key,
 * and readers read values.
 */
export function pageIndexKey(projectId: string, pageKey: string): Key {
  return [projectId, Buffer.byteLength(pageKey) > PAGE_KEY_INLINE_BYTES ? `#${shortId(pageKey)}` : pageKey]
}

/**
 * A page index (the live one, or the one a backfill builds) under the page
 * cap: a project's pages are counted once per transaction, when the first
 * page new to the index arrives, and tracked from there.
 */
export class PageIndex {
  private readonly sizes = new Map<string, number>()

  constructor(
    private readonly table: Tables['pages'],
    private readonly max: number,
  ) {}

  /** The page an entry counts under: `page` when the index holds it or has room (noted then), else `(other)` (noted the first time). */
  admit(projectId: string, page: PageRecord): PageRecord {
    if (page.key === OTHER_PAGE) return this.noteOther(projectId, page.firstSeenAt)
    const key = pageIndexKey(projectId, page.key)
    if (this.table.doesExist(key)) return page
    let size = this.sizes.get(projectId)
    if (size === undefined) this.sizes.set(projectId, (size = this.count(projectId)))
    if (countsAsOtherPage(false, size, this.max)) return this.noteOther(projectId, page.firstSeenAt)
    this.table.put(key, page)
    this.sizes.set(projectId, size + 1)
    return page
  }

  private noteOther(projectId: string, firstSeenAt: number): PageRecord {
    const key = pageIndexKey(projectId, OTHER_PAGE)
    const other = this.table.get(key)
    if (other) return other
    const record = otherPageRecord(firstSeenAt)
    this.table.put(key, record)
    return record
  }

  /** Real pages held: every entry but (other). */
  private count(projectId: string): number {
    const all = this.table.getKeysCount({ start: [projectId], end: [projectId, MAX_KEY_PART] })
    return all - (this.table.doesExist(pageIndexKey(projectId, OTHER_PAGE)) ? 1 : 0)
  }
}
