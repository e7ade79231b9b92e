/**
 * Gathers ingest items and hands them to the writer pool in batches.
 *
 * A batch leaves as soon as the pipeline has room (at most `maxInFlight`
 * batches are being written at once); while it is full, new items wait and
 * join the next batch. Idle traffic therefore goes out one item at a time
 * with no added latency, and heavy traffic forms large batches by itself.
 */
import type { Piscina } from 'piscina'
import type { WriteItem, WriteOutcome, WriteResult, WriteTask } from '../messages.js'

interface Pending {
  item: WriteItem
  resolve: (outcome: WriteOutcome) => void
  reject: (error: unknown) => void
}

export interface WriteQueueOptions {
  maxItems: number
  maxBytes: number
  maxInFlight: number
}

export class WriteQueue {
  private pending: Pending[] = []
  private inFlight = 0
  private scheduled = false
  /** Items written, for the shutdown wait and for tests. */
  written = 0

  constructor(
    private readonly pool: Pick<Piscina, 'run'>,
    private readonly options: WriteQueueOptions,
  ) {}

  get busy(): boolean {
    return this.inFlight > 0 || this.pending.length > 0
  }

  enqueue(item: WriteItem): Promise<WriteOutcome> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject })
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
    while (this.pending.length > 0 && this.inFlight < this.options.maxInFlight) {
      let bytes = 0
      let count = 0
      while (count < this.pending.length && count < this.options.maxItems) {
        const item = this.pending[count].item
        const size = item.body.byteLength
        if (count > 0 && bytes + size > this.options.maxBytes) break
        bytes += size
        count += 1
      }
      void this.send(this.pending.splice(0, count))
    }
  }

  private async send(batch: Pending[]): Promise<void> {
    this.inFlight += 1
    const task: WriteTask = { items: batch.map((p) => p.item) }
    const transferList = batch.map((p) => p.item.body.buffer as ArrayBuffer)
    try {
      const result = (await this.pool.run(task, { transferList })) as WriteResult
      batch.forEach((p, i) => p.resolve(result.outcomes[i]))
      this.written += batch.length
    } catch (error) {
      for (const p of batch) p.reject(error)
    } finally {
      this.inFlight -= 1
      this.flush()
    }
  }
}
