/**
 * The LMDB implementation of the store: one environment in DATA_DIR shared by
 * every process of the cluster (LMDB is multi-process safe; lmdb-js shares one
 * environment between the threads of a process). Open it once per thread with
 * `openLmdbStore`, never across fork().
 *
 * Writes go through lmdb-js asynchronous transactions: the promise resolves
 * when the transaction has committed (visible to every process and safe from a
 * killed process); with durability "flush" we also wait for `flushed`, when
 * the OS reports the data synced to the disk.
 */
import { join } from 'node:path'
import { open, type Database, type DatabaseOptions, type RootDatabase } from 'lmdb'
import { log } from '../../log.js'
import type {
  ApiKeyRecord,
  BackfillState,
  ChunkInfo,
  DashboardSessionRecord,
  InviteRecord,
  IngestItem,
  IngestOutcome,
  NewProject,
  OrgRecord,
  PageRecord,
  ProjectRecord,
  ProjectStats,
  PurgeResult,
  Rekey,
  SessionRecord,
  SetupTokenRecord,
  SignalsRecord,
  Store,
  UserRecord,
  JoinOutcome,
  RemovedMember,
} from '../store.js'
import { StorageUnavailable } from '../store.js'
import type {
  ClickHeatmap,
  ElementRow,
  ElementsQuery,
  FrictionPage,
  FrictionQuery,
  HeatmapQuery,
  PageInsight,
  ScrollHeatmap,
  SessionListPage,
  SessionListQuery,
  SessionSignals,
  TimeRange,
} from '../insights.js'
import type { DerivedState } from './derive.js'
import { causeOf, isFatalStorageFailure, isStorageFailure, surviveFailedCommits } from './failures.js'
import { advanceCursors, foldPending, pendingCount, readPending } from './fold-log.js'
import { applyChunk, applySignals, emptyStats } from './append.js'
import { absentPastKeyLimit, MAX_KEY_PART } from './keys.js'
import { endSessionsInTxn, joinInTxn, removeUserInTxn, usersOf } from './members.js'
import { privateDir, privateFiles } from './private-files.js'
import { backfillStepInTxn, beginRebuild, pruneReplaced, purgeInTxn, rebuildSignalsStep, type SignalsStep } from './lifecycle.js'
import { derivedPages, friction, heatmap, pageInsights, sessionPage, sessionSignals, topElements } from './queries.js'

export interface LmdbOptions {
  path: string
  /** Upper bound of the memory map, bytes. */
  mapSize: number
  durability: 'commit' | 'flush'
  /** Log stored signal batches for the deriver to fold into the aggregates (derive.ts); off only to measure what they cost. Default on. */
  aggregates?: boolean
}

/**
 * Where a table keeps the msgpack record shapes its values share. The busy
 * tables hold many objects of a few shapes (session records, chunk records,
 * views, clicks, errors, aggregate buckets): with the shapes stored once in
 * the table instead of in every value, values are smaller and decode with
 * compiled readers. Measured: a signals batch decodes in 4 µs instead of 9,
 * and the store's chunk write path takes ~10% less CPU per chunk. lmdb-js
 * keeps the list consistent across processes: a writer appends a new shape
 * inside its transaction, and a reader that meets a shape it does not know
 * reloads the list. The key sorts before every array or string key of ours,
 * so no range of a project meets it. Values written before this was turned
 * on, with their shapes inline, still read back.
 */
const STRUCTURES = Symbol.for('structures')

export type Key = string | number | (string | number | Uint8Array)[]

/** The named databases of the environment. Keys are lmdb-js ordered-binary arrays so that ranges scan in order. */
export interface Tables {
  orgs: Database<OrgRecord, string>
  orgsByName: Database<string, string>
  users: Database<UserRecord, string>
  usersByEmail: Database<string, string>
  apiKeys: Database<ApiKeyRecord, string>
  apiKeysByOrg: Database<true, Key>
  setupTokens: Database<SetupTokenRecord, string>
  setupTokensByProject: Database<true, Key>
  projects: Database<ProjectRecord, string>
  projectsByKey: Database<string, string>
  projectsByOrg: Database<true, Key>
  projectStats: Database<ProjectStats, string>
  sessions: Database<SessionRecord, Key>
  chunkInfo: Database<ChunkInfo, Key>
  /** Recording bytes exactly as received. */
  chunks: Database<Buffer, Key>
  signals: Database<SignalsRecord, Key>
  /** The derived page index: [projectId, pageKey] → page. */
  pages: Database<PageRecord, Key>
  /** The index a running backfill builds, swapped in at its end. */
  pagesNext: Database<PageRecord, Key>
  backfills: Database<BackfillState, string>
  /** [createdAt, projectId, sk]: what retention walks, oldest first. */
  sessionsByTime: Database<true, Key>
  dashboardSessions: Database<DashboardSessionRecord, string>
  invites: Database<InviteRecord, string>
  /** [orgId, inviteId] */
  invitesByOrg: Database<true, Key>
  /** [projectId, startedAt, sk]: the session list, newest first by reading it backwards. */
  sessionsByStart: Database<true, Key>
  /** [writer, seq] → signals key: every batch stored for the aggregates, per ingest writer in commit order (fold-log.ts). */
  foldLog: Database<Key, Key>
  // In the aggregates environment:
  /** Everything derived from signals, by [projectId, generation, tag, …] (derive.ts). */
  derived: Database<unknown, Key>
  /** projectId → which generation of `derived` is live and which a backfill builds. */
  derivedState: Database<DerivedState, string>
  /** writer → the seq of the last of its logged batches folded into `derived` (fold-log.ts). */
  foldCursors: Database<number, string>
}

export class LmdbStore implements Store {
  readonly tables: Tables

  /**
   * Two environments: the main one (`path`) and the aggregates' (`path/aggregates`,
   * derive.ts). Each has its own write lock, so folding signals into the
   * aggregates never holds up an ingest commit; a step that writes both writes
   * the aggregates first, idempotently (see foldSignals, backfillStep).
   */
  constructor(
    private readonly root: RootDatabase,
    private readonly aggregates: RootDatabase,
    private readonly options: LmdbOptions,
  ) {
    const db = <V, K extends Key = Key>(name: string, options: DatabaseOptions = {}) => absentPastKeyLimit(root.openDB<V, K>(name, options))
    const aggregate = <V, K extends Key = Key>(name: string, options: DatabaseOptions = {}) => absentPastKeyLimit(aggregates.openDB<V, K>(name, options))
    this.tables = {
      orgs: db('orgs'),
      orgsByName: db('orgs-by-name'),
      users: db('users'),
      usersByEmail: db('users-by-email'),
      apiKeys: db('api-keys'),
      apiKeysByOrg: db('api-keys-by-org'),
      setupTokens: db('setup-tokens'),
      setupTokensByProject: db('setup-tokens-by-project'),
      projects: db('projects'),
      projectsByKey: db('projects-by-key'),
      projectsByOrg: db('projects-by-org'),
      projectStats: db('project-stats', { sharedStructuresKey: STRUCTURES }),
      sessions: db('sessions', { sharedStructuresKey: STRUCTURES }),
      chunkInfo: db('chunk-info', { sharedStructuresKey: STRUCTURES }),
      chunks: db('chunks', { encoding: 'binary' }),
      signals: db('signals', { sharedStructuresKey: STRUCTURES }),
      pages: db('pages'),
      pagesNext: db('pages-next'),
      backfills: db('backfills'),
      sessionsByTime: db('sessions-by-time'),
      dashboardSessions: db('dashboard-sessions'),
      invites: db('invites'),
      invitesByOrg: db('invites-by-org'),
      sessionsByStart: db('sessions-by-start'),
      foldLog: db('fold-log'),
      derived: aggregate('derived', { sharedStructuresKey: STRUCTURES }),
      derivedState: aggregate('derived-state'),
      foldCursors: aggregate('fold-cursors'),
    }
  }

  private async settle(write: Promise<unknown>, root = this.root): Promise<void> {
    try {
      await write
    } catch (error) {
      // A transaction that did not commit took any record shape it saved with it.
      this.forgetUnsavedShapes()
      const cause = await causeOf(error)
      throw isStorageFailure(cause) ? new StorageUnavailable(cause, isFatalStorageFailure(cause)) : cause
    }
    if (this.options.durability === 'flush') await root.flushed
  }

  /**
   * After a transaction or child transaction aborted: the record shapes it
   * saved to a table's shared list (STRUCTURES) were rolled back with it, but
   * the table's encoder still counts them as saved, and would write values
   * that point at them and that no other process, nor a later start, could
   * read. msgpackr's own flag makes the encoder reload the list from the
   * table before its next value, minting and saving such shapes again.
   */
  private forgetUnsavedShapes(): void {
    for (const table of [this.tables.sessions, this.tables.chunkInfo, this.tables.projectStats, this.tables.signals, this.tables.derived]) {
      const structures = (table as unknown as { encoder?: { structures?: { uninitialized?: boolean } } }).encoder?.structures
      if (structures) structures.uninitialized = true
    }
  }

  // ---- ingest ----

  projectIdForPublicKey(publicKey: string): string | undefined {
    return this.tables.projectsByKey.get(publicKey)
  }

  async appendBatch(items: IngestItem[]): Promise<IngestOutcome[]> {
    let outcomes: IngestOutcome[] = []
    await this.settle(
      this.root.transaction(() => {
        outcomes = this.eachAloneOnFailure(this.root, items, (some) => this.apply(some), (item, error) => {
          // The disk or the environment failed, not the item: the client keeps it and sends it again.
          if (isStorageFailure(error)) return 'unavailable'
          // Say, a key past LMDB's 1,978-byte limit.
          log.error('ingest item could not be stored; dropped', { error: String(error), kind: item.kind, projectId: item.projectId })
          return 'failed'
        })
      }),
    )
    return outcomes
  }

  private apply(items: IngestItem[]): IngestOutcome[] {
    const aggregate = this.options.aggregates !== false
    return items.map((item) => (item.kind === 'chunk' ? applyChunk(this.tables, item) : applySignals(this.tables, item, aggregate)))
  }

  /**
   * Inside a write transaction: `run` over all items in one child transaction;
   * if that throws, over each item alone in its own, and `failed` for an item
   * that throws alone, so that one bad item fails alone.
   *
   * Why child transactions (transactionSync inside a transaction; we open
   * without cache or write map, which would disable them): lmdb-js commits
   * whatever an asynchronous transaction callback put before it threw, so a
   * throw would leave half an item and its batch-mates written while every
   * one of them is told it failed.
   */
  private eachAloneOnFailure<I, R>(root: RootDatabase, items: I[], run: (items: I[]) => R[], failed: (item: I, error: unknown) => R): R[] {
    try {
      let results: R[] = []
      root.transactionSync(() => {
        results = run(items)
      })
      return results
    } catch {
      // The rare path.
      this.forgetUnsavedShapes()
      return items.map((item) => {
        try {
          let result: R | undefined
          root.transactionSync(() => {
            result = run([item])[0]
          })
          return result as R
        } catch (error) {
          this.forgetUnsavedShapes()
          return failed(item, error)
        }
      })
    }
  }

  // ---- organisations, users, credentials ----

  findOrgByName(name: string): OrgRecord | undefined {
    const id = this.tables.orgsByName.get(name)
    return id ? this.tables.orgs.get(id) : undefined
  }

  getOrg(id: string): OrgRecord | undefined {
    return this.tables.orgs.get(id)
  }

  async putOrg(org: OrgRecord): Promise<void> {
    await this.settle(
      this.root.transaction(() => {
        this.tables.orgs.put(org.id, org)
        this.tables.orgsByName.put(org.name, org.id)
      }),
    )
  }

  findUserByEmail(email: string): UserRecord | undefined {
    const id = this.tables.usersByEmail.get(email.toLowerCase())
    return id ? this.tables.users.get(id) : undefined
  }

  getUser(id: string): UserRecord | undefined {
    return this.tables.users.get(id)
  }

  async putUser(user: UserRecord): Promise<void> {
    await this.settle(
      this.root.transaction(() => {
        this.tables.users.put(user.id, user)
        this.tables.usersByEmail.put(user.email.toLowerCase(), user.id)
      }),
    )
  }

  countUsers(): number {
    return this.tables.users.getKeysCount()
  }

  async createFirstOwner(org: OrgRecord, user: UserRecord): Promise<boolean> {
    let created = false
    await this.settle(
      this.root.transaction(() => {
        if (this.tables.users.getKeysCount() > 0) return
        this.tables.orgs.put(org.id, org)
        this.tables.orgsByName.put(org.name, org.id)
        this.tables.users.put(user.id, user)
        this.tables.usersByEmail.put(user.email.toLowerCase(), user.id)
        created = true
      }),
    )
    return created
  }

  // ---- members (members.ts) ----
  listUsers(orgId: string): UserRecord[] {
    return usersOf(this.tables, orgId)
  }

  updateUser(id: string, patch: Partial<Pick<UserRecord, 'passwordHash' | 'lastSignInAt'>>): Promise<UserRecord | undefined> {
    return this.update<UserRecord>(this.tables.users, id, patch)
  }

  async removeUser(id: string, now: number): Promise<RemovedMember | undefined> {
    let removed: RemovedMember | undefined
    await this.settle(this.root.transaction(() => void (removed = removeUserInTxn(this.tables, id, now))))
    return removed
  }

  async endDashboardSessions(userId: string, keep?: string): Promise<number> {
    let ended = 0
    await this.settle(this.root.transaction(() => void (ended = endSessionsInTxn(this.tables, userId, keep))))
    return ended
  }

  async joinByInvite(inviteId: string, user: UserRecord, now: number): Promise<JoinOutcome> {
    let outcome: JoinOutcome = 'invite_gone'
    await this.settle(this.root.transaction(() => void (outcome = joinInTxn(this.tables, inviteId, user, now))))
    return outcome
  }

  async putDashboardSession(session: DashboardSessionRecord): Promise<void> {
    await this.settle(this.tables.dashboardSessions.put(session.id, session))
  }

  getDashboardSession(id: string): DashboardSessionRecord | undefined {
    return this.tables.dashboardSessions.get(id)
  }

  async deleteDashboardSession(id: string): Promise<void> {
    await this.settle(this.tables.dashboardSessions.remove(id))
  }

  async putInvite(invite: InviteRecord): Promise<void> {
    await this.settle(
      this.root.transaction(() => {
        this.tables.invites.put(invite.id, invite)
        this.tables.invitesByOrg.put([invite.orgId, invite.id], true)
      }),
    )
  }

  listInvites(orgId: string): InviteRecord[] {
    return this.idsUnder(this.tables.invitesByOrg, orgId)
      .map((id) => this.tables.invites.get(id))
      .filter((invite): invite is InviteRecord => invite !== undefined)
  }

  async revokeInvite(id: string, now: number): Promise<InviteRecord | undefined> {
    let after: InviteRecord | undefined
    await this.settle(
      this.root.transaction(() => {
        const invite = this.tables.invites.get(id)
        after = invite && !invite.usedAt && !invite.revokedAt ? { ...invite, revokedAt: now } : invite
        if (after && after !== invite) this.tables.invites.put(id, after)
      }),
    )
    return after
  }

  getInvite(id: string): InviteRecord | undefined {
    return this.tables.invites.get(id)
  }

  async consumeInvite(id: string, now: number): Promise<InviteRecord | undefined> {
    let consumed: InviteRecord | undefined
    await this.settle(
      this.root.transaction(() => {
        const invite = this.tables.invites.get(id)
        if (!invite || invite.usedAt || invite.revokedAt || invite.expiresAt <= now) return
        consumed = { ...invite, usedAt: now }
        this.tables.invites.put(id, consumed)
      }),
    )
    return consumed
  }

  async putApiKey(key: ApiKeyRecord): Promise<void> {
    await this.settle(
      this.root.transaction(() => {
        this.tables.apiKeys.put(key.id, key)
        this.tables.apiKeysByOrg.put([key.orgId, key.id], true)
      }),
    )
  }

  updateApiKey(id: string, patch: Partial<Pick<ApiKeyRecord, 'lastUsedAt' | 'revokedAt'>>): Promise<ApiKeyRecord | undefined> {
    return this.update<ApiKeyRecord>(this.tables.apiKeys, id, patch)
  }

  getApiKey(id: string): ApiKeyRecord | undefined {
    return this.tables.apiKeys.get(id)
  }

  listApiKeys(orgId: string): ApiKeyRecord[] {
    return this.idsUnder(this.tables.apiKeysByOrg, orgId)
      .map((id) => this.tables.apiKeys.get(id))
      .filter((k): k is ApiKeyRecord => k !== undefined)
  }

  async putSetupToken(token: SetupTokenRecord): Promise<void> {
    await this.settle(
      this.root.transaction(() => {
        this.tables.setupTokens.put(token.id, token)
        this.tables.setupTokensByProject.put([token.projectId, token.id], true)
      }),
    )
  }

  getSetupToken(id: string): SetupTokenRecord | undefined {
    return this.tables.setupTokens.get(id)
  }

  updateSetupToken(id: string, patch: Partial<Pick<SetupTokenRecord, 'revokedAt'>>): Promise<SetupTokenRecord | undefined> {
    return this.update<SetupTokenRecord>(this.tables.setupTokens, id, patch)
  }

  listSetupTokens(projectId: string): SetupTokenRecord[] {
    return this.idsUnder(this.tables.setupTokensByProject, projectId)
      .map((id) => this.tables.setupTokens.get(id))
      .filter((t): t is SetupTokenRecord => t !== undefined)
  }

  // ---- projects ----

  async createProject(input: NewProject): Promise<ProjectRecord> {
    const project: ProjectRecord = { ...input }
    await this.settle(
      this.root.transaction(() => {
        this.tables.projects.put(project.id, project)
        this.tables.projectsByKey.put(project.publicKey, project.id)
        this.tables.projectsByOrg.put([project.orgId, project.id], true)
      }),
    )
    return project
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

  updateProject(id: string, patch: Partial<Pick<ProjectRecord, 'name' | 'domain' | 'pathRules' | 'capture'>>): Promise<ProjectRecord | undefined> {
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

  listChunks(projectId: string, sk: string): ChunkInfo[] {
    return Array.from(
      this.tables.chunkInfo.getRange({ start: [projectId, sk, 0], end: [projectId, sk, Number.MAX_SAFE_INTEGER] }),
      ({ value }) => value,
    )
  }

  getChunk(projectId: string, sk: string, seq: number): Uint8Array | undefined {
    return this.tables.chunks.getBinary([projectId, sk, seq])
  }

  listPages(projectId: string): PageRecord[] {
    return Array.from(this.tables.pages.getRange({ start: [projectId], end: [projectId, MAX_KEY_PART] }), ({ value }) => value)
  }

  countPages(projectId: string): number {
    return this.tables.pages.getKeysCount({ start: [projectId], end: [projectId, MAX_KEY_PART] })
  }

  // ---- lifecycle ----

  getBackfill(projectId: string): BackfillState | undefined {
    return this.tables.backfills.get(projectId)
  }

  async startBackfill(projectId: string, rules: string[], now: number): Promise<BackfillState> {
    let state: BackfillState | undefined
    // The generation to rebuild into first (idempotent: a start killed after it reuses it).
    if (this.tables.backfills.get(projectId)?.state !== 'running') {
      await this.settle(
        this.aggregates.transaction(() => beginRebuild(this.tables, projectId)),
        this.aggregates,
      )
    }
    await this.settle(
      this.root.transaction(() => {
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
    return state!
  }

  /** One step; its aggregates side (signals, finish) commits first, then the main side with the cursor (lifecycle.ts). One stepper per project. */
  async backfillStep(projectId: string, limit: number, rekey: Rekey, now: number): Promise<BackfillState> {
    this.root.resetReadTxn()
    const current = this.tables.backfills.get(projectId)
    if (!current) throw new Error(`no backfill for ${projectId}`)
    if (current.state !== 'running') return current
    const aggregates: { signals?: SignalsStep; pruned?: boolean } = {}
    if (current.phase === 'signals' || current.phase === 'finish') {
      await this.settle(
        this.aggregates.transaction(() => {
          // The batches stored until now: a fold waiting on this transaction can only hold ones stored before, or walked.
          this.root.resetReadTxn()
          if (current.phase === 'signals') aggregates.signals = rebuildSignalsStep(this.tables, current, limit, rekey)
          else aggregates.pruned = pruneReplaced(this.tables, projectId, limit)
        }),
        this.aggregates,
      )
    }
    let state: BackfillState | undefined
    await this.settle(
      this.root.transaction(() => {
        state = this.tables.backfills.get(projectId)
        // Unchanged since the aggregates side read it (one stepper per project); else answer it as it is.
        if (JSON.stringify(state) === JSON.stringify(current)) state = backfillStepInTxn(this.tables, current, limit, rekey, now, aggregates)
      }),
    )
    return state!
  }

  listRunningBackfills(): BackfillState[] {
    return Array.from(this.tables.backfills.getRange({}), ({ value }) => value).filter((b) => b.state === 'running')
  }

  async purgeRecordings(cutoff: number, limit: number, now: number): Promise<PurgeResult> {
    let result: PurgeResult | undefined
    await this.settle(
      this.root.transaction(() => {
        result = purgeInTxn(this.tables, cutoff, limit, now)
      }),
    )
    return result!
  }

  *listSignals(projectId: string): Iterable<{ receivedAt: number; batch: SignalsRecord }> {
    for (const { key, value } of this.tables.signals.getRange({ start: [projectId], end: [projectId, MAX_KEY_PART] })) {
      yield { receivedAt: (key as [string, number])[1], batch: value }
    }
  }

  // ---- the aggregates: folded after the acknowledgement ----

  async foldSignals(limit = FOLD_LIMIT): Promise<number> {
    // Both environments as they are now: the log as the writers left it, the cursors as the last fold left them.
    this.root.resetReadTxn()
    this.aggregates.resetReadTxn()
    const pending = readPending(this.tables, limit)
    if (pending.length === 0) return 0
    let folded: boolean[] = []
    await this.settle(
      this.aggregates.transaction(() => {
        // One child transaction around the whole fold: when storage fails (disk full), it undoes every entry and the
        // cursors alike, and the deriver retries the fold later, instead of setting healthy batches aside for good.
        this.aggregates.transactionSync(() => {
          folded = this.eachAloneOnFailure(this.aggregates, pending, (some) => foldPending(this.tables, some), (entry, error) => {
            if (isStorageFailure(error)) throw error
            // Not retried forever: its raw batch stays, outside the aggregates.
            log.error('signals batch could not be folded; left out of the aggregates', { error: String(error), writer: entry.writer, seq: entry.seq })
            return true
          })
          advanceCursors(this.tables, pending.filter((_, i) => folded[i]))
        })
      }),
      this.aggregates,
    )
    return folded.filter(Boolean).length
  }

  unfoldedCount(): number {
    this.root.resetReadTxn()
    this.aggregates.resetReadTxn()
    return pendingCount(this.tables)
  }

  // ---- reading back ----

  listSessionPage(projectId: string, query: SessionListQuery): SessionListPage {
    return sessionPage(this.tables, projectId, query)
  }

  sessionSignals(projectId: string, sk: string): SessionSignals {
    return sessionSignals(this.tables, projectId, sk)
  }

  listSignalPages(projectId: string): string[] {
    return derivedPages(this.tables, projectId)
  }

  heatmap(projectId: string, query: HeatmapQuery): ClickHeatmap | ScrollHeatmap {
    return heatmap(this.tables, projectId, query)
  }

  topElements(projectId: string, query: ElementsQuery): ElementRow[] {
    return topElements(this.tables, projectId, query)
  }

  listFriction(projectId: string, query: FrictionQuery): FrictionPage {
    return friction(this.tables, projectId, query)
  }

  pageInsights(projectId: string, query: TimeRange): PageInsight[] {
    return pageInsights(this.tables, projectId, query)
  }

  async close(): Promise<void> {
    openStores.delete(this.options.path)
    await Promise.all([this.root.close(), this.aggregates.close()])
  }

  /** Merges `patch` into the record at `id` inside one write transaction. */
  private async update<V extends object>(table: Database<V, string>, id: string, patch: Partial<V>): Promise<V | undefined> {
    let updated: V | undefined
    await this.settle(
      this.root.transaction(() => {
        const current = table.get(id)
        if (!current) return
        updated = { ...current, ...patch }
        table.put(id, updated)
      }),
    )
    return updated
  }

  private idsUnder(index: Database<true, Key>, prefix: string): string[] {
    return Array.from(index.getKeys({ start: [prefix], end: [prefix, MAX_KEY_PART] }), (key) => (key as [string, string])[1])
  }
}

/** Batches one fold takes at most: past ~2,000 the per-transaction bucket writes no longer shrink (issue 6's note). */
const FOLD_LIMIT = 4_000

const openStores = new Map<string, LmdbStore>()

/**
 * How every environment of the store is opened; the benchmark's storage
 * ceiling opens its own the same way.
 *
 * `maxFreeSpaceToRetain: 0`: lmdb-js (3.5.6) keeps a writer's list of free pages in memory from one
 * transaction to the next, and when another process has committed meanwhile
 * it resets that list but not its note of which parts it has written. With
 * several processes writing one environment (the fronts) while another holds
 * read snapshots (the deriver, the read API), a front then aborted in
 * `mdb_freelist_save` ("Freelist record not found", assertion
 * `freelist_written_start >= mop_len`): 2 of 20 ten-second runs of saturating
 * /signals load (bench/read-queries.ts), 0 of 40 with this. 0 makes every
 * transaction load the free pages afresh, as LMDB itself does; alternating
 * A/B runs of the store's write path (20.3–20.9k against 20.3k chunks/s) and
 * of the cluster (/ingest 9.0–9.7k against 8.3–9.2k req/s) showed no cost.
 *
 * `overlappingSync: false`: with it, a commit syncs the disk after releasing
 * LMDB's write mutex, under a second, shared "sync" mutex, and a writer that
 * takes that mutex from a process killed holding it while its own transaction
 * is still open marks its environment fatally broken (`mdb_mutex_failed`
 * treats every mutex but the readers' as the write mutex): SIGKILL of one
 * front poisoned the other (MDB_PANIC, issue 14). Without it the sync happens
 * inside the commit, under the write mutex, whose dead owner LMDB recovers
 * from. A commit still returns only once synced, so "flush" loses nothing.
 */
export const ENVIRONMENT_OPTIONS = { maxReaders: 1024, maxFreeSpaceToRetain: 0, overlappingSync: false }

/** Opens (once per thread) the environment at `path`. */
export function openLmdbStore(options: LmdbOptions): LmdbStore {
  const existing = openStores.get(options.path)
  if (existing) return existing
  privateDir(options.path)
  surviveFailedCommits()
  const root = open({ path: options.path, mapSize: options.mapSize, maxDbs: 32, ...ENVIRONMENT_OPTIONS })
  const aggregatesPath = join(options.path, 'aggregates')
  privateDir(aggregatesPath)
  const aggregates = open({ path: aggregatesPath, mapSize: options.mapSize, maxDbs: 8, ...ENVIRONMENT_OPTIONS })
  privateFiles(options.path, aggregatesPath)
  const store = new LmdbStore(root, aggregates, options)
  openStores.set(options.path, store)
  return store
}
