/**
 * What one ingest item does to the tables, run inside a write transaction
 * (LMDB serialises write transactions across processes, so the
 * read-modify-write of a session record is atomic).
 */
import { threadId } from 'node:worker_threads'
import type { ChunkInfo, IngestItem, IngestOutcome, PageRecord, ProjectStats, SessionRecord } from '../records.js'
import { shortId } from '../aggregates/ids.js'
import { logForFold } from './fold-log.js'
import type { Key, Tables } from './tables.js'

/** A session keeps the URL of at most this many page views; later ones still count in chunkCount. */
const MAX_SESSION_PAGES = 500

export function emptyStats(): ProjectStats {
  return { sessionCount: 0, chunkCount: 0, bytes: 0, signalBatches: 0 }
}

type ChunkItem = Extract<IngestItem, { kind: 'chunk' }>
type SignalsItem = Extract<IngestItem, { kind: 'signals' }>

export function applyChunk(tables: Tables, item: ChunkItem): IngestOutcome {
  const { projectId, meta, body, receivedAt } = item
  const key = [projectId, meta.sk, meta.seq]
  // A repeated seq is a retry of a chunk already acknowledged: keep the first copy.
  if (tables.chunkInfo.doesExist(key)) return 'duplicate'

  const info: ChunkInfo = {
    seq: meta.seq,
    pageIndex: meta.pageIndex ?? 0,
    url: meta.url ?? '',
    firstTs: meta.firstTs ?? receivedAt,
    lastTs: meta.lastTs ?? meta.firstTs ?? receivedAt,
    eventCount: meta.eventCount ?? 0,
    encoding: meta.encoding,
    size: body.byteLength,
    receivedAt,
    ...(item.journal ? { journal: item.journal } : {}),
  }
  if (!item.journal) tables.chunks.put(key, Buffer.from(body.buffer, body.byteOffset, body.byteLength))
  tables.chunkInfo.put(key, info)

  const sessionKey = [projectId, meta.sk]
  const existing = tables.sessions.get(sessionKey)
  const session: SessionRecord = existing
    ? { ...existing }
    : {
        projectId,
        sk: meta.sk,
        vid: meta.vid,
        startedAt: meta.startedAt ?? info.firstTs,
        firstTs: info.firstTs,
        lastTs: info.lastTs,
        chunkCount: 0,
        bytes: 0,
        eventCount: 0,
        pages: [],
        createdAt: receivedAt,
        updatedAt: receivedAt,
      }
  session.firstTs = Math.min(session.firstTs, info.firstTs)
  session.lastTs = Math.max(session.lastTs, info.lastTs)
  session.chunkCount += 1
  session.bytes += info.size
  session.eventCount += info.eventCount
  session.updatedAt = receivedAt
  if (meta.identity && Object.keys(meta.identity).length > 0) session.identity = { ...session.identity, ...meta.identity }
  if (meta.viewport) session.viewport = meta.viewport
  if (meta.screen) session.screen = meta.screen
  if (meta.consoleErrors) session.consoleErrors = (session.consoleErrors ?? 0) + meta.consoleErrors
  if (meta.failedRequests) session.failedRequests = (session.failedRequests ?? 0) + meta.failedRequests
  if (info.url && session.pages.length < MAX_SESSION_PAGES && !session.pages.some((p) => p.pageIndex === info.pageIndex)) {
    // The page is decided now, under the rules in force, and kept: later rule changes move it only through a backfill.
    const page = item.page?.key ?? ''
    session.pages = [...session.pages, { pageIndex: info.pageIndex, url: info.url, page }].sort((a, b) => a.pageIndex - b.pageIndex)
    if (item.page) notePage(tables, projectId, item.page)
  }
  tables.sessions.put(sessionKey, session)
  if (!existing) {
    tables.sessionsByTime.put([receivedAt, projectId, meta.sk], true)
    // The session list's order: startedAt never changes once the session exists, so a cursor on it is stable.
    tables.sessionsByStart.put([projectId, session.startedAt, meta.sk], true)
  }

  const stats = { ...(tables.projectStats.get(projectId) ?? emptyStats()) }
  if (!existing) stats.sessionCount += 1
  stats.chunkCount += 1
  stats.bytes += info.size
  tables.projectStats.put(projectId, stats)
  return 'stored'
}

/** Distinguishes batches received in the same millisecond within one transaction. */
let signalsNonce = 0

/**
 * Stores a batch and, unless aggregation is switched off, logs it for the
 * fold thread to count into the aggregates after the acknowledgement
 * (fold-log.ts): the entry commits with the batch, so none is ever missed.
 */
export function applySignals(tables: Tables, item: SignalsItem, aggregate: boolean): IngestOutcome {
  const { projectId, batch, receivedAt } = item
  signalsNonce = (signalsNonce + 1) % 1_000_000_000
  const key = [projectId, receivedAt, batch.sk, process.pid, threadId, signalsNonce]
  tables.signals.put(key, batch)
  if (aggregate) logForFold(tables, key)
  for (const page of item.pages ?? []) notePage(tables, projectId, page)
  const stats = { ...(tables.projectStats.get(projectId) ?? emptyStats()) }
  stats.signalBatches += 1
  tables.projectStats.put(projectId, stats)
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
