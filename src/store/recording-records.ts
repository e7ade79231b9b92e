/**
 * What a recording chunk makes of the records every backend keeps: the
 * chunk's info, and its session record after it. The backends store them
 * (lmdb/append.ts, memory/append.ts); the rules are these, once.
 */
import type { ChunkInfo, IngestItem, ProjectStats, SessionRecord } from './records.js'

type ChunkItem = Extract<IngestItem, { kind: 'chunk' }>

/** A session keeps the URL of at most this many page views; later ones still count in chunkCount. */
const MAX_SESSION_PAGES = 500

export function emptyStats(): ProjectStats {
  return { sessionCount: 0, chunkCount: 0, bytes: 0, signalBatches: 0, recordedMs: 0 }
}

/** A recorded minute is counted at most a day per session: the timestamps come from the tracker, and a wrong clock must not make minutes up. */
const MAX_SESSION_SPAN_MS = 24 * 60 * 60 * 1000

/** The time a session's recording spans, as counted in ProjectStats.recordedMs. */
export function recordedSpan(session: Pick<SessionRecord, 'firstTs' | 'lastTs'>): number {
  return Math.min(MAX_SESSION_SPAN_MS, Math.max(0, session.lastTs - session.firstTs))
}

/** Counts a stored chunk in its project's counters: `existing` is its session before it, `session` after. */
export function countChunk(stats: ProjectStats, existing: SessionRecord | undefined, session: SessionRecord, info: ChunkInfo): void {
  if (!existing) stats.sessionCount += 1
  stats.chunkCount += 1
  // A session whose recording was deleted keeps its record, not the bytes of chunks that arrive after (lmdb/append.ts).
  if (existing?.purgedAt !== undefined) return
  stats.bytes += info.size
  stats.recordedMs = (stats.recordedMs ?? 0) + recordedSpan(session) - (existing ? recordedSpan(existing) : 0)
}

/** Takes a deleted recording out of its project's counters. */
export function uncountRecording(stats: ProjectStats, session: SessionRecord, bytes: number): void {
  stats.bytes = Math.max(0, stats.bytes - bytes)
  stats.recordedMs = Math.max(0, (stats.recordedMs ?? 0) - recordedSpan(session))
}

/** What names an ingest item across the log's places: a chunk by its session and seq, a signals batch by its log id. */
export function itemIdentity(item: IngestItem): string {
  if (item.kind === 'chunk') return `chunk ${item.projectId} ${item.meta.sk} ${item.meta.seq}`
  if (item.kind === 'signals') return `signals ${item.id ?? ''}`
  return `style ${item.projectId} ${item.hash}`
}

export function chunkInfoOf(item: ChunkItem): ChunkInfo {
  const { meta, body, receivedAt } = item
  return {
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
    ...(meta.checkpoint ? { checkpoint: true as const } : {}),
    ...(meta.leaving === 'site' ? { left: true as const } : {}),
    ...(meta.consoleErrors ? { consoleErrors: meta.consoleErrors } : {}),
    ...(meta.failedRequests ? { failedRequests: meta.failedRequests } : {}),
  }
}

/**
 * The session record once `item` is counted in it (a new record when
 * `existing` is undefined); `newPage` when the chunk's page view is one the
 * session did not list yet, whose page the backend then notes in its index.
 */
export function sessionWithChunk(existing: SessionRecord | undefined, item: ChunkItem, info: ChunkInfo): { session: SessionRecord; newPage: boolean } {
  const { projectId, meta, receivedAt } = item
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
  session.seqTop = Math.max(session.seqTop ?? -1, info.seq)
  session.bytes += info.size
  session.eventCount += info.eventCount
  session.updatedAt = receivedAt
  if (meta.identity && Object.keys(meta.identity).length > 0) session.identity = { ...session.identity, ...meta.identity }
  if (meta.viewport) session.viewport = meta.viewport
  if (meta.screen) session.screen = meta.screen
  if (meta.consoleErrors) session.consoleErrors = (session.consoleErrors ?? 0) + meta.consoleErrors
  if (meta.failedRequests) session.failedRequests = (session.failedRequests ?? 0) + meta.failedRequests
  const newPage = Boolean(info.url) && session.pages.length < MAX_SESSION_PAGES && !session.pages.some((p) => p.pageIndex === info.pageIndex)
  // The page is decided when the view lands, under the rules in force, and kept: later rule changes move it only through a backfill.
  if (newPage) session.pages = [...session.pages, { pageIndex: info.pageIndex, url: info.url, page: item.page?.key ?? '' }].sort((a, b) => a.pageIndex - b.pageIndex)
  return { session, newPage }
}
