/**
 * The storage interface. Routes, workers and tools see only this; LMDB details
 * stay in src/store/lmdb/. A second backend (for multi-machine deployments)
 * implements the same interface in a folder beside it and passes the shared
 * suite in test/store/store.case.ts.
 */
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
} from './insights.js'
import type {
  ApiKeyRecord,
  BackfillState,
  ChunkInfo,
  DashboardSessionRecord,
  IngestItem,
  IngestOutcome,
  InviteRecord,
  JoinOutcome,
  NewProject,
  OrgRecord,
  PageRecord,
  ProjectRecord,
  ProjectStats,
  PurgeResult,
  Rekey,
  RemovedMember,
  SessionRecord,
  SetupTokenRecord,
  SignalsRecord,
  UserRecord,
} from './records.js'

export type * from './records.js'

export interface Store {
  // ---- ingest (hot path) ----
  /** Synchronous: a memory-mapped read, microseconds. */
  projectIdForPublicKey(publicKey: string): string | undefined
  /** Appends every item in one transaction; resolves once committed (and synced, with durability "flush"). */
  appendBatch(items: IngestItem[]): Promise<IngestOutcome[]>

  // ---- organisations, users, credentials ----
  findOrgByName(name: string): OrgRecord | undefined
  getOrg(id: string): OrgRecord | undefined
  putOrg(org: OrgRecord): Promise<void>
  findUserByEmail(email: string): UserRecord | undefined
  getUser(id: string): UserRecord | undefined
  putUser(user: UserRecord): Promise<void>
  countUsers(): number
  /** First run: creates the organisation and its owner only if no user exists yet (atomic). */
  createFirstOwner(org: OrgRecord, user: UserRecord): Promise<boolean>
  /** The organisation's users, oldest first. */
  listUsers(orgId: string): UserRecord[]
  updateUser(id: string, patch: Partial<Pick<UserRecord, 'passwordHash' | 'lastSignInAt'>>): Promise<UserRecord | undefined>
  /**
   * One transaction: deletes the user, ends their dashboard sessions, revokes the
   * API keys they hold and their unused invite links. Undefined when there is no such user.
   */
  removeUser(id: string, now: number): Promise<RemovedMember | undefined>
  /** Ends every dashboard session of the user but `keep`; resolves to how many. */
  endDashboardSessions(userId: string, keep?: string): Promise<number>
  /**
   * Accepting an invite, atomically: consumes the invite if it is live, then
   * creates the user unless the email is taken (the invite stays consumed:
   * each link answers whether an email exists at most once).
   */
  joinByInvite(inviteId: string, user: UserRecord, now: number): Promise<JoinOutcome>
  putDashboardSession(session: DashboardSessionRecord): Promise<void>
  getDashboardSession(id: string): DashboardSessionRecord | undefined
  deleteDashboardSession(id: string): Promise<void>
  putInvite(invite: InviteRecord): Promise<void>
  getInvite(id: string): InviteRecord | undefined
  /** Marks the invite used if it is unused, unrevoked and unexpired; resolves to it, or undefined (atomic: a link works once). */
  consumeInvite(id: string, now: number): Promise<InviteRecord | undefined>
  /** Every invite the organisation created, used, revoked and expired ones included. */
  listInvites(orgId: string): InviteRecord[]
  /** Revokes the invite if it is still unused (atomic with consumeInvite); resolves to the record as it now is, or undefined when there is none. */
  revokeInvite(id: string, now: number): Promise<InviteRecord | undefined>
  putApiKey(key: ApiKeyRecord): Promise<void>
  /** Read-modify-write in one transaction, so a concurrent revoke is never overwritten. Resolves to the new record. */
  updateApiKey(id: string, patch: Partial<Pick<ApiKeyRecord, 'lastUsedAt' | 'revokedAt'>>): Promise<ApiKeyRecord | undefined>
  getApiKey(id: string): ApiKeyRecord | undefined
  listApiKeys(orgId: string): ApiKeyRecord[]
  putSetupToken(token: SetupTokenRecord): Promise<void>
  getSetupToken(id: string): SetupTokenRecord | undefined
  updateSetupToken(id: string, patch: Partial<Pick<SetupTokenRecord, 'revokedAt'>>): Promise<SetupTokenRecord | undefined>
  listSetupTokens(projectId: string): SetupTokenRecord[]

  // ---- projects ----
  createProject(project: NewProject): Promise<ProjectRecord>
  getProject(id: string): ProjectRecord | undefined
  listProjects(orgId: string): ProjectRecord[]
  updateProject(id: string, patch: Partial<Pick<ProjectRecord, 'name' | 'domain' | 'pathRules'>>): Promise<ProjectRecord | undefined>
  projectStats(projectId: string): ProjectStats

  // ---- recordings ----
  getSession(projectId: string, sk: string): SessionRecord | undefined
  listSessions(projectId: string): Iterable<SessionRecord>
  listChunks(projectId: string, sk: string): ChunkInfo[]
  getChunk(projectId: string, sk: string, seq: number): Uint8Array | undefined
  listPages(projectId: string): PageRecord[]
  countPages(projectId: string): number

  // ---- lifecycle: backfill and retention ----
  getBackfill(projectId: string): BackfillState | undefined
  /** Starts a backfill, or answers the one already running. */
  startBackfill(projectId: string, rules: string[], now: number): Promise<BackfillState>
  /** Runs one bounded step in one transaction (state and cursor included, so a killed process resumes exactly). */
  backfillStep(projectId: string, limit: number, rekey: Rekey, now: number): Promise<BackfillState>
  listRunningBackfills(): BackfillState[]
  /** Deletes recording bytes of sessions inactive since before `cutoff`; metadata and signals stay. */
  purgeRecordings(cutoff: number, limit: number, now: number): Promise<PurgeResult>
  listSignals(projectId: string): Iterable<{ receivedAt: number; batch: SignalsRecord }>

  // ---- the aggregates, folded in after the acknowledgement ----
  /**
   * Folds up to `limit` of the oldest stored batches not yet in the
   * aggregates into them, in one transaction; answers how many (0: none was
   * pending). The fold thread calls it in a loop; readers call it first, so that
   * what a client sent is in what it reads.
   */
  foldSignals(limit?: number): Promise<number>
  /** How many stored batches are still to fold (the fold thread's lag). */
  unfoldedCount(): number

  // ---- reading back: sessions and the aggregates (src/store/insights.ts) ----
  /** Sessions newest first (by start), filtered, one page per call. */
  listSessionPage(projectId: string, query: SessionListQuery): SessionListPage
  sessionSignals(projectId: string, sk: string): SessionSignals
  /** Keys of every page signals landed on, under the rules of the live aggregates. */
  listSignalPages(projectId: string): string[]
  heatmap(projectId: string, query: HeatmapQuery): ClickHeatmap | ScrollHeatmap
  topElements(projectId: string, query: ElementsQuery): ElementRow[]
  listFriction(projectId: string, query: FrictionQuery): FrictionPage
  pageInsights(projectId: string, query: TimeRange): PageInsight[]

  close(): Promise<void>
}

/**
 * A write that did not commit because storage failed (disk full, I/O error,
 * an environment that had a fatal error), as opposed to a bad request.
 * `fatal`: this process cannot write again until it restarts.
 */
export class StorageUnavailable extends Error {
  constructor(readonly cause: unknown, readonly fatal: boolean) {
    super(`storage unavailable: ${String(cause)}`)
  }
}
