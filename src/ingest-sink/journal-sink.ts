/**
 * The cluster mode's stand-in for the front's write queue: the same bounded
 * `enqueue`, but an item is prepared here (signals parsed, pages grouped
 * under the rules this node has applied) and published to the log in a group
 * with the items that arrive with it (group-commit.ts), and its outcome is
 * its group's PubAck: `stored` once a quorum of NATS servers holds it,
 * `duplicate` for a chunk this process had acknowledged already (the read
 * model keeps a chunk once whichever node took each copy), `unavailable` when
 * the log did not take it before the deadline, or at once when its stream is
 * full (answered 429, the client sends it again).
 */
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { WriteItem } from '../supervisor/messages.js'
import type { IngestSink, SinkOutcome } from './sink.js'
import { ItemPreparer } from '../grouping/prepare-items.js'
import { StyleReservations } from './style-reservations.js'
import { log } from '../log.js'
import type { IngestItem, Store } from '../store/store.js'
import { encodeIngest } from '../journal/entries.js'
import { DEFAULT_GROUP, GroupCommit, type GroupOptions } from '../journal/group-commit.js'
import { LogFull, type Log } from '../journal/log.js'
import type { LogSeal } from '../journal/seal.js'
import { chunkMessageId, controlStream, partitionOf, recordingGroupSubject, recordingStream, signalsGroupSubject, signalsStream, type JournalLayout } from '../journal/streams.js'

export interface IngestSinkOptions {
  layout: JournalLayout
  /** Seals each entry with the cluster's secret (seal.ts). */
  seal: LogSeal
  deadlineMs: number
  maxQueuedItems: number
  maxQueuedBytes: number
  /** How items are grouped into log messages (DEFAULT_GROUP when absent). */
  group?: GroupOptions
  /** While this node's store is closed for a compaction: resolves once it is open again (src/store/reopenable.ts). */
  whenStoreOpen?: () => Promise<void> | undefined
}

/** How often a full stream is logged while ingest refuses for it, ms. */
const FULL_LOG_EVERY_MS = 60_000
/** Chunks this process acknowledged that it still remembers, to answer a resend as a duplicate (the log no longer can). */
const RECENT_CHUNKS = 65_536

export class JournalIngestSink implements IngestSink {
  queuedItems = 0
  queuedBytes = 0
  private readonly preparer: ItemPreparer
  /** When each full stream's subjects were last logged. */
  private readonly fullSince = new Map<string, number>()
  readonly groups: GroupCommit
  /** Chunk ids acknowledged lately, oldest first; and those being published, with their outcome to come. */
  private readonly recent = new Set<string>()
  private readonly pending = new Map<string, Promise<SinkOutcome>>()
  private readonly styles: StyleReservations

  constructor(
    private readonly store: Store,
    private readonly log: Log,
    private readonly options: IngestSinkOptions,
  ) {
    this.preparer = new ItemPreparer(store)
    this.styles = new StyleReservations(store)
    this.groups = new GroupCommit(log, options.seal, options.group ?? DEFAULT_GROUP)
  }

  get busy(): boolean {
    return this.queuedItems > 0
  }

  async enqueue(raw: WriteItem): Promise<SinkOutcome> {
    const size = raw.body.byteLength
    if (this.queuedItems + 1 > this.options.maxQueuedItems || this.queuedBytes + size > this.options.maxQueuedBytes) return 'full'
    this.queuedItems += 1
    this.queuedBytes += size
    try {
      // Preparing an item reads this node's store (rules, positions): it waits out a compaction, under the same bounds.
      await this.options.whenStoreOpen?.()
      return await this.publish(raw)
    } finally {
      this.queuedItems -= 1
      this.queuedBytes -= size
    }
  }

  /**
   * An unknown public key, looked up again once this node's control worker
   * has applied the control log as far as it stands now (bounded by the
   * deadline): a project created through another node a moment ago is then
   * known here.
   */
  async lateProject(pk: string): Promise<string | undefined> {
    const deadline = Date.now() + this.options.deadlineMs
    try {
      const control = controlStream(this.options.layout)
      const last = (await this.log.heads([control])).get(control) ?? 0
      while (this.store.journalPosition(controlStream(this.options.layout)) < last && Date.now() < deadline) await sleep(10)
    } catch (error) {
      log.warn('could not read the control log position; answering from what this node has', { error: String(error) })
    }
    return this.store.projectIdForPublicKey(pk)
  }

  private async publish(raw: WriteItem): Promise<SinkOutcome> {
    const item = this.preparer.prepare(raw)
    if ('invalid' in item) return item
    if (item.kind === 'style') return this.publishStyle(item)
    if (item.kind !== 'chunk') {
      // A signals batch's id is new, and travels in the entry as the batch's identity.
      item.id = randomUUID()
      return this.append(item, signalsStream(this.options.layout), signalsGroupSubject(this.options.layout))
    }
    // A chunk's identity is its (project, session, seq), wherever it is sent: a resend of one this process took is
    // answered as a duplicate without a second copy in the log; another node's copy the read model drops.
    const id = chunkMessageId(item.projectId, item.meta.sk, item.meta.seq)
    if (this.recent.has(id)) return 'duplicate'
    const first = this.pending.get(id)
    if (first) return (await first) === 'stored' ? 'duplicate' : first
    const partition = partitionOf(item.projectId, item.meta.sk, this.options.layout.partitions)
    const outcome = this.append(item, recordingStream(this.options.layout, partition), recordingGroupSubject(this.options.layout, partition))
    this.pending.set(id, outcome)
    try {
      const settled = await outcome
      if (settled === 'stored' || settled === 'duplicate') this.remember(id)
      return settled
    } finally {
      this.pending.delete(id)
    }
  }

  /** A stylesheet's identity is its hash, checked against its body: one held already is a duplicate; a new one reserves quota first. */
  private async publishStyle(item: Extract<IngestItem, { kind: 'style' }>): Promise<SinkOutcome> {
    if (this.store.getStyle(item.projectId, item.hash)) return 'duplicate'
    if (this.styles.reserve(item.projectId, item.hash, item.bytes ?? item.body.byteLength)) return 'over_quota'
    item.acknowledged = true
    const outcome = await this.append(item, signalsStream(this.options.layout), signalsGroupSubject(this.options.layout))
    if (outcome !== 'stored') this.styles.release(item.projectId, item.hash)
    return outcome
  }

  private remember(id: string): void {
    this.recent.add(id)
    if (this.recent.size > RECENT_CHUNKS) this.recent.delete(this.recent.values().next().value!)
  }

  private async append(item: IngestItem, stream: string, subject: string): Promise<SinkOutcome> {
    // The control log position this node had applied when it prepared the item: every node applies it after that.
    const after = this.store.journalPosition(controlStream(this.options.layout))
    try {
      await this.groups.add(stream, subject, encodeIngest({ item, after }), Date.now() + this.options.deadlineMs)
      return 'stored'
    } catch (error) {
      if (!(error instanceof LogFull)) {
        log.error('log publish failed; answered overloaded', { error: String(error), kind: item.kind })
        return 'unavailable'
      }
      // A resend of a chunk the log took before is held already: acknowledged.
      if (item.kind === 'chunk' && this.store.listChunks(item.projectId, item.meta.sk).some((c) => c.seq === item.meta.seq)) return 'duplicate'
      this.fullLogged(stream, error)
      return 'unavailable'
    }
  }

  /** One line per stream and FULL_LOG_EVERY_MS while it is full, not one per refused request. */
  private fullLogged(stream: string, error: LogFull): void {
    const now = Date.now()
    if (now - (this.fullSince.get(stream) ?? 0) < FULL_LOG_EVERY_MS) return
    this.fullSince.set(stream, now)
    log.error('the log has no room: ingest answered 429 overloaded until it has', {
      stream,
      error: error.message,
      fix: 'raise the stream\'s max_bytes (STORAGE_BUDGET, NATS_STREAM_MAX_BYTES, then npm run admin -- log-streams as the NATS operator user) or wait for RETENTION_DAYS to expire old recordings',
    })
  }
}
