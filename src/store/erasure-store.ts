/**
 * Erasure: deleting everything recorded about some sessions of a project
 * (issue 34). A request names its sessions by session key, visitor id, user
 * id (as given to `identify`) or a query; it runs in bounded steps, each one
 * write transaction that also saves where the next resumes, so it survives a
 * restart and ingest goes on between steps.
 *
 * What goes: each matched session's record, chunk list and chunk bytes, its
 * index entries, its signal batches and their fold-log entries, and every
 * aggregate entry that names it (per-session counts and views, the sessions
 * of an element, friction items, JS error occurrences, overview units), and
 * the labels of the elements it clicked. What stays: counts that name no
 * session (page, heat, element, error and overview buckets, the page index,
 * error messages) and the project's counters, less what was erased.
 */
import type { ReadBudget } from './read-budget.js'

/** The ids an erasure may name one person or session by. */
export type SubjectField = 'sessionKey' | 'visitorId' | 'userId'

/** One of those ids by keyed hash (erasure-subjects.ts): how a request records it, and the log carries it. */
export interface HashedSubject {
  hashOf: SubjectField
  hash: string
}

export type ErasureSubject =
  /** In the clear: what erasures.create takes and a dry run reads by; recorded this way only by requests made before issue 42. */
  | { sessionKey: string }
  | { visitorId: string }
  | { userId: string }
  | HashedSubject
  /** Sessions that started in [from, until) (ms since the epoch), and visited `page` (a page key) if given. */
  | { query: { from: number; until: number; page?: string } }
  /** Everything recorded in the project, then the project itself (projects.delete; not a request erasures.create takes). */
  | { project: true }

export type ErasureState = 'queued' | 'running' | 'done'

/**
 * sessions → signals → fold-log (entries pointing at removed batches) → aggregates → forget (the list of erased
 * session keys the request kept while it ran) → project (a project's deletion: its page index, counters and
 * setup tokens).
 */
export type ErasurePhase = 'sessions' | 'signals' | 'fold-log' | 'aggregates' | 'forget' | 'project'

/** What an erasure removes (a dry run: would remove). */
export interface ErasureCounts {
  sessions: number
  chunks: number
  /** Chunk bytes. */
  bytes: number
  signalBatches: number
}

export type SubjectKind = 'sessionKey' | 'visitorId' | 'userId' | 'query' | 'project'

export interface ErasureRecord {
  id: string
  projectId: string
  /** A project's deletion: its organisation, the project record being gone from the start. */
  orgId?: string
  subject: SubjectKind
  /** Whom the request names (a session, visitor or user by keyed hash): kept while it runs, and afterwards for a query only. */
  by?: ErasureSubject
  state: ErasureState
  phase: ErasurePhase
  createdAt: number
  updatedAt: number
  finishedAt?: number
  /** How many times the request was made: a repeat after it finished runs it again under the same id. */
  runs: number
  /** Sessions looked at so far (the progress of a walk over the project). */
  sessionsExamined: number
  removed: ErasureCounts & { aggregateEntries: number }
}

export interface NewErasure {
  id: string
  projectId: string
  by: ErasureSubject
  orgId?: string
}

/** What a request names now, and where the cluster's log holds it (erasedPlaces). */
export interface ErasedPlaces {
  /** Session keys of the project the request names. */
  sessions: Set<string>
  /** Log messages holding their chunks and signals batches, each once (cluster mode; none in the embedded mode). */
  messages: { stream: string; seq: number }[]
}

/** Where a dry run stopped: opaque to callers, each store's own. */
export type ErasureCountCursor = { phase: 'sessions' | 'signals'; after: unknown }

export interface ErasureCountStep {
  counts: ErasureCounts
  next?: ErasureCountCursor
}

/** Whether a finished erasure removed anything that a compaction should take out of the files (a project always has its record). */
export function removedAnything(erasure: Pick<ErasureRecord, 'subject' | 'removed'>): boolean {
  const { sessions, chunks, signalBatches, aggregateEntries } = erasure.removed
  return erasure.subject === 'project' || sessions + chunks + signalBatches + aggregateEntries > 0
}

/** Adds a step's counts to a dry run's total. */
export function addCounts(total: ErasureCounts, step: ErasureCounts): void {
  total.sessions += step.sessions
  total.chunks += step.chunks
  total.bytes += step.bytes
  total.signalBatches += step.signalBatches
}

/**
 * `subjectKey`, where a method takes one: the erasure-id key, which a subject named by keyed hash is matched with
 * (erasure-subjects.ts); such a subject without it throws.
 */
export interface ErasureStore {
  /**
   * A dry run: what the request would remove now, one budget's worth (read-budget.ts) of the project's sessions
   * and signal batches at a time. `next` is where the following call goes on, absent once every entry was counted.
   */
  countErasure(projectId: string, by: ErasureSubject, from?: ErasureCountCursor, budget?: ReadBudget, subjectKey?: Buffer): ErasureCountStep
  /** The sessions the request names now and the log messages holding their recordings (src/journal/log-scrub.ts). */
  erasedPlaces(projectId: string, by: ErasureSubject, subjectKey?: Buffer): ErasedPlaces
  /** Records the request (queued); the same id again answers it while it runs, and runs it again once done. */
  startErasure(request: NewErasure, now: number): Promise<ErasureRecord>
  /** One bounded step (about `budget` entries looked at); answers the state after it. */
  continueErasure(id: string, budget: number, now: number, subjectKey?: Buffer): Promise<ErasureRecord>
  getErasure(id: string): ErasureRecord | undefined
  /** The project's erasures, newest first. */
  listErasures(projectId: string): ErasureRecord[]
  /** Erasures not done: what a restarted process resumes. */
  listRunningErasures(): ErasureRecord[]
}

export function emptyRemoved(): ErasureRecord['removed'] {
  return { sessions: 0, chunks: 0, bytes: 0, signalBatches: 0, aggregateEntries: 0 }
}

export function subjectKind(by: ErasureSubject): SubjectKind {
  if ('hashOf' in by) return by.hashOf
  return 'sessionKey' in by ? 'sessionKey' : 'visitorId' in by ? 'visitorId' : 'userId' in by ? 'userId' : 'project' in by ? 'project' : 'query'
}

/** A new run of a request: queued, nothing removed yet. */
export function queuedErasure(request: NewErasure, now: number, runs: number): ErasureRecord {
  return { ...request, subject: subjectKind(request.by), state: 'queued', phase: 'sessions', createdAt: now, updatedAt: now, runs, sessionsExamined: 0, removed: emptyRemoved() }
}

/** The subject of an erasure still to run (finishErasure is the only place that drops it). */
export function subjectOf(erasure: ErasureRecord): ErasureSubject {
  if (!erasure.by) throw new Error(`erasure ${erasure.id} has no subject left to erase`)
  return erasure.by
}

/** Marks a run done; the erasure's own record then keeps only the kind of subject, not even the hash of whom it erased. */
export function finishErasure(erasure: ErasureRecord, now: number): void {
  erasure.state = 'done'
  erasure.finishedAt = now
  erasure.updatedAt = now
  if (erasure.subject !== 'query') delete erasure.by
}

/** Collects each place once, in the order met. */
export class PlaceSet {
  private readonly seen = new Set<string>()
  readonly messages: { stream: string; seq: number }[] = []

  add(place: { stream: string; seq: number } | undefined): void {
    if (!place || this.seen.has(`${place.stream}\0${place.seq}`)) return
    this.seen.add(`${place.stream}\0${place.seq}`)
    this.messages.push({ stream: place.stream, seq: place.seq })
  }
}
