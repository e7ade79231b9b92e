/** What one ingest item does to the in-memory store: the same records, counted the same way, as lmdb/append.ts writes. */
import type { IngestItem, IngestOutcome, PageRecord, ProjectStats } from '../records.js'
import { chunkInfoOf, emptyStats, sessionWithChunk } from '../recording-records.js'
import { inner, sessionId, type MemoryData } from './data.js'


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
  const info = chunkInfoOf(item)
  chunks.set(meta.seq, item.journal ? { info } : { info, body: Uint8Array.from(body) })

  const sessions = inner(data.sessions, projectId)
  const existing = sessions.get(meta.sk)
  const { session, newPage } = sessionWithChunk(existing, item, info)
  if (newPage && item.page) notePage(data, projectId, item.page)
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
