/**
 * The storage interface. Routes, workers and tools see only this; LMDB details
 * stay in src/store/lmdb/. A second backend (for multi-machine deployments)
 * implements the same interface in a folder beside it and passes the shared
 * suite in test/store/store.case.ts.
 */
import type { CaptureSettings } from './capture-settings.js'
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

export interface OrgRecord {
  id: string
  name: string
  createdAt: number
}

export interface UserRecord {
  id: string
  orgId: string
  email: string
  createdAt: number
  /** scrypt hash of the dashboard password (src/control/passwords.ts); absent for users who only hold API keys. */
  passwordHash?: string
  /** `owner`: created the organisation; only an owner removes members. Older records have none (src/accounts/credentials.ts `ownerOf`). */
  role?: 'owner' | 'member'
  /** The user whose invite link this user joined by. */
  invitedBy?: string
  lastSignInAt?: number
}

/** What removing a member undid, in the one transaction that removed them. */
export interface RemovedMember {
  user: UserRecord
  sessionsEnded: number
  keysRevoked: number
  invitesRevoked: number
}

export type JoinOutcome = 'joined' | 'invite_gone' | 'email_taken'

/** A signed-in dashboard browser. The cookie holds the secret; only its digest is stored. */
export interface DashboardSessionRecord {
  id: string
  digestHex: string
  userId: string
  orgId: string
  /** Sent back in X-CSRF-Token on every state-changing request. */
  csrfToken: string
  createdAt: number
  expiresAt: number
}

/** A one-time link that lets someone join an organisation. */
export interface InviteRecord {
  id: string
  digestHex: string
  orgId: string
  invitedBy: string
  createdAt: number
  expiresAt: number
  usedAt?: number
  revokedAt?: number
  /** A sign-in link rather than an invite: accepting it sets this existing user's password (npm run admin -- sign-in-link). */
  forUserId?: string
}

export interface ApiKeyRecord {
  id: string
  orgId: string
  userId: string
  label?: string
  /** SHA-256 of the whole token, hex. The token itself is never stored. */
  digestHex: string
  /** Last four characters of the token, for the masked form. */
  lastFour: string
  createdAt: number
  lastUsedAt?: number
  revokedAt?: number
}

export interface SetupTokenRecord {
  id: string
  projectId: string
  digestHex: string
  createdAt: number
  expiresAt: number
  revokedAt?: number
}

export type { CaptureSettings }

export interface ProjectRecord {
  id: string
  orgId: string
  name: string
  domain: string | null
  /** `svc_pk_` + lowercase hex. Not a secret. */
  publicKey: string
  createdAt: number
  pathRules: string[]
  /** What the tracker records beyond the DOM, and which sessions; absent: the defaults (src/recordings/capture.ts). */
  capture?: CaptureSettings
}

export interface Identity {
  userId?: string
  email?: string
  name?: string
  accountId?: string
}

/** Metadata a tracker sends with each recording chunk (the X-Svc-Meta header, validated). */
export interface ChunkMeta {
  sk: string
  vid: string
  seq: number
  pageIndex?: number
  url?: string
  firstTs?: number
  lastTs?: number
  eventCount?: number
  encoding: 'gzip' | 'json'
  startedAt?: number
  viewport?: { w?: number; h?: number }
  screen?: { w?: number; h?: number; dpr?: number }
  identity?: Identity
  /** Console errors and failed requests (status 0 or >= 500) among the chunk's captured events. */
  consoleErrors?: number
  failedRequests?: number
}

export interface ChunkInfo {
  seq: number
  pageIndex: number
  url: string
  firstTs: number
  lastTs: number
  eventCount: number
  encoding: 'gzip' | 'json'
  size: number
  receivedAt: number
}

export interface SessionPage {
  pageIndex: number
  url: string
  /** Page key (src/grouping/group.ts), decided when the page view landed. */
  page: string
}

/** An entry of the derived page index: every page a project holds. */
export interface PageRecord {
  key: string
  host: string
  /** Display form, e.g. `/{tenant}/settings/:id`. */
  path: string
  firstSeenAt: number
}

export interface SessionRecord {
  projectId: string
  sk: string
  vid: string
  startedAt: number
  firstTs: number
  lastTs: number
  chunkCount: number
  bytes: number
  eventCount: number
  pages: SessionPage[]
  identity?: Identity
  viewport?: { w?: number; h?: number }
  screen?: { w?: number; h?: number; dpr?: number }
  createdAt: number
  updatedAt: number
  /** Set when retention deleted the recording; the metadata stays. */
  purgedAt?: number
  /** Summed from the chunks' meta (console and network capture). */
  consoleErrors?: number
  failedRequests?: number
}

export interface View {
  url: string
  /** Page key, set by the ingest writer from the project's rules. */
  page?: string
  startedAt: number
  title?: string
  vw?: number
  vh?: number
  docH?: number
  endedAt?: number
  activeMs?: number
  maxScrollPct?: number
  exit?: boolean
  quickBack?: boolean
}

export interface Click {
  url: string
  /** Page key, set by the ingest writer from the project's rules. */
  page?: string
  ts: number
  xRatio: number
  yDoc: number
  vw?: number
  docH?: number
  selector?: string
  label?: string
  tag?: string
  interactive?: boolean
  kind?: 'click' | 'rage' | 'dead' | 'error'
  n?: number
}

export interface ErrorEntry {
  url: string
  /** Page key, set by the ingest writer from the project's rules. */
  page?: string
  ts: number
  message: string
}

/** A signals batch after validation: only the entries that validated. */
export interface SignalsRecord {
  sk: string
  vid: string
  startedAt?: number
  /** Entries the client dropped plus entries the server dropped. */
  dropped: number
  views: View[]
  clicks: Click[]
  errors: ErrorEntry[]
}

/** A re-keying of a project's pages under its current rules (see src/grouping/backfill.ts). */
export interface BackfillState {
  projectId: string
  state: 'running' | 'done'
  phase: 'sessions' | 'signals' | 'finish' | 'done'
  /** The rules the backfill groups under (a snapshot taken at start). */
  rules: string[]
  startedAt: number
  updatedAt: number
  finishedAt?: number
  pagesBefore: number
  pagesAfter?: number
  sessionsTotal: number
  sessionsRekeyed: number
  signalBatchesRekeyed: number
  /** Where the current phase resumes (opaque to callers). */
  cursor?: unknown
}

/** Groups a URL under the backfill's rules. */
export type Rekey = (url: string) => PageRecord

export interface PurgeResult {
  sessionsPurged: number
  chunksDeleted: number
  bytesDeleted: number
  /** False when `limit` stopped the pass early: call again. */
  done: boolean
}

export type IngestItem =
  | { kind: 'chunk'; projectId: string; receivedAt: number; meta: ChunkMeta; body: Uint8Array; page?: PageRecord }
  | { kind: 'signals'; projectId: string; receivedAt: number; batch: SignalsRecord; pages?: PageRecord[] }

/**
 * `stored`: committed now; `duplicate`: that seq was already stored (idempotent
 * retry); `failed`: this item could not be written and nothing of it was, while
 * the rest of its batch was (one bad item never takes its batch-mates down).
 */
/** `failed`: the item cannot be stored at all (dropped); `unavailable`: storage failed now, the item was not stored and can be sent again. */
export type IngestOutcome = 'stored' | 'duplicate' | 'failed' | 'unavailable'

export interface ProjectStats {
  sessionCount: number
  chunkCount: number
  bytes: number
  signalBatches: number
}

export interface NewProject {
  orgId: string
  name: string
  domain: string | null
  pathRules: string[]
  publicKey: string
  id: string
  createdAt: number
}

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
  updateProject(id: string, patch: Partial<Pick<ProjectRecord, 'name' | 'domain' | 'pathRules' | 'capture'>>): Promise<ProjectRecord | undefined>
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
