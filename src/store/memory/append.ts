/** What one ingest item does to the in-memory store: the same records, counted the same way, as lmdb/append.ts writes. */
import type { ChunkInfo, IngestItem, IngestOutcome, PageRecord, ProjectStats, SessionRecord } from '../records.js'
import { inner, sessionId, type MemoryData } from './data.js'

/** A session keeps the URL of at most this many page views, as in the LMDB store. */
const MAX_SESSION_PAGES = 500

export function emptyStats(): ProjectStats {
  return { sessionCount: 0, chunkCount: 0, bytes: 0, signalBatches: 0 }
}

function statsOf(data: MemoryData, projectId: string): ProjectStats {
  let stats = data.projectStats.get(projectId)
  if (!stats) data.projectStats.set(projectId, (stats = emptyStats()))
  return stats
}

export function appendChunk(data: MemoryData, item: Extract<IngestItem, { kind: 'chunk' }>): IngestOutcome {
  const { projectId, meta, body, receivedAt } = item
  const chunks = inner(data.chunks, sessionId(projectId, meta.sk))
  // A repeated seq is a retry of a chunk already acknowledged: keep the first copy.
  if (chunks.has(meta.seq)) return 'duplicate'
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
  chunks.set(meta.seq, item.journal ? { info } : { info, body: Uint8Array.from(body) })

  const sessions = inner(data.sessions, projectId)
  const existing = sessions.get(meta.sk)
  const session: SessionRecord = existing ?? {
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
    session.pages = [...session.pages, { pageIndex: info.pageIndex, url: info.url, page: item.page?.key ?? '' }].sort((a, b) => a.pageIndex - b.pageIndex)
    if (item.page) notePage(data, projectId, item.page)
  }
  sessions.set(meta.sk, session)

  const stats = statsOf(data, projectId)
  if (!existing) stats.sessionCount += 1
  stats.chunkCount += 1
  stats.bytes += info.size
  return 'stored'
}

export function appendSignals(data: MemoryData, item: Extract<IngestItem, { kind: 'signals' }>): IngestOutcome {
  data.signals.push({ id: data.signals.length, projectId: item.projectId, receivedAt: item.receivedAt, batch: item.batch })
  for (const page of item.pages ?? []) notePage(data, item.projectId, page)
  statsOf(data, item.projectId).signalBatches += 1
  return 'stored'
}

/** Adds a page to the project's page index the first time it is seen. */
export function notePage(data: MemoryData, projectId: string, page: PageRecord): void {
  const pages = inner(data.pages, projectId)
  if (!pages.has(page.key)) pages.set(page.key, page)
}
