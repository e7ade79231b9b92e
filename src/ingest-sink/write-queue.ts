/**
 * Gathers ingest items and hands them to the writer pool in batches.
 *
 * A batch leaves as soon as the pipeline has room (at most `maxInFlight`
 * batches are being written at once); while it is full, new items wait and
 * join the next batch. Idle traffic therefore goes out one item at a time
 * with no added latency, and heavy traffic forms large batches by itself.
 *
 * The queue is bounded: past `maxQueuedItems` requests or `maxQueuedBytes`
 * body bytes (waiting or being written), `enqueue` answers `full` at once and
 * keeps nothing, so overload costs the client a retry instead of costing the
 * front unbounded memory. Every item settles with an outcome and never
 * rejects: a pool that throws (a writer thread died) answers `unavailable`.
 */
import type { Piscina } from 'piscina'
import { log } from '../log.js'
import { metrics } from '../metrics/registry.js'
import type { WriteItem, WriteOutcome, WriteResult, WriteTask } from '../supervisor/messages.js'
import { parseSignalsBody } from '../grouping/prepare-items.js'
import type { IngestSink, SinkOutcome } from './sink.js'

/** What the queue needs of a writer pool: piscina's, or the front's own thread (inThreadPool). */
export type WriterPool = Pick<Piscina, 'run' | 'destroy'>

/** A pool of no thread: tasks run on the caller's thread, bodies untouched (nothing to transfer). */
export function inThreadPool(write: (task: WriteTask) => Promise<WriteResult>): WriterPool {
  return { run: (task: WriteTask) => write(task), destroy: () => Promise.resolve() }
}


/**
 * Signals body bytes one task takes at most (one larger body goes alone):
 * parsing a batch and applying its pages run on the writing thread, so this
 * bounds how long one task holds it (a 285 KB batch of 2,000 clicks on new
 * pages costs tens of milliseconds), while ordinary batches of a few KB still
 * go dozens to a transaction. Chunks are not parsed: only maxBytes bounds them.
 */
const SIGNALS_BYTES_PER_TASK = 256 * 1024

/** A signals body this large takes several milliseconds to parse: a task holding one goes to a writer thread. */
export const BIG_SIGNALS_BYTES = 64 * 1024

/**
 * With the front writing on its own thread (WRITER_THREADS=0), the tasks that
 * carry a large signals body go to a writer thread of their own instead
 * (started at the first, one thread): parsing them would hold the front's
 * loop, and every request it answers or forwards, for tens of milliseconds
 * (a flood of 285 KB batches held a bystander's whoami 100-200 ms), while the
 * kernel interleaves a thread with it. Chunks and ordinary batches stay on the
 * front's thread, at its lower cost per request. Bodies go by copy, so the
 * front's body pool takes them back as before.
 */
export function bigSignalsAside(local: WriterPool, startThread: () => WriterPool): WriterPool & { stopThread(): Promise<void> } {
  let thread: WriterPool | undefined
  const big = (task: WriteTask) => task.items.some((item) => item.kind === 'signals-body' && item.body.byteLength >= BIG_SIGNALS_BYTES)
  return {
    run: (task: WriteTask, options?: Parameters<WriterPool['run']>[1]) => (big(task) ? (thread ??= startThread()).run(task) : local.run(task, options)),
    destroy: async () => {
      await Promise.all([local.destroy(), thread?.destroy()])
      thread = undefined
    },
    /** Ends the thread (an online compaction: it has the store open); the next large task starts another. */
    async stopThread() {
      const ending = thread
      thread = undefined
      await ending?.destroy()
    },
  }
}

interface Pending {
  item: WriteItem
  resolve: (outcome: WriteOutcome) => void
}

export interface WriteQueueOptions {
  /** Most items in one pool task. */
  maxItems: number
  /** Most body bytes in one pool task. */
  maxBytes: number
  maxInFlight: number
  /** Most items held, waiting or being written. */
  maxQueuedItems: number
  /** Most body bytes held, waiting or being written. */
  maxQueuedBytes: number
  /** Called once when the writer reports that storage cannot recover in this process. */
  onFatal?: () => void
  /** Takes each body back once its batch is written (only with a pool that writes on this thread: a transferred body is gone). */
  recycle?: (body: Uint8Array) => void
  /**
   * Signals bodies under BIG_SIGNALS_BYTES are parsed as they are queued, with
   * a pool that writes on this thread: the work is spread over the requests
   * rather than gathered into each transaction's turn on the loop. A writer
   * thread parses its own (a parsed batch would cross by structured clone).
   */
  parseOnArrival?: boolean
}

export class WriteQueue implements IngestSink {
  private pending: Pending[] = []
  private inFlight = 0
  private scheduled = false
  /** Items written, for the shutdown wait and for tests. */
  written = 0
  /** Items and body bytes held now (waiting or being written). */
  queuedItems = 0
  queuedBytes = 0
  private fatal = false
  /** Set by hold(): no batch leaves until release(). */
  private held = false
  private idle: (() => void) | undefined

  constructor(
    private readonly pool: Pick<Piscina, 'run'>,
    private readonly options: WriteQueueOptions,
  ) {}

  get busy(): boolean {
    return this.inFlight > 0 || this.pending.length > 0
  }

  /**
   * Sends no batch until release(), and resolves once the batches in flight
   * are committed (an online compaction closes the store then). Requests go
   * on queueing under the same bounds, answered only after their commit.
   */
  hold(): Promise<void> {
    this.held = true
    return this.inFlight === 0 ? Promise.resolve() : new Promise((resolve) => (this.idle = resolve))
  }

  release(): void {
    this.held = false
    this.flush()
  }

  enqueue(item: WriteItem): Promise<SinkOutcome> {
    const size = item.body.byteLength
    if (this.fatal || this.queuedItems + 1 > this.options.maxQueuedItems || this.queuedBytes + size > this.options.maxQueuedBytes) {
      return Promise.resolve('full')
    }
    if (this.options.parseOnArrival && item.kind === 'signals-body' && !item.batch && size < BIG_SIGNALS_BYTES) {
      const parsed = parseSignalsBody(item.body, item.receivedAt)
      if ('invalid' in parsed) {
        this.options.recycle?.(item.body)
        return Promise.resolve(parsed)
      }
      item = { ...item, batch: parsed.batch }
    }
    this.queuedItems += 1
    this.queuedBytes += size
    return new Promise((resolve) => {
      this.pending.push({ item, resolve })
      if (this.pending.length >= this.options.maxItems) this.flush()
      else if (!this.scheduled) {
        // Let the requests of this event-loop turn join the batch.
        this.scheduled = true
        setImmediate(() => {
          this.scheduled = false
          this.flush()
        })
      }
    })
  }

  private flush(): void {
    while (!this.held && this.pending.length > 0 && this.inFlight < this.options.maxInFlight) {
      let bytes = 0
      let signalsBytes = 0
      let count = 0
      while (count < this.pending.length && count < this.options.maxItems) {
        const item = this.pending[count].item
        const size = item.body.byteLength
        const parsed = item.kind === 'signals-body' ? size : 0
        if (count > 0 && (bytes + size > this.options.maxBytes || (parsed > 0 && signalsBytes + parsed > SIGNALS_BYTES_PER_TASK))) break
        bytes += size
        signalsBytes += parsed
        count += 1
      }
      void this.send(this.pending.splice(0, count))
    }
  }

  private async send(batch: Pending[]): Promise<void> {
    this.inFlight += 1
    const task: WriteTask = { items: batch.map((p) => p.item) }
    const sizes = batch.map((p) => p.item.body.byteLength)
    // To a writer thread the bodies are moved, not copied; one that writes here needs neither.
    const transfer = this.options.recycle ? undefined : { transferList: batch.map((p) => p.item.body.buffer as ArrayBuffer) }
    let outcomes: WriteOutcome[]
    try {
      const result = (await this.pool.run(task, transfer)) as WriteResult
      outcomes = result.outcomes
      // Committed or refused: LMDB holds no pointer into these bodies any more.
      if (this.options.recycle) for (const p of batch) this.options.recycle(p.item.body)
      this.written += batch.length
      metrics.batchItems.observe(batch.length)
      if (result.commitMs !== undefined) metrics.commitSeconds.observe(result.commitMs / 1000)
      if (result.fatal && !this.fatal) {
        this.fatal = true
        this.options.onFatal?.()
      }
    } catch (error) {
      // The writer thread died or refused the task: nothing of the batch is known to be stored.
      log.error('writer pool failed; batch answered overloaded', { error: String(error), items: batch.length })
      outcomes = batch.map(() => 'unavailable')
    }
    this.queuedItems -= batch.length
    for (const size of sizes) this.queuedBytes -= size
    batch.forEach((p, i) => p.resolve(outcomes[i]))
    this.inFlight -= 1
    if (this.inFlight === 0 && this.idle) {
      this.idle()
      this.idle = undefined
    }
    this.flush()
  }
}
