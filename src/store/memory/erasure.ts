/**
 * Erasure requests over the in-memory store (src/store/erasure-store.ts). A
 * step erases the whole request at once: nothing here is persisted, so there
 * is no transaction to bound. The aggregates are derived again from the
 * batches left, so they no longer count what was erased at all (LMDB keeps the
 * counts that name no session); the shared suite checks what both agree on.
 */
import { finishErasure, PlaceSet, queuedErasure, subjectOf, type ErasedPlaces, type ErasureCountCursor, type ErasureCountStep, type ErasureCounts, type ErasureRecord, type ErasureStore, type ErasureSubject, type NewErasure } from '../erasure-store.js'
import { SubjectMatch } from '../erasure-subjects.js'
import { ReadBudget } from '../read-budget.js'
import { emptyStats, uncountRecording } from '../recording-records.js'
import type { SessionRecord } from '../records.js'
import { batchIdKey } from './append.js'
import { sessionId, type MemoryData } from './data.js'
import { batchesRemoved } from './derived.js'

const copy = <T>(value: T): T => structuredClone(value)

/** Requests by data, so that a store reopened on the same data (a restart) finds them. */
const requests = new WeakMap<MemoryData, Map<string, ErasureRecord>>()
/** The session keys a request's first step erased, for its second. */
const erasedKeys = new WeakMap<ErasureRecord, Set<string>>()

/** The base of the in-memory store's parts (accounts.ts extends it). */
export abstract class MemoryErasure implements ErasureStore {
  constructor(protected readonly data: MemoryData) {}

  private get erasures(): Map<string, ErasureRecord> {
    let found = requests.get(this.data)
    if (!found) requests.set(this.data, (found = new Map()))
    return found
  }

  /** As the LMDB store's: a step per budget, the cursor an index into the sessions, then into the batches. */
  countErasure(projectId: string, by: ErasureSubject, from: ErasureCountCursor = { phase: 'sessions', after: 0 }, budget = new ReadBudget(), subjectKey?: Buffer): ErasureCountStep {
    const match = new SubjectMatch(projectId, by, subjectKey)
    const counts: ErasureCounts = { sessions: 0, chunks: 0, bytes: 0, signalBatches: 0 }
    const sessions = this.data.sessions.get(projectId)
    let at = (from.after as number | undefined) ?? 0
    if (from.phase === 'sessions') {
      const all = [...(sessions?.values() ?? [])]
      for (; at < all.length; at++) {
        if (!budget.entry()) return { counts, next: { phase: 'sessions', after: at } }
        const session = all[at]
        if (!match.session(session)) continue
        counts.sessions += 1
        counts.chunks += session.chunkCount
        if (session.purgedAt === undefined) counts.bytes += session.bytes
      }
      at = 0
    }
    const batches = this.data.signals.filter((stored) => stored.projectId === projectId)
    for (; at < batches.length; at++) {
      if (!budget.entry()) return { counts, next: { phase: 'signals', after: at } }
      const { batch } = batches[at]
      const session = sessions?.get(batch.sk)
      if (match.batch(batch) || (session !== undefined && match.session(session))) counts.signalBatches += 1
    }
    return { counts }
  }

  erasedPlaces(projectId: string, by: ErasureSubject, subjectKey?: Buffer): ErasedPlaces {
    const sessions = new Set<string>()
    const places = new PlaceSet()
    const match = new SubjectMatch(projectId, by, subjectKey)
    for (const session of this.data.sessions.get(projectId)?.values() ?? []) {
      if (!match.session(session)) continue
      sessions.add(session.sk)
      for (const chunk of this.data.chunks.get(sessionId(projectId, session.sk))?.values() ?? []) places.add(chunk.info.journal)
    }
    for (const stored of this.data.signals) {
      if (stored.projectId === projectId && (sessions.has(stored.batch.sk) || match.batch(stored.batch))) places.add(stored.batch.journal)
    }
    return { sessions, messages: places.messages }
  }

  async startErasure(request: NewErasure, now: number): Promise<ErasureRecord> {
    const existing = this.erasures.get(request.id)
    if (existing && existing.state !== 'done') return copy(existing)
    const erasure = queuedErasure(copy(request), now, (existing?.runs ?? 0) + 1)
    this.erasures.set(request.id, erasure)
    // A project's deletion: gone for every reader and for ingest at once, as in LMDB (lmdb/erasure.ts detachProject).
    if ('project' in request.by) this.data.projects.delete(request.projectId)
    return copy(erasure)
  }

  /**
   * Two steps, as LMDB's phases in short: the sessions, then the batches (which the session keys of the first
   * step name, kept beside the request meanwhile).
   */
  async continueErasure(id: string, _budget: number, now: number, subjectKey?: Buffer): Promise<ErasureRecord> {
    const erasure = this.erasures.get(id)
    if (!erasure) throw new Error(`no erasure ${id}`)
    if (erasure.state === 'done') return copy(erasure)
    const { projectId, removed } = erasure
    const by = subjectOf(erasure)
    const match = new SubjectMatch(projectId, by, subjectKey)
    erasure.state = 'running'
    erasure.updatedAt = now
    if (erasure.phase === 'sessions') {
      const named = new Set<string>()
      for (const session of [...(this.data.sessions.get(projectId)?.values() ?? [])]) {
        erasure.sessionsExamined += 1
        if (!match.session(session)) continue
        named.add(session.sk)
        this.eraseSession(session, removed)
      }
      if ('sessionKey' in by) named.add(by.sessionKey)
      erasedKeys.set(erasure, named)
      erasure.phase = 'signals'
      return copy(erasure)
    }
    const named = erasedKeys.get(erasure) ?? new Set()
    const kept = this.data.signals.filter((stored, at) => {
      const gone = stored.projectId === projectId && (named.has(stored.batch.sk) || match.batch(stored.batch))
      if (gone && at < this.data.applied) this.data.applied -= 1
      if (gone) removed.signalBatches += 1
      if (gone && stored.batch.batchId !== undefined) this.data.signalBatchIds.delete(batchIdKey(projectId, stored.batch))
      return !gone
    })
    if (kept.length !== this.data.signals.length) {
      const stats = this.data.projectStats.get(projectId) ?? emptyStats()
      stats.signalBatches = Math.max(0, stats.signalBatches - (this.data.signals.length - kept.length))
      this.data.projectStats.set(projectId, stats)
      this.data.signals.splice(0, this.data.signals.length, ...kept)
      batchesRemoved(this.data)
    }
    erasedKeys.delete(erasure)
    if ('project' in by) this.eraseProject(projectId)
    erasure.phase = 'forget'
    finishErasure(erasure, now)
    return copy(erasure)
  }

  /** What a deleted project kept apart from its sessions. */
  private eraseProject(projectId: string): void {
    this.data.sessions.delete(projectId)
    this.data.pages.delete(projectId)
    this.data.styles.delete(projectId)
    this.data.projectStats.delete(projectId)
    this.data.backfills.delete(projectId)
    for (const [id, token] of this.data.setupTokens) if (token.projectId === projectId) this.data.setupTokens.delete(id)
  }

  private eraseSession(session: SessionRecord, removed: ErasureRecord['removed']): void {
    const id = sessionId(session.projectId, session.sk)
    let bytes = 0
    let chunks = 0
    for (const chunk of this.data.chunks.get(id)?.values() ?? []) {
      bytes += chunk.info.size
      chunks += 1
    }
    this.data.chunks.delete(id)
    this.data.sessions.get(session.projectId)?.delete(session.sk)
    const stats = this.data.projectStats.get(session.projectId) ?? emptyStats()
    stats.sessionCount = Math.max(0, stats.sessionCount - 1)
    stats.chunkCount = Math.max(0, stats.chunkCount - chunks)
    if (session.purgedAt === undefined) uncountRecording(stats, session, bytes)
    this.data.projectStats.set(session.projectId, stats)
    removed.sessions += 1
    removed.chunks += chunks
    removed.bytes += session.purgedAt === undefined ? bytes : 0
  }

  getErasure(id: string): ErasureRecord | undefined {
    return copy(this.erasures.get(id))
  }

  listErasures(projectId: string): ErasureRecord[] {
    return [...this.erasures.values()].filter((e) => e.projectId === projectId).sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).map(copy)
  }

  listRunningErasures(): ErasureRecord[] {
    return [...this.erasures.values()].filter((e) => e.state !== 'done').map(copy)
  }
}
