/**
 * The replicated log as the journal uses it, whatever holds it: JetStream
 * streams in production (nats-log.ts), an in-memory twin in tests
 * (memory-log.ts). Both keep the rules the journal relies on, which the
 * shared suite (test/journal/log-suite.ts) checks against each: one order per
 * stream, a publish that names an id already in the stream's duplicate window
 * answers that entry instead of adding one, and a reader resumes from any
 * sequence.
 */

export interface LogEntry {
  seq: number
  data: Uint8Array
  /** When the log stored it (its servers' clock, ms) and when this reader received it (this node's clock): where a follower's lag comes from. */
  storedAt?: number
  receivedAt?: number
}

export interface Appended {
  /** The entry's sequence in its stream (the first copy's, for a duplicate). */
  seq: number
  /** The id was already in the stream: nothing was added. */
  duplicate: boolean
}

/** Entries of one stream as they arrive, in batches of those already there; ends with an error when the log fails. */
export interface LogReader extends AsyncIterable<LogEntry[]> {
  stop(): void
}

/**
 * The stream refused the entry for lack of room (its `max_bytes`, or the
 * NATS server's `max_file_store`): nothing was added, and trying again before
 * room is made changes nothing, so callers answer at once instead of retrying.
 */
export class LogFull extends Error {
  constructor(readonly subject: string, reason: string) {
    super(`the log has no room for ${subject}: ${reason}`)
  }
}

export interface Log {
  /**
   * One attempt to append `data` to the stream that takes `subject`; `id`
   * identifies the logical entry, so that a retry of an attempt whose
   * acknowledgement was lost is answered as a duplicate (publish.ts retries).
   * Rejects with LogFull when the stream has no room for it.
   */
  append(subject: string, data: Uint8Array, options: { id: string; timeoutMs: number }): Promise<Appended>
  /** Reads `stream` from sequence `from` on, in batches of about `maxBytes` (one entry, at least). */
  read(stream: string, from: number, maxBytes: number): LogReader
  /** The last sequence of each stream (0: empty). */
  heads(streams: string[]): Promise<Map<string, number>>
  /** The entry at `seq`, or undefined when the stream no longer holds it (expired, or removed). From any replica. */
  get(stream: string, seq: number): Promise<Uint8Array | undefined>
  /**
   * The same from the stream's leader: slower (one server answers), for when a replica's copy is not the entry
   * this node applied at `seq` (a replica that diverged, as Jepsen saw JetStream's do; chunk-bytes.ts).
   */
  getFromLeader(stream: string, seq: number): Promise<Uint8Array | undefined>
  /**
   * Removes the entry at `seq` and overwrites its bytes where the log keeps them (an erasure, log-scrub.ts);
   * false when the stream held no such entry (removed before, or expired).
   */
  remove(stream: string, seq: number): Promise<boolean>
  close(): Promise<void>
}

/**
 * Hands a pump's entries to one reader in batches: whatever has arrived when
 * the reader asks, up to `maxBytes` of data (one entry at least), or the next
 * one to arrive. `room()` resolves while less than two batches' bytes wait,
 * so a fast log never fills memory ahead of a slow reader.
 */
export class BatchQueue<T extends { data: Uint8Array }> implements AsyncIterable<T[]> {
  private readonly items: T[] = []
  private bytes = 0
  private failure: { error: unknown } | undefined
  private ended = false
  private wake: (() => void) | undefined
  private roomWaiters: (() => void)[] = []

  constructor(private readonly maxBytes: number) {}

  push(item: T): void {
    this.items.push(item)
    this.bytes += item.data.byteLength
    this.notify()
  }

  /** Ends the queue once its items are read; with an error, the reader then throws it. */
  end(error?: unknown): void {
    if (this.ended) return
    this.ended = true
    if (error !== undefined) this.failure = { error }
    this.notify()
    for (const waiter of this.roomWaiters.splice(0)) waiter()
  }

  room(): Promise<void> {
    if (this.ended || this.bytes < 2 * this.maxBytes) return Promise.resolve()
    return new Promise((resolve) => this.roomWaiters.push(resolve))
  }

  private notify(): void {
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T[]> {
    for (;;) {
      if (this.items.length > 0) {
        let count = 0
        let bytes = 0
        while (count < this.items.length && (count === 0 || bytes + this.items[count].data.byteLength <= this.maxBytes)) bytes += this.items[count++].data.byteLength
        const batch = this.items.splice(0, count)
        this.bytes -= bytes
        if (this.bytes < 2 * this.maxBytes) for (const waiter of this.roomWaiters.splice(0)) waiter()
        yield batch
        continue
      }
      if (this.ended) {
        if (this.failure) throw this.failure.error
        return
      }
      await new Promise<void>((resolve) => (this.wake = resolve))
    }
  }
}
