/**
 * What one ingest item does to the tables, run inside a write transaction
 * (LMDB serialises write transactions across processes, so the
 * read-modify-write of a session record is atomic).
 */
import { threadId } from 'node:worker_threads'
import type { IngestItem, IngestOutcome, PageRecord, ProjectStats } from '../records.js'
import { shortId } from '../aggregates/ids.js'
import { chunkInfoOf, emptyStats, sessionWithChunk } from '../recording-records.js'
import { logForFold } from './fold-log.js'
import type { Key, Tables } from './tables.js'

type ChunkItem = Extract<IngestItem, { kind: 'chunk' }>
type SignalsItem = Extract<IngestItem, { kind: 'signals' }>

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

/** Applies a run of items in the current transaction, each project's counters written once. */
export function applyItems(tables: Tables, items: IngestItem[], aggregate: boolean): IngestOutcome[] {
  const stats = new StatsUpdates(tables)
  const outcomes = items.map((item) => (item.kind === 'chunk' ? applyChunk(tables, item, stats) : applySignals(tables, item, aggregate, stats)))
  stats.flush()
  return outcomes
}

function applyChunk(tables: Tables, item: ChunkItem, counters: StatsUpdates): IngestOutcome {
  const { projectId, meta, body, receivedAt } = item
  const key = [projectId, meta.sk, meta.seq]
  // A repeated seq is a retry of a chunk already acknowledged: keep the first copy.
  if (tables.chunkInfo.doesExist(key)) return 'duplicate'

  const info = chunkInfoOf(item)
  if (!item.journal) tables.chunks.put(key, Buffer.from(body.buffer, body.byteOffset, body.byteLength))
  tables.chunkInfo.put(key, info)

  const sessionKey = [projectId, meta.sk]
  const existing = tables.sessions.get(sessionKey)
  const { session, newPage } = sessionWithChunk(existing, item, info)
  if (newPage && item.page) notePage(tables, projectId, item.page)
  tables.sessions.put(sessionKey, session)
  if (!existing) {
    tables.sessionsByTime.put([receivedAt, projectId, meta.sk], true)
    // The session list's order: startedAt never changes once the session exists, so a cursor on it is stable.
    tables.sessionsByStart.put([projectId, session.startedAt, meta.sk], true)
  }

  const stats = counters.of(projectId)
  if (!existing) stats.sessionCount += 1
  stats.chunkCount += 1
  stats.bytes += info.size
  return 'stored'
}

/** Distinguishes batches received in the same millisecond within one transaction. */
let signalsNonce = 0

/**
 * Stores a batch and, unless aggregation is switched off, logs it for the
 * fold thread to count into the aggregates after the acknowledgement
 * (fold-log.ts): the entry commits with the batch, so none is ever missed.
 */
function applySignals(tables: Tables, item: SignalsItem, aggregate: boolean, counters: StatsUpdates): IngestOutcome {
  const { projectId, batch, receivedAt } = item
  signalsNonce = (signalsNonce + 1) % 1_000_000_000
  const key = [projectId, receivedAt, batch.sk, process.pid, threadId, signalsNonce]
  tables.signals.put(key, batch)
  if (aggregate) logForFold(tables, key)
  for (const page of item.pages ?? []) notePage(tables, projectId, page)
  counters.of(projectId).signalBatches += 1
  return 'stored'
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

/** Adds a page to the project's page index the first time it is seen. */
export function notePage(tables: Tables, projectId: string, page: PageRecord): void {
  const key = pageIndexKey(projectId, page.key)
  if (!tables.pages.doesExist(key)) tables.pages.put(key, page)
}
