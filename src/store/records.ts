/**
 * The records the store keeps and the items it is given: plain data shapes,
 * shared by the interface (store.ts), the aggregates' definitions
 * (insights.ts) and every implementation.
 */
import type { CaptureSettings } from './capture-settings.js'

export type { CaptureSettings }
export type * from './account-records.js'

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
  /** A followed session's last chunk as its page went away: the visitor left the site (`site`) or went to another page (`page`). */
  leaving?: 'site' | 'page'
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
  /** The visitor left the site (or closed the tab) after it: a live follow ends there (src/recordings/follow.ts). */
  left?: true
  /** Console errors and failed requests among its events (as the tracker counted them; absent when none): a replay marks them before it reads the events. */
  consoleErrors?: number
  failedRequests?: number
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
  /** The highest chunk seq stored: with chunkCount, whether any seq below it is missing (session-losses.ts). */
  seqTop?: number
  /** What the tracker or the service said did not reach the recording, and why (session-losses.ts); at most MAX_SESSION_LOSSES. */
  losses?: RecordingLoss[]
  /** Reports past that bound, counted only. */
  lossesOmitted?: number
}

/**
 * Why part of a recording is not there. `dropped`: the tracker gave the chunk
 * up (its queue full during an outage, one event over the chunk cap, or sending
 * failed after its retries); `refused_too_large`: the service answered 413;
 * `tab_closed`: the chunks were sent as the tab closed (a report of seqs, a
 * loss only for those that never arrive); `excluded`, `before_trigger`,
 * `sampled_out`: the project's capture settings left the page view out.
 */
export type LossReason = 'dropped' | 'refused_too_large' | 'tab_closed' | 'excluded' | 'before_trigger' | 'sampled_out'

/** One report of what did not reach a recording (signals batch member `lost`, src/schemas/tracker-payloads.ts). */
export interface RecordingLoss {
  reason: LossReason
  /** The chunk's seq, when it had taken one; with `toSeq`, the range seq..toSeq. */
  seq?: number
  toSeq?: number
  pageIndex?: number
  url?: string
  fromTs?: number
  untilTs?: number
  events?: number
  bytes?: number
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
  /** The other site's origin the session came from, on its first view. */
  referrer?: string
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

/** A console error or warning the recording holds, for search. */
export interface ConsoleEntry {
  ts: number
  level?: 'error' | 'warn'
  text: string
}

/** A failed request the recording holds, for search. */
export interface RequestEntry {
  ts: number
  method: string
  url: string
  status?: number
}

/** A signals batch after validation: only the entries that validated. */
export interface SignalsRecord {
  sk: string
  vid: string
  /** The client's identity for the batch within its session: a resend with the same one is a duplicate (append.ts). */
  batchId?: string
  startedAt?: number
  /** Entries the client dropped plus entries the server dropped. */
  dropped: number
  views: View[]
  clicks: Click[]
  errors: ErrorEntry[]
  /** Absent when none, as in every batch stored before they existed. */
  console?: ConsoleEntry[]
  requests?: RequestEntry[]
  /** In transit only: applied to the session record (session-losses.ts) and not stored with the batch. */
  lost?: RecordingLoss[]
  /** Cluster mode: where the log holds the batch, for an erasure to rewrite it (log-scrub.ts). A batch held already takes the newer place. */
  journal?: JournalPosition
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
      /** Cluster mode: where the log holds the chunk (read back from there, and rewritten by an erasure). A chunk held already takes the newer place. */
      journal?: JournalPosition
      /** Cluster mode, NATS_CHUNK_BYTES=log: the bytes stay in the log; the store keeps the place and everything else. */
      bytesInLog?: true
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
  | {
      /**
       * A stylesheet's text, stored once per project under the SHA-256 of its UTF-8 bytes (src/recordings/styles.ts):
       * recordings refer to it by that hash instead of carrying it in every full snapshot. `body` is the text as stored
       * (styles.ts checkStyle), `bytes` its size as restored (what the quota counts; absent in entries written before).
       */
      kind: 'style'
      projectId: string
      receivedAt: number
      hash: string
      body: Uint8Array
      bytes?: number
      /**
       * Acknowledged before it was applied (the cluster mode's fronts reserve quota themselves): stored whatever the
       * counters say. Without it, applying past the project's quota answers `over_quota` and stores nothing.
       */
      acknowledged?: true
      /** The front checked it (styles.ts checkStyle): `body` is the stored form and `bytes` its size. Every style item is. */
      checked?: true
    }

/**
 * `stored`: committed now; `duplicate`: that seq was already stored (idempotent
 * retry); `failed`: this item cannot be stored at all and nothing of it was,
 * while the rest of its batch was (one bad item never takes its batch-mates
 * down); `unavailable`: storage failed now, the item was not stored and can be
 * sent again; `over_quota`: a stylesheet its project has no room for, checked
 * where it is stored (uploads in flight together cannot pass the bound).
 */
export type IngestOutcome = 'stored' | 'duplicate' | 'failed' | 'unavailable' | 'over_quota'

/** A position in the cluster mode's log: a stream and the sequence of an entry in it. */
export interface JournalPosition {
  stream: string
  seq: number
  /** A chunk's index in the group of items its log message carries (entries.ts); absent: the message holds it alone. */
  part?: number
}

/** A batch of one stream's entries as the applier writes it: up to `seq`, continuing from `after` when given. */
export interface AppliedBatch extends JournalPosition {
  /**
   * The position the store must stand at for the batch to be written: where the batch before it ended. Batches
   * are written while earlier ones commit; one written after an earlier one failed writes nothing.
   */
  after?: number
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
  /** Sessions whose recording is not complete now (session-losses.ts `isComplete`); absent: none counted yet. */
  incompleteSessions?: number
  /** Stylesheet texts kept for the project (sent once per project, src/recordings/styles.ts) and their stored bytes; absent: none. */
  styleCount?: number
  styleBytes?: number
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

/** An ingest item held at `from` met again at another place of the log; `item` names it (recording-records.ts itemIdentity). */
export interface MovedPlace {
  from: JournalPosition
  item: string
}
