/** Retention and the disk budget over the in-memory store: the same choices as lmdb/recording-purge.ts, over maps. */
import type { EvictionResult, PurgeResult, SessionRecord } from '../records.js'
import { emptyStats, uncountRecording } from '../recording-records.js'
import { sessionId, type MemoryData } from './data.js'

const DAY_MS = 24 * 60 * 60 * 1000

export function purgeBefore(data: MemoryData, cutoff: number, now: number): PurgeResult {
  const result: PurgeResult = { sessionsPurged: 0, chunksDeleted: 0, bytesDeleted: 0 }
  for (const [projectId, sessions] of data.sessions) {
    const days = data.projects.get(projectId)?.retentionDays
    const own = days ? Math.max(cutoff, now - days * DAY_MS) : cutoff
    for (const session of sessions.values()) {
      if (session.purgedAt || session.updatedAt >= own) continue
      const deleted = deleteRecording(data, session, now)
      result.sessionsPurged += 1
      result.chunksDeleted += deleted.chunks
      result.bytesDeleted += deleted.bytes
    }
  }
  return result
}

/** Oldest session (by its first chunk's arrival) of the project holding the most chunk bytes, until `want` is freed. */
export function evict(data: MemoryData, want: number, now: number): EvictionResult {
  const result: EvictionResult = { sessionsPurged: 0, chunksDeleted: 0, bytesDeleted: 0, byProject: {} }
  const queues = new Map<string, SessionRecord[]>()
  for (const [projectId, sessions] of data.sessions) {
    queues.set(projectId, [...sessions.values()].filter((s) => !s.purgedAt).sort((a, b) => a.createdAt - b.createdAt || (a.sk < b.sk ? -1 : 1)))
  }
  while (result.bytesDeleted < want) {
    let projectId: string | undefined
    let most = 0
    for (const [id, stats] of data.projectStats) if (stats.bytes > most && queues.get(id)?.length) [projectId, most] = [id, stats.bytes]
    if (projectId === undefined) break
    const deleted = deleteRecording(data, queues.get(projectId)!.shift()!, now)
    result.sessionsPurged += 1
    result.chunksDeleted += deleted.chunks
    result.bytesDeleted += deleted.bytes
    const mine = (result.byProject[projectId] ??= { sessions: 0, bytes: 0 })
    mine.sessions += 1
    mine.bytes += deleted.bytes
  }
  return result
}

function deleteRecording(data: MemoryData, session: SessionRecord, now: number): { chunks: number; bytes: number } {
  let bytes = 0
  let chunks = 0
  for (const chunk of data.chunks.get(sessionId(session.projectId, session.sk))?.values() ?? []) {
    // The chunk's info stays: it says what the recording was.
    delete chunk.body
    bytes += chunk.info.size
    chunks += 1
  }
  session.purgedAt = now
  const stats = data.projectStats.get(session.projectId) ?? emptyStats()
  uncountRecording(stats, session, bytes)
  data.projectStats.set(session.projectId, stats)
  return { chunks, bytes }
}
