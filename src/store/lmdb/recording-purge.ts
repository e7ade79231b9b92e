/**
 * Deleting recordings over the LMDB tables: by age (retention, the
 * deployment's RETENTION_DAYS or a project's own shorter one) and by size
 * (the disk budget, oldest first from the project holding the most). Both
 * delete a whole session's chunk bytes and keep its record, chunk list and
 * signals; each runs in bounded steps, one write transaction each.
 */
import type { EvictionResult, PurgeResult, SessionRecord } from '../records.js'
import { emptyStats, uncountRecording } from '../recording-records.js'
import type { Key, Tables } from './tables.js'

const DAY_MS = 24 * 60 * 60 * 1000

/** Where retention cuts: the deployment's cutoff, later ones for projects with their own retention, and the latest of all. */
export interface Cutoffs {
  all: number
  byProject: Map<string, number>
  latest: number
}

/** Read once per pass: projects are few (bounded per organisation), sessions are not. */
export function retentionCutoffs(tables: Tables, cutoff: number, now: number): Cutoffs {
  const cutoffs: Cutoffs = { all: cutoff, byProject: new Map(), latest: cutoff }
  for (const { key, value } of tables.projects.getRange({})) {
    if (!value.retentionDays) continue
    const own = now - value.retentionDays * DAY_MS
    if (own <= cutoff) continue
    cutoffs.byProject.set(key, own)
    cutoffs.latest = Math.max(cutoffs.latest, own)
  }
  return cutoffs
}

/** What one bounded step of retention did; `done` false when `limit` stopped it early, `last` where the next resumes. */
export type PurgeStep = PurgeResult & { done: boolean; last?: Key }

/**
 * One bounded step of retention; runs inside a write transaction. The index
 * is read oldest first up to the latest cutoff: an entry still inside its
 * own project's retention stays where it is, and the next step starts after
 * `after`, so the walk never meets it twice.
 */
export function purgeInTxn(tables: Tables, cutoffs: Cutoffs, limit: number, now: number, after?: Key): PurgeStep {
  const result: PurgeStep = { sessionsPurged: 0, chunksDeleted: 0, bytesDeleted: 0, done: true }
  const resume = after === undefined ? undefined : JSON.stringify(after)
  let seen = 0
  for (const { key } of tables.sessionsByTime.getRange({ start: after ?? [0], end: [cutoffs.latest] })) {
    if (resume !== undefined && JSON.stringify(key) === resume) continue
    if (seen++ >= limit) {
      result.done = false
      break
    }
    result.last = key as Key
    const [time, projectId, sk] = key as [number, string, string]
    const cutoff = cutoffs.byProject.get(projectId) ?? cutoffs.all
    if (time >= cutoff) continue
    tables.sessionsByTime.remove(key)
    const session = tables.sessions.get([projectId, sk])
    if (!session || session.purgedAt) continue
    if (session.updatedAt >= cutoff) {
      // Still active after the cutoff: look again once its last activity is old enough.
      tables.sessionsByTime.put([session.updatedAt, projectId, sk], true)
      continue
    }
    const deleted = deleteRecording(tables, projectId, sk, session, now)
    result.sessionsPurged += 1
    result.chunksDeleted += deleted.chunks
    result.bytesDeleted += deleted.bytes
  }
  return result
}

/** An eviction in progress: what is left to free, and where each project's oldest session was last found in the index. */
export interface Eviction {
  want: number
  result: EvictionResult
  from: Map<string, Key>
}

/**
 * One bounded step of eviction under the disk budget, inside a write
 * transaction: while less than `want` is freed, deletes the oldest session
 * of the project that holds the most chunk bytes now. Evicting from the
 * largest first is the fairness the budget promises: a project recording
 * ten times more than the others pays for the space, and a quiet project
 * keeps its history until the busy ones are down to its size. True once
 * done (enough freed, or nothing left to free).
 */
export function evictInTxn(tables: Tables, eviction: Eviction, limit: number, now: number): boolean {
  const held = new Map<string, number>()
  for (const { key, value } of tables.projectStats.getRange({})) if (value.bytes > 0) held.set(key as string, value.bytes)
  for (let evicted = 0; eviction.result.bytesDeleted < eviction.want; evicted++) {
    if (evicted >= limit) return false
    const projectId = largest(held)
    if (projectId === undefined) return true
    const key = oldestOf(tables, projectId, eviction.from.get(projectId))
    if (key === undefined) {
      held.delete(projectId)
      continue
    }
    eviction.from.set(projectId, key)
    tables.sessionsByTime.remove(key)
    const sk = key[2] as string
    const session = tables.sessions.get([projectId, sk])
    if (!session || session.purgedAt) continue
    const deleted = deleteRecording(tables, projectId, sk, session, now)
    held.set(projectId, (held.get(projectId) ?? 0) - deleted.bytes)
    const { result } = eviction
    result.sessionsPurged += 1
    result.chunksDeleted += deleted.chunks
    result.bytesDeleted += deleted.bytes
    const mine = (result.byProject[projectId] ??= { sessions: 0, bytes: 0 })
    mine.sessions += 1
    mine.bytes += deleted.bytes
  }
  return true
}

function largest(held: Map<string, number>): string | undefined {
  let best: string | undefined
  let most = 0
  for (const [projectId, bytes] of held) {
    if (bytes > most) {
      best = projectId
      most = bytes
    }
  }
  return best
}

/** The project's first entry in the time index at or after `from`: its oldest session not deleted yet. */
function oldestOf(tables: Tables, projectId: string, from: Key | undefined): [number, string, string] | undefined {
  for (const key of tables.sessionsByTime.getKeys({ start: from ?? [0] })) {
    if ((key as [number, string, string])[1] === projectId) return key as [number, string, string]
  }
  return undefined
}

/** Deletes the session's chunk bytes and marks it purged; its chunk list stays, and says what the recording was. */
function deleteRecording(tables: Tables, projectId: string, sk: string, session: SessionRecord, now: number): { chunks: number; bytes: number } {
  let bytes = 0
  let chunks = 0
  for (const { key, value } of tables.chunkInfo.getRange({ start: [projectId, sk, 0], end: [projectId, sk, Number.MAX_SAFE_INTEGER] })) {
    tables.chunks.remove(key)
    bytes += value.size
    chunks += 1
  }
  tables.sessions.put([projectId, sk], { ...session, purgedAt: now })
  const stats = { ...(tables.projectStats.get(projectId) ?? emptyStats()) }
  uncountRecording(stats, session, bytes)
  tables.projectStats.put(projectId, stats)
  return { chunks, bytes }
}
