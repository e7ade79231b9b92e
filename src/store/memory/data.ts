/**
 * Everything an in-memory store holds, apart from the store object, so that
 * a test can "restart" a store on the same data (openMemoryStore(data)).
 */
import { DEFAULT_MAX_PAGES } from '../aggregates/pages.js'
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

export interface StoredBatch {
  /** Order of arrival: the batch's identity (friction ids derive from it). */
  id: number
  projectId: string
  receivedAt: number
  batch: SignalsRecord
}

/** A backfill and where its current phase resumes. */
export interface BackfillRun {
  state: BackfillState
  /** The last session key or stored batch the current phase did. */
  cursor?: string | StoredBatch
  /** The page index the run builds, by page key. */
  next: Map<string, PageRecord>
}

export class MemoryData {
  /** The page cap (aggregates/pages.ts). */
  constructor(readonly maxPagesPerProject = DEFAULT_MAX_PAGES) {}

  readonly orgs = new Map<string, OrgRecord>()
  readonly users = new Map<string, UserRecord>()
  readonly apiKeys = new Map<string, ApiKeyRecord>()
  readonly setupTokens = new Map<string, SetupTokenRecord>()
  readonly dashboardSessions = new Map<string, DashboardSessionRecord>()
  readonly invites = new Map<string, InviteRecord>()
  /** Every organisation's audit entries in the order they were appended. */
  readonly audit: AuditRecord[] = []
  readonly projects = new Map<string, ProjectRecord>()
  readonly projectStats = new Map<string, ProjectStats>()
  /** By project, then session key. */
  readonly sessions = new Map<string, Map<string, SessionRecord>>()
  /** By session (sessionId), then seq; `body` is gone once retention purged it. */
  readonly chunks = new Map<string, Map<number, { info: ChunkInfo; body?: Uint8Array }>>()
  /** By project, then page key. */
  readonly pages = new Map<string, Map<string, PageRecord>>()
  /** Every stored signals batch in order of arrival. */
  readonly signals: StoredBatch[] = []
  /** Stylesheet texts, gzipped, by project, then sha256 hex. */
  readonly styles = new Map<string, Map<string, Uint8Array>>()
  /** Log entry ids of the batches that came through the cluster mode's log: a repeat is a duplicate. */
  readonly signalIds = new Set<string>()
  /** As lmdb's signalBatchIds: `projectId sk batchId` of each batch stored with a client's id. */
  readonly signalBatchIds = new Set<string>()
  /** How many of `signals` the aggregates hold (a prefix: derivations apply in order of arrival). */
  applied = 0
  readonly backfills = new Map<string, BackfillRun>()
}

export const sessionId = (projectId: string, sk: string): string => JSON.stringify([projectId, sk])

/** Order of LMDB's ordered-binary keys for strings: UTF-8 bytes. Listings of both backends agree on it. */
export const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b))

export function inner<K, V>(map: Map<string, Map<K, V>>, key: string): Map<K, V> {
  let found = map.get(key)
  if (!found) map.set(key, (found = new Map()))
  return found
}
