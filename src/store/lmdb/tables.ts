/**
 * The named databases of the two LMDB environments, the shapes of their keys
 * and values, and how they are opened. Keys are lmdb-js ordered-binary arrays
 * so that ranges scan in order.
 */
import type { Database, DatabaseOptions, RootDatabase } from 'lmdb'
import type {
  ApiKeyRecord,
  AuditRecord,
  BackfillState,
  ChunkInfo,
  DashboardSessionRecord,
  InviteRecord,
  OrgRecord,
  PageRecord,
  ProjectRecord,
  ProjectStats,
  SessionRecord,
  SetupTokenRecord,
  SignalsRecord,
  UserRecord,
} from '../records.js'
import { absentPastKeyLimit } from './keys.js'

export type Key = string | number | (string | number | Uint8Array)[]

/** A backfill as stored: its state and where its current phase resumes (a key of the table the phase walks). */
export type BackfillRecord = BackfillState & { cursor?: unknown }

/** Which generation of a project's aggregates reads use, and which a running backfill builds. */
export interface DerivedState {
  live: number
  building?: number
  /** Generations whose entries are still to be deleted. */
  prune?: number[]
  /** Highest generation ever used: a new one is always fresh. */
  lastGen: number
  /** The last stored batch the running backfill has counted in `building`, in key order (none yet: absent). */
  walkedThrough?: Key
}

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
  /** [projectId, sk, batchId] → true: the batches stored with a client's id, so that a resend is counted once. */
  signalBatchIds: Database<true, Key>
  /** Stylesheet texts, gzipped: [projectId, sha256 hex] → bytes (src/recordings/styles.ts). */
  styles: Database<Buffer, Key>
  /** The derived page index: [projectId, pageKey] → page. */
  pages: Database<PageRecord, Key>
  /** The index a running backfill builds, swapped in at its end. */
  pagesNext: Database<PageRecord, Key>
  backfills: Database<BackfillRecord, string>
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
  /** Cluster mode: stream → the last log sequence applied to this environment (src/journal/). */
  journalPositions: Database<number, string>
  /** [orgId, at, id] → entry: an organisation's audit log, in time order (audit.ts). */
  audit: Database<AuditRecord, Key>
  /** [at, orgId, id]: what the audit retention walks, oldest first. */
  auditByTime: Database<true, Key>
  // In the aggregates environment:
  /** Everything derived from signals, by [projectId, generation, tag, …] (derived-keys.ts). */
  derived: Database<unknown, Key>
  /** projectId → which generation of `derived` is live and which a backfill builds. */
  derivedState: Database<DerivedState, string>
  /** writer → the seq of the last of its logged batches folded into `derived` (fold-log.ts). */
  foldCursors: Database<number, string>
}

/**
 * Where a table keeps the msgpack record shapes its values share. The busy
 * tables hold many objects of a few shapes (session records, chunk records,
 * views, clicks, errors, aggregate buckets): with the shapes stored once in
 * the table instead of in every value, values are smaller and decode with
 * compiled readers (bench/store-settings.md). lmdb-js keeps the list consistent
 * across processes: a writer appends a new shape inside its transaction, and
 * a reader that meets a shape it does not know reloads the list. The key
 * sorts before every array or string key of ours, so no range of a project
 * meets it. Values written before this was turned on, with their shapes
 * inline, still read back.
 */
export const STRUCTURES = Symbol.for('structures')

/** The tables whose values share record shapes (STRUCTURES). */
export const SHAPED_TABLES = ['sessions', 'chunkInfo', 'projectStats', 'signals', 'derived'] as const satisfies readonly (keyof Tables)[]

/** Opens every table of the main environment (`root`) and of the aggregates' (`aggregates`). */
export function openTables(root: RootDatabase, aggregates: RootDatabase): Tables {
  const db = <V, K extends Key = Key>(name: string, options: DatabaseOptions = {}) => absentPastKeyLimit(root.openDB<V, K>(name, options))
  const aggregate = <V, K extends Key = Key>(name: string, options: DatabaseOptions = {}) => absentPastKeyLimit(aggregates.openDB<V, K>(name, options))
  return {
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
    signalBatchIds: db('signal-batch-ids'),
    styles: db('styles', { encoding: 'binary' }),
    pages: db('pages'),
    pagesNext: db('pages-next'),
    backfills: db('backfills'),
    sessionsByTime: db('sessions-by-time'),
    dashboardSessions: db('dashboard-sessions'),
    invites: db('invites'),
    invitesByOrg: db('invites-by-org'),
    sessionsByStart: db('sessions-by-start'),
    foldLog: db('fold-log'),
    journalPositions: db('journal-positions'),
    audit: db('audit'),
    auditByTime: db('audit-by-time'),
    derived: aggregate('derived', { sharedStructuresKey: STRUCTURES }),
    derivedState: aggregate('derived-state'),
    foldCursors: aggregate('fold-cursors'),
  }
}
