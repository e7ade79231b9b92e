/**
 * The cluster mode's stand-in for the front's write queue: the same bounded
 * `enqueue`, but an item is prepared here (signals parsed, pages grouped
 * under the rules this node has applied) and published to the log, and its
 * outcome is the PubAck: `stored` once a quorum of NATS servers holds it,
 * `duplicate` for a chunk the log already has, `unavailable` when the log
 * did not take it before the deadline, or at once when its stream is full
 * (answered 429, the client sends it again).
 */
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { WriteItem } from '../supervisor/messages.js'
import type { IngestSink, SinkOutcome } from './sink.js'
import { ItemPreparer } from '../grouping/prepare-items.js'
import { log } from '../log.js'
import type { Store } from '../store/store.js'
import { encodeIngest } from '../journal/entries.js'
import { LogFull, type Log } from '../journal/log.js'
import type { LogSeal } from '../journal/seal.js'
import { publishUntil } from '../journal/publish.js'
import { chunkMessageId, chunkSubject, controlStream, partitionOf, recordingStream, signalsStream, signalsSubject, type JournalLayout } from '../journal/streams.js'

export interface IngestSinkOptions {
  layout: JournalLayout
  /** Seals each entry with the cluster's secret (seal.ts). */
  seal: LogSeal
  deadlineMs: number
  maxQueuedItems: number
  maxQueuedBytes: number
}

/** How often a full stream is logged while ingest refuses for it, ms. */
const FULL_LOG_EVERY_MS = 60_000

export class JournalIngestSink implements IngestSink {
  queuedItems = 0
  queuedBytes = 0
  private readonly preparer: ItemPreparer
  /** When each full stream's subjects were last logged. */
  private readonly fullSince = new Map<string, number>()

  constructor(
    private readonly store: Store,
    private readonly log: Log,
    private readonly options: IngestSinkOptions,
  ) {
    this.preparer = new ItemPreparer(store)
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
    const after = this.store.journalPosition(controlStream(this.options.layout))
    const { layout } = this.options
    // One id per logical entry, minted before the first attempt: a chunk's names it wherever it is sent (a resend to
    // another node is the same entry); a signals batch's is new, and travels in the entry as the batch's identity.
    if (item.kind === 'signals') item.id = randomUUID()
    const partition = item.kind === 'chunk' ? partitionOf(item.projectId, item.meta.sk, layout.partitions) : 0
    // A stylesheet travels with the signals (rare, small, no session order to keep); its hash is its identity.
    const [subject, id, stream] =
      item.kind === 'chunk'
        ? [chunkSubject(layout, partition, item.projectId, item.meta.sk), chunkMessageId(item.projectId, item.meta.sk, item.meta.seq), recordingStream(layout, partition)]
        : [signalsSubject(layout, item.projectId), item.kind === 'style' ? `css:${item.projectId}:${item.hash}` : `sig:${item.id}`, signalsStream(layout)]
    try {
      const ack = await publishUntil(this.log, subject, this.options.seal.seal('ingest', encodeIngest({ item, after })), { id, deadline: Date.now() + this.options.deadlineMs })
      return ack.duplicate ? 'duplicate' : 'stored'
    } catch (error) {
      if (!(error instanceof LogFull)) {
        log.error('log publish failed; answered overloaded', { error: String(error), kind: item.kind })
        return 'unavailable'
      }
      // A resend of a chunk the log took before (past JetStream's duplicate window) is held already: acknowledged.
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
      fix: 'raise the stream\'s max_bytes (STORAGE_BUDGET, NATS_STREAM_MAX_BYTES; nats stream edit as the operator) or wait for RETENTION_DAYS to expire old recordings',
    })
  }
}
