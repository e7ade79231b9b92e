/**
 * Where the ingest handlers hand what they accepted: an interface with two
 * implementations beside it, the embedded mode's write queue (LMDB through
 * the writer pool, write-queue.ts) and the cluster mode's log
 * (journal-sink.ts). One shared suite (test/ingest-sink/sink.case.ts) holds
 * both to the same answers.
 */
import type { WriteItem, WriteOutcome } from '../supervisor/messages.js'

/** `full`: refused by the bound, nothing kept. */
export type SinkOutcome = WriteOutcome | 'full'

export interface IngestSink {
  /** Settles with the item's outcome once it is durable (or refused); never rejects. */
  enqueue(item: WriteItem): Promise<SinkOutcome>
  readonly busy: boolean
  readonly queuedItems: number
  readonly queuedBytes: number
}
