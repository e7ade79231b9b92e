/**
 * The part of the store that keeps what trackers send: recordings (chunks and
 * the sessions they make up), signal batches, the page index; and the two
 * jobs over them: re-keying a project's pages under new rules (a backfill),
 * and deleting old recordings (retention).
 */
import type {
  MovedPlace,
  BackfillState,
  ChunkInfo,
  EvictionResult,
  IngestItem,
  IngestOutcome,
  AppliedBatch,
  JournalPosition,
  PageRecord,
  PageSlice,
  PurgeResult,
  Rekey,
  SessionRecord,
  SignalsRecord,
  StorageUse,
} from './records.js'

export interface RecordingStore {
  /**
   * Appends a batch of chunks and signal batches; resolves, item by item,
   * once what was stored is durable (with durability "flush", synced to disk).
   * One item that cannot be stored never takes the others down.
   */
  appendBatch(items: IngestItem[], applied?: AppliedBatch): Promise<IngestOutcome[]>
  /**
   * Cluster mode (src/journal/): `applied` above is the log position the
   * items came from, recorded in the same write as they are, so that a node
   * applies each log entry exactly once whatever crashes. This answers the
   * last sequence of `stream` recorded (0: none).
   */
  journalPosition(stream: string): number
  /** Cluster mode: records a log position as applied, for entries applied by other calls. */
  setJournalPosition(applied: JournalPosition): Promise<void>
  /**
   * Cluster mode: the places items already held were at when appendBatch met them again at another place (an
   * erasure's rewrite, or a replica that had held another message there), each with the item's identity; drained.
   */
  takeMovedPlaces(): MovedPlace[]
  /**
   * Cluster mode: applies one control entry. `run` makes the store calls the
   * entry names; the position is recorded in the same transaction as their
   * first write (or alone when they write nothing, or fail the same way on
   * every node), never when storage failed: then the entry is applied again.
   * `entryId` is recorded with the position: a replayed copy of the entry is then known.
   */
  applyJournalled<T>(applied: JournalPosition, run: () => Promise<T>, entryId?: string): Promise<T>
  /** Cluster mode: whether the control entry with this id was applied (recorded by applyJournalled with its position). */
  journalEntryApplied(entryId: string): boolean

  getSession(projectId: string, sk: string): SessionRecord | undefined
  listSessions(projectId: string): Iterable<SessionRecord>
  /** The session's chunks in seq order, from `fromSeq` (0 unless given). */
  listChunks(projectId: string, sk: string, fromSeq?: number): ChunkInfo[]
  /** The chunk's bytes, when this store holds them (in the cluster mode they may be in the log: ChunkInfo.journal). */
  getChunk(projectId: string, sk: string, seq: number): Uint8Array | undefined
  listSignals(projectId: string): Iterable<{ receivedAt: number; batch: SignalsRecord }>
  /** A stylesheet's text, gzipped, by the SHA-256 hex of its UTF-8 bytes (src/recordings/styles.ts). */
  getStyle(projectId: string, hash: string): Uint8Array | undefined
  /** Bytes of the project's stored stylesheet texts (a scan of them: for reports, not a hot path). */
  styleBytes(projectId: string): number
  /** The page index, or a slice of it. */
  listPages(projectId: string, slice?: PageSlice): PageRecord[]
  countPages(projectId: string): number

  // ---- re-keying a project's pages (src/grouping/backfill.ts) ----
  getBackfill(projectId: string): BackfillState | undefined
  /** Starts a backfill under `rules`, or answers the one already running. */
  startBackfill(projectId: string, rules: string[], now: number): Promise<BackfillState>
  /**
   * Does the next part of the project's running backfill, at most about
   * `budget` sessions or batches, and saves where it stopped with it: a
   * process killed between calls resumes where the last call ended. One
   * caller per project at a time.
   */
  continueBackfill(projectId: string, budget: number, rekey: Rekey, now: number): Promise<BackfillState>
  listRunningBackfills(): BackfillState[]

  // ---- retention and the disk budget ----
  /**
   * Deletes the recording bytes of every session inactive since before
   * `cutoff` (or, in a project with its own `retentionDays`, since before
   * `now` minus those days when that is later), marking the session purged;
   * its metadata, chunk list and signals stay. Ingest goes on meanwhile.
   */
  purgeRecordingsBefore(cutoff: number, now: number): Promise<PurgeResult>
  /**
   * Deletes whole recordings, as purgeRecordingsBefore does, until at least
   * `bytes` chunk bytes are freed or none is left: each time the oldest
   * session (by its first chunk's arrival) of the project holding the most
   * chunk bytes, so a busy project gives up its history before a quiet one
   * loses any.
   */
  evictRecordings(bytes: number, now: number): Promise<EvictionResult>
  /** Every project's counters and the sizes of the storage (cheap: one read of the counters, no scan of the recordings). */
  storageUse(): StorageUse
}
