/**
 * The in-memory implementation of the store: every record in JavaScript maps,
 * nothing on disk, one process. It proves the interface neutral (it passes
 * the shared suite, test/store/memory.test.ts) and gives tests of other
 * parts a store without a data directory. Aggregates are derived on read
 * from the batches applied so far (derived.ts); reads of them are not meant
 * to be fast.
 */
import type {
  AuditRecord,
  MovedPlace,
  AuditSlice,
  BackfillState,
  ChunkInfo,
  EvictionResult,
  IngestItem,
  IngestOutcome,
  AppliedBatch,
  JournalPosition,
  NewProject,
  PageRecord,
  PageSlice,
  ProjectRecord,
  ProjectStats,
  PurgeResult,
  Rekey,
  SessionRecord,
  SignalsRecord,
  StorageUse,
} from '../records.js'
import type {
  ClickHeatmap,
  ElementRow,
  ElementsQuery,
  FrictionSlice,
  FrictionQuery,
  HeatmapQuery,
  PageInsight,
  ScrollHeatmap,
  SessionListSlice,
  SessionListQuery,
  SessionSignals,
  TimeRange,
} from '../insights.js'
import { underQuota } from '../account-store.js'
import { BatchOutOfOrder, StorageUnavailable, type ProjectPatch, type Store } from '../store.js'
import { MemoryAccounts } from './accounts.js'
import { appendChunk, appendSignals, appendStyle } from './append.js'
import { emptyStats } from '../recording-records.js'
import { shortId } from '../aggregates/ids.js'
import { byBytes, MemoryData, sessionId, type StoredBatch } from './data.js'
import { DerivedCache } from './derived.js'
import type { Overview, OverviewQuery } from '../aggregates/overview.js'
import { friction, heatmap, pageInsights, topElements } from './reads.js'
import { sessionPage } from './sessions.js'
import { backfillStep } from './backfill.js'
import { evict, purgeBefore } from './recording-purge.js'

export { MemoryData } from './data.js'

/** Batches one call of applyDerivations applies at most by default, as LMDB's fold. */
const APPLY_LIMIT = 4_000

const copy = <T>(value: T): T => structuredClone(value)

export class MemoryStore extends MemoryAccounts implements Store {
  private readonly derived = new DerivedCache(this.data)

  // ---- projects ----

  projectIdForPublicKey(publicKey: string): string | undefined {
    for (const project of this.data.projects.values()) if (project.publicKey === publicKey) return project.id
    return undefined
  }

  createProject(input: NewProject): Promise<ProjectRecord>
  createProject(input: NewProject, maxPerOrg: number | null): Promise<ProjectRecord | undefined>
  async createProject(input: NewProject, maxPerOrg?: number | null): Promise<ProjectRecord | undefined> {
    if (!underQuota(() => this.listProjects(input.orgId).length, maxPerOrg)) return undefined
    const project: ProjectRecord = copy(input)
    this.data.projects.set(project.id, project)
    return copy(project)
  }

  getProject(id: string): ProjectRecord | undefined {
    return copy(this.data.projects.get(id))
  }

  listProjects(orgId: string): ProjectRecord[] {
    return [...this.data.projects.values()].filter((p) => p.orgId === orgId).sort((a, b) => a.createdAt - b.createdAt).map(copy)
  }

  async updateProject(id: string, patch: ProjectPatch): Promise<ProjectRecord | undefined> {
    return this.patch(this.data.projects, id, patch)
  }

  projectStats(projectId: string): ProjectStats {
    return copy(this.data.projectStats.get(projectId) ?? emptyStats())
  }

  // ---- the audit log ----

  async appendAudit(entry: AuditRecord): Promise<void> {
    if (!this.data.audit.some((e) => e.id === entry.id)) this.data.audit.push(copy(entry))
  }

  listAudit(orgId: string, slice: AuditSlice): AuditRecord[] {
    const newestFirst = (a: AuditRecord, b: AuditRecord) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)
    const before = slice.before
    const older = (e: AuditRecord) => !before || e.at < before.at || (e.at === before.at && e.id < before.id)
    return this.data.audit.filter((e) => e.orgId === orgId && older(e)).sort(newestFirst).slice(0, slice.limit).map(copy)
  }

  async purgeAuditBefore(cutoff: number): Promise<number> {
    const kept = this.data.audit.filter((e) => e.at >= cutoff)
    const purged = this.data.audit.length - kept.length
    this.data.audit.splice(0, this.data.audit.length, ...kept)
    return purged
  }

  // ---- recordings ----

  async appendBatch(items: IngestItem[], applied?: AppliedBatch): Promise<IngestOutcome[]> {
    // As lmdb/index.ts: a batch that does not continue where the store stands writes nothing.
    if (applied?.after !== undefined && this.journalPosition(applied.stream) !== applied.after) throw new BatchOutOfOrder(applied, this.journalPosition(applied.stream))
    if (applied) this.journalPositions.set(applied.stream, applied.seq)
    return items.map((item) =>
      item.kind === 'chunk' ? appendChunk(this.data, copy(item), this.moved) : item.kind === 'style' ? appendStyle(this.data, copy(item)) : appendSignals(this.data, copy(item)),
    )
  }

  /** As lmdb/index.ts, for chunks: this store keeps no log place of a signals batch. */
  private moved: MovedPlace[] = []

  takeMovedPlaces(): MovedPlace[] {
    const moved = this.moved
    this.moved = []
    return moved
  }

  private readonly journalPositions = new Map<string, number>()

  journalPosition(stream: string): number {
    return this.journalPositions.get(stream) ?? 0
  }

  async setJournalPosition(applied: JournalPosition): Promise<void> {
    this.journalPositions.set(applied.stream, applied.seq)
  }

  /** One process, no crash to survive between the change and its position: run, then record. */
  async applyJournalled<T>(applied: JournalPosition, run: () => Promise<T>, entryId?: string): Promise<T> {
    const record = () => {
      this.journalPositions.set(applied.stream, applied.seq)
      if (entryId !== undefined) this.appliedEntries.add(entryId)
    }
    let result: T
    try {
      result = await run()
    } catch (error) {
      if (!(error instanceof StorageUnavailable)) record()
      throw error
    }
    record()
    return result
  }

  private readonly appliedEntries = new Set<string>()

  journalEntryApplied(entryId: string): boolean {
    return this.appliedEntries.has(entryId)
  }

  getSession(projectId: string, sk: string): SessionRecord | undefined {
    return copy(this.data.sessions.get(projectId)?.get(sk))
  }

  *listSessions(projectId: string): Iterable<SessionRecord> {
    const sessions = [...(this.data.sessions.get(projectId)?.values() ?? [])].sort((a, b) => byBytes(a.sk, b.sk))
    for (const session of sessions) yield copy(session)
  }

  listChunks(projectId: string, sk: string, fromSeq = 0): ChunkInfo[] {
    const chunks = this.data.chunks.get(sessionId(projectId, sk))
    return [...(chunks?.values() ?? [])].filter(({ info }) => info.seq >= fromSeq).map(({ info }) => copy(info)).sort((a, b) => a.seq - b.seq)
  }

  getChunk(projectId: string, sk: string, seq: number): Uint8Array | undefined {
    const body = this.data.chunks.get(sessionId(projectId, sk))?.get(seq)?.body
    return body && Uint8Array.from(body)
  }

  getStyle(projectId: string, hash: string): Uint8Array | undefined {
    const body = this.data.styles.get(projectId)?.get(hash)
    return body && Uint8Array.from(body)
  }

  styleBytes(projectId: string): number {
    let bytes = 0
    for (const body of this.data.styles.get(projectId)?.values() ?? []) bytes += body.byteLength
    return bytes
  }

  *listSignals(projectId: string): Iterable<{ receivedAt: number; batch: SignalsRecord }> {
    for (const stored of signalsOf(this.data, projectId)) yield { receivedAt: stored.receivedAt, batch: copy(stored.batch) }
  }

  listPages(projectId: string, slice?: PageSlice): PageRecord[] {
    const records = [...(this.data.pages.get(projectId)?.values() ?? [])].sort((a, b) => byBytes(a.key, b.key))
    return sliceOf(records, (r) => byBytes(r.key, slice?.after ?? '') > 0, slice).map(copy)
  }

  countPages(projectId: string): number {
    return this.data.pages.get(projectId)?.size ?? 0
  }

  // ---- jobs ----

  getBackfill(projectId: string): BackfillState | undefined {
    return copy(this.data.backfills.get(projectId)?.state)
  }

  async startBackfill(projectId: string, rules: string[], now: number): Promise<BackfillState> {
    const running = this.data.backfills.get(projectId)
    if (running?.state.state === 'running') return copy(running.state)
    const state: BackfillState = {
      projectId,
      state: 'running',
      phase: 'sessions',
      rules: [...rules],
      startedAt: now,
      updatedAt: now,
      pagesBefore: this.countPages(projectId),
      sessionsTotal: this.data.sessions.get(projectId)?.size ?? 0,
      sessionsRekeyed: 0,
      signalBatchesRekeyed: 0,
    }
    this.data.backfills.set(projectId, { state, next: new Map() })
    return copy(state)
  }

  async continueBackfill(projectId: string, budget: number, rekey: Rekey, now: number): Promise<BackfillState> {
    const run = this.data.backfills.get(projectId)
    if (!run) throw new Error(`no backfill for ${projectId}`)
    if (run.state.state === 'running') {
      backfillStep(this.data, run, signalsOf(this.data, projectId), budget, rekey, now)
      this.derived.forget()
    }
    return copy(run.state)
  }

  listRunningBackfills(): BackfillState[] {
    return [...this.data.backfills.values()].filter((run) => run.state.state === 'running').map((run) => copy(run.state))
  }

  async purgeRecordingsBefore(cutoff: number, now: number): Promise<PurgeResult> {
    return purgeBefore(this.data, cutoff, now)
  }

  async evictRecordings(bytes: number, now: number): Promise<EvictionResult> {
    return evict(this.data, bytes, now)
  }

  storageUse(): StorageUse {
    // Nothing on disk: only the counters have a figure.
    return { projects: new Map([...this.data.projectStats].map(([id, stats]) => [id, copy(stats)])), signalsBytes: 0, aggregatesBytes: 0, fileBytes: 0 }
  }

  // ---- aggregates ----

  async applyDerivations(limit = APPLY_LIMIT): Promise<number> {
    const applied = Math.min(limit, this.data.signals.length - this.data.applied)
    this.data.applied += applied
    if (applied > 0) this.derived.forget()
    return applied
  }

  derivationLag(): number {
    return this.data.signals.length - this.data.applied
  }

  listSessionPage(projectId: string, query: SessionListQuery): SessionListSlice {
    const sessions = [...(this.data.sessions.get(projectId)?.values() ?? [])]
    const page = sessionPage(sessions, this.derived.of(projectId), query)
    return { ...page, sessions: page.sessions.map(copy) }
  }

  sessionSignals(projectId: string, sk: string): SessionSignals {
    return this.derived.of(projectId).sessionSignals(sk)
  }

  listSignalPages(projectId: string, slice?: PageSlice): string[] {
    const after = slice?.after === undefined ? '' : shortId(slice.after)
    return sliceOf(this.derived.of(projectId).pageKeys(), (key) => shortId(key) > after, slice)
  }

  heatmap(projectId: string, query: HeatmapQuery): ClickHeatmap | ScrollHeatmap {
    return heatmap(this.derived.of(projectId), query)
  }

  topElements(projectId: string, query: ElementsQuery): ElementRow[] {
    return topElements(this.derived.of(projectId), query)
  }

  listFriction(projectId: string, query: FrictionQuery): FrictionSlice {
    return friction(this.derived.of(projectId), query)
  }

  pageInsights(projectId: string, query: TimeRange & { pages?: readonly string[] }): PageInsight[] {
    return pageInsights(this.derived.of(projectId), query)
  }

  overview(projectId: string, query: OverviewQuery): Overview {
    const derived = this.derived.of(projectId)
    return derived.overview.read(query, derived.pageKeys())
  }

  async close(): Promise<void> {}
}

/** A slice of a listing in its order: the entries `past` the slice's `after`, `limit` of them; all without a slice. */
function sliceOf<T>(all: T[], past: (entry: T) => boolean, slice?: PageSlice): T[] {
  if (!slice) return all
  return (slice.after === undefined ? all : all.filter(past)).slice(0, slice.limit)
}

/** A project's stored batches in the order LMDB keeps them: by time of receipt, then session key, then arrival. */
function signalsOf(data: MemoryData, projectId: string): StoredBatch[] {
  return data.signals.filter((s) => s.projectId === projectId).sort((a, b) => a.receivedAt - b.receivedAt || byBytes(a.batch.sk, b.batch.sk) || a.id - b.id)
}

/** Opens a store over `data` (a new, empty one by default); pass the same data again to reopen it as a restarted process would. */
export function openMemoryStore(data = new MemoryData()): MemoryStore {
  return new MemoryStore(data)
}
