/**
 * The records the store keeps and the items it is given: plain data shapes,
 * shared by the interface (store.ts), the aggregates' definitions
 * (insights.ts) and every implementation.
 */
import type { CaptureSettings } from './capture-settings.js'

export type { CaptureSettings }

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
  /**
   * What the member may do (src/accounts/roles.ts): `owner` created the organisation and alone removes members and sets roles.
   * `member` is how records from before roles say admin; the oldest records have none (src/accounts/roles.ts `roleOf`).
   */
  role?: 'owner' | 'admin' | 'viewer' | 'member'
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
  /** Setup tokens they minted (older tokens record no creator, and stay until they expire). */
  setupTokensRevoked: number
}

/**
 * What writing a new credential (or project) came to, decided in the one
 * transaction that writes it: `holder_gone` when the user it belongs to was
 * removed, left the organisation or (for a session) changed password since the
 * caller checked; `quota_exceeded` when the organisation holds its quota.
 */
export type CreateOutcome = 'created' | 'holder_gone' | 'quota_exceeded'

/** Expired records the housekeeping deleted (src/accounts/housekeeping.ts). */
export interface PurgedCredentials {
  sessions: number
  invites: number
  setupTokens: number
}

export type JoinOutcome = 'joined' | 'invite_gone' | 'email_taken'

export interface OrgAndUser {
  org: OrgRecord
  user: UserRecord
}

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
  /** The user who minted it, revoked with them; absent for tokens an operator minted (npm run admin) and for older ones. */
  createdBy?: string
  digestHex: string
  createdAt: number
  expiresAt: number
  revokedAt?: number
}

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
  /** Days this project's recordings are kept, at most RETENTION_DAYS; null or absent: RETENTION_DAYS (null, not absent, clears it: JSON keeps null through the cluster's log). */
  retentionDays?: number | null
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
  /** The chunk starts with a full snapshot (the tracker cuts a chunk before each one). */
  checkpoint?: boolean
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
  /** Cluster mode: where the bytes are in the log, when this store keeps that rather than the bytes. */
  journal?: JournalPosition
  /** The chunk starts with a full snapshot: reading by time starts at such a chunk. */
  checkpoint?: true
}

export interface SessionPage {
  pageIndex: number
  url: string
  /** Page key (src/grouping/group.ts), decided when the page view landed. */
  page: string
}

/** A slice of a page listing, in a backend's own order: up to `limit` pages after the page `after` (none: from the first). */
export interface PageSlice {
  after?: string
  limit: number
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
  /** The job's stage, reported by the API: sessions re-keyed first, then signal batches, then the new page index goes live. */
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
}

/** Groups a URL under the backfill's rules. */
export type Rekey = (url: string) => PageRecord

export interface PurgeResult {
  sessionsPurged: number
  chunksDeleted: number
  bytesDeleted: number
}

export type IngestItem =
  | {
      kind: 'chunk'
      projectId: string
      receivedAt: number
      meta: ChunkMeta
      body: Uint8Array
      page?: PageRecord
      /** Cluster mode: the bytes stay in the log at this position; the store keeps the position and everything else. */
      journal?: JournalPosition
    }
  | {
      kind: 'signals'
      projectId: string
      receivedAt: number
      batch: SignalsRecord
      pages?: PageRecord[]
      /**
       * Cluster mode: the log entry's id, minted once by the node that took the batch. The batch's key, and every
       * id derived from it (friction items, cursors), come from it, so every node answers the same; a second entry
       * with the same id is a duplicate.
       */
      id?: string
    }

/**
 * `stored`: committed now; `duplicate`: that seq was already stored (idempotent
 * retry); `failed`: this item cannot be stored at all and nothing of it was,
 * while the rest of its batch was (one bad item never takes its batch-mates
 * down); `unavailable`: storage failed now, the item was not stored and can be
 * sent again.
 */
export type IngestOutcome = 'stored' | 'duplicate' | 'failed' | 'unavailable'

/** A position in the cluster mode's log: a stream and the sequence of an entry in it. */
export interface JournalPosition {
  stream: string
  seq: number
}

export interface ProjectStats {
  sessionCount: number
  chunkCount: number
  /** Chunk bytes held now: retention and the disk budget take away what they delete. */
  bytes: number
  signalBatches: number
  /**
   * Milliseconds of recording the held chunks span (each session's first to last event, at most a day each):
   * with `bytes`, what a recorded minute costs. Absent in stats written before it was counted.
   */
  recordedMs?: number
}

/** What an eviction under the disk budget deleted, in all and per project. */
export interface EvictionResult extends PurgeResult {
  byProject: Record<string, { sessions: number; bytes: number }>
}

/** What the store holds, for /metrics and the budget: every project's counters and the sizes of the storage behind them. */
export interface StorageUse {
  projects: Map<string, ProjectStats>
  /** Bytes the signal batches take in the store (LMDB: the table's pages), all projects together. */
  signalsBytes: number
  /** Bytes the aggregates take (LMDB: the aggregates environment's pages in use), all projects together. */
  aggregatesBytes: number
  /** Size of the store's files on disk (LMDB: data.mdb of both environments; they do not shrink after deletes). 0: in memory. */
  fileBytes: number
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


/**
 * One entry of an organisation's audit log (src/control/audit.ts): who did what to what, and when. Ids, emails
 * and the names of settings only, never recorded content (no event, URL, identity or page a tracker sent).
 */
export interface AuditRecord {
  /** Unique; with `at`, the entry's place in the log. */
  id: string
  orgId: string
  at: number
  /** The member who acted; absent for an unauthenticated attempt or a setup token an operator minted. */
  actorUserId?: string
  /** The member's email as it was then: the entry still says who after they are removed. */
  actorEmail?: string
  /** How they called: `dashboard`, `apiKey`, `setupToken`. */
  via: string
  action: string
  /** What the action was done to: an id (member, key, invite, project, session key). */
  target?: string
  /** What changed, when the action alone does not say: a new role, the names of changed settings. */
  detail?: string
  /** The client's address as the front saw it. */
  ip?: string
}

/** A page of an audit log, newest first: up to `limit` entries older than the entry `before` (none: from the newest). */
export interface AuditSlice {
  before?: { at: number; id: string }
  limit: number
}
