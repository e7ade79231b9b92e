/**
 * The LMDB implementation of the store: one environment in DATA_DIR shared by
 * every process of the cluster (LMDB is multi-process safe; lmdb-js shares one
 * environment between the threads of a process). Open it once per thread with
 * `openLmdbStore`, never across fork().
 * Accounts and credentials are in accounts.ts; folding and reading the
 * aggregates in insight-store.ts; what every part shares (the tables,
 * settling a write) in environment.ts.
 */
import { join } from 'node:path'
import { ABORT, open } from 'lmdb'
import { log } from '../../log.js'
import type {
  AuditRecord,
  AuditSlice,
  BackfillState,
  ChunkInfo,
  EvictionResult,
  IngestItem,
  IngestOutcome,
  MovedPlace,
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
import { BatchOutOfOrder, type ProjectPatch, type Store } from '../store.js'
import { appendAuditInTxn, deleteAuditInTxn, expiredAuditKeys, listAudit } from './audit.js'
import { underQuota } from '../account-store.js'
import { applyItems, pageIndexKey } from './append.js'
import { emptyStats } from '../recording-records.js'
import type { LmdbOptions } from './environment.js'
import { isStorageFailure, surviveFailedCommits } from './failures.js'
import { MAX_KEY_PART } from './keys.js'
import { backfillStepInTxn, beginRebuild, pruneReplaced, rebuildSignalsStep, type SignalsStep } from './lifecycle.js'
import { evictInTxn, purgeInTxn, retentionCutoffs, type Eviction, type PurgeStep } from './recording-purge.js'
import { storageUse } from './storage-use.js'
import { privateDir, privateFiles } from './private-files.js'
import type { BackfillRecord } from './tables.js'
import { LmdbInsights } from './insight-store.js'

export type { LmdbOptions } from './environment.js'

export class LmdbStore extends LmdbInsights implements Store {
  // ---- ingest ----

  projectIdForPublicKey(publicKey: string): string | undefined {
    return this.tables.projectsByKey.get(publicKey)
  }

  async appendBatch(items: IngestItem[], applied?: AppliedBatch): Promise<IngestOutcome[]> {
    let outcomes: IngestOutcome[] = []
    let discontinued: number | undefined
    const write = () => {
      // A batch written while the one before it failed would record a position past entries never applied.
      if (applied?.after !== undefined && this.journalPosition(applied.stream) !== applied.after) {
        discontinued = this.journalPosition(applied.stream)
        return ABORT
      }
      if (applied) this.tables.journalPositions.put(applied.stream, applied.seq)
      outcomes = this.eachAloneOnFailure(this.root, items, (some) => this.apply(some), (item, error) => {
        // The disk or the environment failed, not the item: the client keeps it and sends it again.
        if (isStorageFailure(error)) return 'unavailable'
        // Say, a key past LMDB's 1,978-byte limit.
        log.error('ingest item could not be stored; dropped', { error: String(error), kind: item.kind, projectId: item.projectId })
        return 'failed'
      })
      // From the log, an item left out would be left out of this node for good: nothing commits, the follower applies the entries again.
      if (applied && outcomes.includes('unavailable')) return ABORT
    }
    // Only a child transaction can be undone whole (ABORT); ingest from the fronts keeps the cheaper plain one.
    await this.settle(applied ? this.root.childTransaction(write) : this.root.transaction(write))
    if (discontinued !== undefined) throw new BatchOutOfOrder(applied!, discontinued)
    return outcomes
  }

  journalPosition(stream: string): number {
    return this.tables.journalPositions.get(stream) ?? 0
  }

  async setJournalPosition(applied: JournalPosition): Promise<void> {
    await this.settle(this.root.transaction(() => void this.tables.journalPositions.put(applied.stream, applied.seq)))
  }

  /** Places of items met again elsewhere since the last take (applyItems notes them; a retried item may note one twice). */
  private moved: MovedPlace[] = []

  takeMovedPlaces(): MovedPlace[] {
    const moved = this.moved
    this.moved = []
    return moved
  }

  private apply(items: IngestItem[]): IngestOutcome[] {
    return applyItems(this.tables, items, this.options.aggregates !== false, this.maxPages, this.moved)
  }
  // ---- projects ----

  createProject(input: NewProject): Promise<ProjectRecord>
  createProject(input: NewProject, maxPerOrg: number | null): Promise<ProjectRecord | undefined>
  async createProject(input: NewProject, maxPerOrg?: number | null): Promise<ProjectRecord | undefined> {
    const project: ProjectRecord = { ...input }
    const outcome = await this.createIf(
      () => (underQuota(() => this.idsUnder(this.tables.projectsByOrg, project.orgId).length, maxPerOrg) ? 'created' : 'quota_exceeded'),
      () => {
        this.tables.projects.put(project.id, project)
        this.tables.projectsByKey.put(project.publicKey, project.id)
        this.tables.projectsByOrg.put([project.orgId, project.id], true)
      },
    )
    return outcome === 'created' ? project : undefined
  }

  getProject(id: string): ProjectRecord | undefined {
    return this.tables.projects.get(id)
  }

  listProjects(orgId: string): ProjectRecord[] {
    return this.idsUnder(this.tables.projectsByOrg, orgId)
      .map((id) => this.tables.projects.get(id))
      .filter((p): p is ProjectRecord => p !== undefined)
      .sort((a, b) => a.createdAt - b.createdAt)
  }

  updateProject(id: string, patch: ProjectPatch): Promise<ProjectRecord | undefined> {
    return this.update<ProjectRecord>(this.tables.projects, id, patch)
  }

  projectStats(projectId: string): ProjectStats {
    return this.tables.projectStats.get(projectId) ?? emptyStats()
  }

  // ---- recordings ----

  getSession(projectId: string, sk: string): SessionRecord | undefined {
    return this.tables.sessions.get([projectId, sk])
  }

  *listSessions(projectId: string): Iterable<SessionRecord> {
    for (const { value } of this.tables.sessions.getRange({ start: [projectId], end: [projectId, MAX_KEY_PART] })) yield value
  }

  listChunks(projectId: string, sk: string, fromSeq = 0): ChunkInfo[] {
    return Array.from(
      this.tables.chunkInfo.getRange({ start: [projectId, sk, fromSeq], end: [projectId, sk, Number.MAX_SAFE_INTEGER] }),
      ({ value }) => value,
    )
  }

  getChunk(projectId: string, sk: string, seq: number): Uint8Array | undefined {
    return this.tables.chunks.getBinary([projectId, sk, seq])
  }

  getStyle(projectId: string, hash: string): Uint8Array | undefined {
    return this.tables.styles.getBinary([projectId, hash])
  }

  styleBytes(projectId: string): number {
    let bytes = 0
    for (const { value } of this.tables.styles.getRange({ start: [projectId], end: [projectId, MAX_KEY_PART] })) bytes += value.byteLength
    return bytes
  }

  listPages(projectId: string, slice?: PageSlice): PageRecord[] {
    const start = slice?.after === undefined ? [projectId] : pageIndexKey(projectId, slice.after)
    const records = Array.from(this.tables.pages.getRange({ start, end: [projectId, MAX_KEY_PART], limit: slice && slice.limit + 1 }), ({ value }) => value)
    // The range starts at `after` itself, which the slice before ended on.
    if (slice?.after !== undefined && records[0]?.key === slice.after) records.shift()
    return slice ? records.slice(0, slice.limit) : records
  }

  countPages(projectId: string): number {
    return this.tables.pages.getKeysCount({ start: [projectId], end: [projectId, MAX_KEY_PART] })
  }

  // ---- the audit log ----

  async appendAudit(entry: AuditRecord): Promise<void> {
    await this.settle(this.write(() => appendAuditInTxn(this.tables, entry)))
  }

  listAudit(orgId: string, slice: AuditSlice): AuditRecord[] {
    return listAudit(this.tables, orgId, slice)
  }

  async purgeAuditBefore(cutoff: number): Promise<number> {
    let purged = 0
    for (;;) {
      const keys = expiredAuditKeys(this.tables, cutoff)
      if (keys.length === 0) return purged
      await this.settle(this.write(() => deleteAuditInTxn(this.tables, keys)))
      purged += keys.length
    }
  }

  // ---- lifecycle ----

  getBackfill(projectId: string): BackfillState | undefined {
    return visible(this.tables.backfills.get(projectId))
  }

  async startBackfill(projectId: string, rules: string[], now: number): Promise<BackfillState> {
    let state: BackfillRecord | undefined
    // The generation to rebuild into first (idempotent: a start killed after it reuses it).
    if (this.tables.backfills.get(projectId)?.state !== 'running') {
      await this.settle(
        this.aggregates.transaction(() => beginRebuild(this.tables, projectId)),
        this.aggregates,
      )
    }
    await this.settle(
      this.write(() => {
        const current = this.tables.backfills.get(projectId)
        if (current?.state === 'running') {
          state = current
          return
        }
        const range = { start: [projectId], end: [projectId, MAX_KEY_PART] }
        // A previous run that died in its last phase may have left a partial next index.
        for (const key of this.tables.pagesNext.getKeys(range)) this.tables.pagesNext.remove(key)
        state = {
          projectId,
          state: 'running',
          phase: 'sessions',
          rules,
          startedAt: now,
          updatedAt: now,
          pagesBefore: this.tables.pages.getKeysCount(range),
          sessionsTotal: this.tables.sessions.getKeysCount(range),
          sessionsRekeyed: 0,
          signalBatchesRekeyed: 0,
        }
        this.tables.backfills.put(projectId, state)
      }),
    )
    return visible(state)!
  }

  /**
   * One step of at most `limit` sessions or batches, in one transaction per
   * environment: its aggregates side (signals, finish) commits first, then the
   * main side with the cursor (lifecycle.ts). One stepper per project.
   */
  async continueBackfill(projectId: string, limit: number, rekey: Rekey, now: number): Promise<BackfillState> {
    this.root.resetReadTxn()
    const current = this.tables.backfills.get(projectId)
    if (!current) throw new Error(`no backfill for ${projectId}`)
    if (current.state !== 'running') return visible(current)!
    const aggregates: { signals?: SignalsStep; pruned?: boolean } = {}
    if (current.phase === 'signals' || current.phase === 'finish') {
      await this.settle(
        this.aggregates.transaction(() => {
          // The batches stored until now: a fold waiting on this transaction can only hold ones stored before, or walked.
          this.root.resetReadTxn()
          if (current.phase === 'signals') aggregates.signals = rebuildSignalsStep(this.tables, this.registry, current, limit, rekey, this.maxPages)
          else aggregates.pruned = pruneReplaced(this.tables, projectId, limit)
        }),
        this.aggregates,
      )
    }
    let state: BackfillRecord | undefined
    await this.settle(
      this.write(() => {
        state = this.tables.backfills.get(projectId)
        // Unchanged since the aggregates side read it (one stepper per project); else answer it as it is.
        if (JSON.stringify(state) === JSON.stringify(current)) state = backfillStepInTxn(this.tables, current, limit, rekey, now, aggregates)
      }),
    )
    return visible(state)!
  }

  listRunningBackfills(): BackfillState[] {
    return Array.from(this.tables.backfills.getRange({}), ({ value }) => visible(value)!).filter((b) => b.state === 'running')
  }

  /** In passes of PURGE_STEP sessions, one transaction each, yielding between them so that ingest commits in the gaps. */
  async purgeRecordingsBefore(cutoff: number, now: number): Promise<PurgeResult> {
    const total: PurgeResult = { sessionsPurged: 0, chunksDeleted: 0, bytesDeleted: 0 }
    this.root.resetReadTxn()
    const cutoffs = retentionCutoffs(this.tables, cutoff, now)
    let after: PurgeStep['last']
    for (;;) {
      let step: PurgeStep | undefined
      await this.settle(this.write(() => void (step = purgeInTxn(this.tables, cutoffs, PURGE_STEP, now, after))))
      total.sessionsPurged += step!.sessionsPurged
      total.chunksDeleted += step!.chunksDeleted
      total.bytesDeleted += step!.bytesDeleted
      if (step!.done) return total
      after = step!.last
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  /** In steps of EVICT_STEP sessions, one transaction each, yielding between them as the purge does. */
  async evictRecordings(bytes: number, now: number): Promise<EvictionResult> {
    const eviction: Eviction = { want: bytes, result: { sessionsPurged: 0, chunksDeleted: 0, bytesDeleted: 0, byProject: {} }, from: new Map() }
    for (;;) {
      let done = false
      await this.settle(this.write(() => void (done = evictInTxn(this.tables, eviction, EVICT_STEP, now))))
      if (done) return eviction.result
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  storageUse(): StorageUse {
    this.root.resetReadTxn()
    return storageUse(this.tables, this.options.path)
  }

  *listSignals(projectId: string): Iterable<{ receivedAt: number; batch: SignalsRecord }> {
    for (const { key, value } of this.tables.signals.getRange({ start: [projectId], end: [projectId, MAX_KEY_PART] })) {
      yield { receivedAt: (key as [string, number])[1], batch: value }
    }
  }

  async close(): Promise<void> {
    openStores.delete(this.options.path)
    await Promise.all([this.root.close(), this.aggregates.close()])
  }

}

/** Sessions a retention pass examines per transaction: keeps each write-lock hold short for ingest. */
const PURGE_STEP = 500

/** Sessions an eviction deletes per transaction: each deletes every chunk of a recording, so fewer than a purge examines. */
const EVICT_STEP = 100

/** A backfill as callers see it: where it resumes stays inside the store. */
function visible(record: BackfillRecord | undefined): BackfillState | undefined {
  if (!record) return undefined
  const { cursor: _cursor, ...state } = record
  return state
}

const openStores = new Map<string, LmdbStore>()

/**
 * How every environment of the store is opened (through environmentOptions;
 * the benchmark's storage ceiling and plain peer open theirs the same way).
 * Both settings guard against lmdb-js faults seen under several writing
 * processes, at no measured cost (bench/store-settings.md):
 * `maxFreeSpaceToRetain: 0` reloads the free-page list each transaction (a
 * kept, stale list aborted a front in `mdb_freelist_save`);
 * `overlappingSync: false` syncs under the write mutex, whose dead owner LMDB
 * recovers from (the separate sync mutex of a SIGKILLed front left the others MDB_PANIC).
 */
const ENVIRONMENT_OPTIONS = { maxReaders: 1024, maxFreeSpaceToRetain: 0, overlappingSync: false }

/**
 * ENVIRONMENT_OPTIONS for a durability: with "commit" a commit syncs its
 * pages but leaves the meta page to the next one (`noMetaSync`), so a power
 * cut may undo the last transaction yet never corrupts the environment; with
 * "flush" every commit syncs both.
 */
export function environmentOptions(durability: LmdbOptions['durability']) {
  return durability === 'commit' ? { ...ENVIRONMENT_OPTIONS, noMetaSync: true } : ENVIRONMENT_OPTIONS
}

/** Opens (once per thread) the environment at `path`. */
export function openLmdbStore(options: LmdbOptions): LmdbStore {
  const existing = openStores.get(options.path)
  if (existing) return existing
  privateDir(options.path)
  surviveFailedCommits()
  const environment = environmentOptions(options.durability)
  const root = open({ path: options.path, mapSize: options.mapSize, maxDbs: 40, ...environment })
  const aggregatesPath = join(options.path, 'aggregates')
  privateDir(aggregatesPath)
  const aggregates = open({ path: aggregatesPath, mapSize: options.mapSize, maxDbs: 8, ...environment })
  privateFiles(options.path, aggregatesPath)
  const store = new LmdbStore(root, aggregates, options)
  openStores.set(options.path, store)
  return store
}
