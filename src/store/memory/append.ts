/** What one ingest item does to the in-memory store: the same records, counted the same way, as lmdb/append.ts writes. */
import type { IngestItem, IngestOutcome, JournalPosition, MovedPlace, PageRecord, ProjectStats } from '../records.js'
import { countsAsOtherPage, moveToOther, OTHER_PAGE, otherPageRecord } from '../aggregates/pages.js'
import { chunkInfoOf, countChunk, emptyStats, itemIdentity, sessionWithChunk } from '../recording-records.js'
import { countCompleteness, sessionWithLosses } from '../session-losses.js'
import { admitStyle } from '../../recordings/styles.js'
import { inner, sessionId, type MemoryData } from './data.js'

const samePlace = (a: JournalPosition | undefined, b: JournalPosition) => a?.stream === b.stream && a.seq === b.seq && a.part === b.part

function statsOf(data: MemoryData, projectId: string): ProjectStats {
  let stats = data.projectStats.get(projectId)
  if (!stats) data.projectStats.set(projectId, (stats = emptyStats()))
  return stats
}

export function appendChunk(data: MemoryData, item: Extract<IngestItem, { kind: 'chunk' }>, moved: MovedPlace[] = []): IngestOutcome {
  const { projectId, meta, body, receivedAt } = item
  const chunks = inner(data.chunks, sessionId(projectId, meta.sk))
  // A repeated seq is a retry of a chunk already acknowledged: keep the first copy (at the log's newer place, as lmdb/append.ts).
  const held = chunks.get(meta.seq)
  if (held) {
    const from = held.info.journal
    if (item.journal && !samePlace(from, item.journal)) {
      held.info = { ...held.info, journal: item.journal }
      if (from) moved.push({ from, item: itemIdentity(item) })
    }
    return 'duplicate'
  }
  const info = chunkInfoOf(item)
  const sessions = inner(data.sessions, projectId)
  const existing = sessions.get(meta.sk)
  // As lmdb/append.ts: a recording already deleted keeps no tail.
  chunks.set(meta.seq, item.bytesInLog || existing?.purgedAt !== undefined ? { info } : { info, body: Uint8Array.from(body) })

  if (item.page) item.page = admitPage(data, projectId, item.page)
  const { session } = sessionWithChunk(existing, item, info)
  sessions.set(meta.sk, session)
  countChunk(statsOf(data, projectId), existing, session, info)
  countCompleteness(statsOf(data, projectId), existing, session)
  return 'stored'
}

export const batchIdKey = (projectId: string, batch: { sk: string; batchId?: string }) => `${projectId}\u0000${batch.sk}\u0000${batch.batchId}`

export function appendSignals(data: MemoryData, item: Extract<IngestItem, { kind: 'signals' }>): IngestOutcome {
  const { batch } = item
  const reportOnly = batch.lost !== undefined && !batch.views.length && !batch.clicks.length && !batch.errors.length && !batch.console && !batch.requests
  if (batch.lost) noteLosses(data, item)
  // As lmdb/append.ts: a batch that only reported losses has nothing else to keep.
  if (reportOnly) return 'stored'
  if (item.id !== undefined) {
    if (data.signalIds.has(item.id)) return 'duplicate'
    data.signalIds.add(item.id)
  }
  if (batch.batchId !== undefined) {
    const id = batchIdKey(item.projectId, batch)
    if (data.signalBatchIds.has(id)) return 'duplicate'
    data.signalBatchIds.add(id)
  }
  let refused: Set<string> | undefined
  for (const page of item.pages ?? []) if (admitPage(data, item.projectId, page) !== page) (refused ??= new Set()).add(page.key)
  if (refused) moveToOther(item.batch, refused)
  data.signals.push({ id: data.signals.length, projectId: item.projectId, receivedAt: item.receivedAt, batch: item.batch })
  statsOf(data, item.projectId).signalBatches += 1
  return 'stored'
}

/** As lmdb/append.ts: the batch's losses go to its session record (if it has one) and off the batch. */
function noteLosses(data: MemoryData, item: Extract<IngestItem, { kind: 'signals' }>): void {
  const { projectId, batch } = item
  const lost = batch.lost!
  delete batch.lost
  const sessions = inner(data.sessions, projectId)
  const existing = sessions.get(batch.sk)
  const session = existing && sessionWithLosses(existing, lost)
  if (!session) return
  sessions.set(batch.sk, session)
  countCompleteness(statsOf(data, projectId), existing, session)
}

/** The page an entry counts under: `page`, noted in the index the first time, or (other) past the page cap (aggregates/pages.ts). */
export function admitPage(data: MemoryData, projectId: string, page: PageRecord): PageRecord {
  const pages = inner(data.pages, projectId)
  if (pages.has(page.key)) return page
  const held = pages.size - (pages.has(OTHER_PAGE) ? 1 : 0)
  if (page.key === OTHER_PAGE || countsAsOtherPage(false, held, data.maxPagesPerProject)) {
    let other = pages.get(OTHER_PAGE)
    if (!other) pages.set(OTHER_PAGE, (other = otherPageRecord(page.firstSeenAt)))
    return other
  }
  pages.set(page.key, page)
  return page
}

export function appendStyle(data: MemoryData, item: Extract<IngestItem, { kind: 'style' }>): IngestOutcome {
  const styles = inner(data.styles, item.projectId)
  if (styles.has(item.hash)) return 'duplicate'
  if (!admitStyle(statsOf(data, item.projectId), item)) return 'over_quota'
  styles.set(item.hash, item.body)
  return 'stored'
}
