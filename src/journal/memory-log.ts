/**
 * The log in memory: the same rules as JetStream's streams as the journal
 * uses them (subjects to streams, one order per stream, ids deduplicated
 * within a window, a byte limit that refuses new entries), in one process
 * and in microseconds, so that the journal's rules are tested without NATS
 * servers (test/journal/). Faults are injected
 * by hand: an acknowledgement lost after the entry landed, an append refused,
 * readers ended with an error.
 */
import { BatchQueue, LogFull, type Appended, type Log, type LogEntry, type LogReader } from './log.js'

export interface MemoryStream {
  name: string
  /** Subject patterns as JetStream writes them: `a.b` exactly, `a.>` anything under `a.`. */
  subjects: string[]
  /** Bytes of entries the stream holds at most, as `max_bytes` with discard new: past it an append is refused (LogFull). */
  maxBytes?: number
}

interface Held {
  entries: LogEntry[]
  bytes: number
  maxBytes: number
  /** Entry ids within the duplicate window, and when each was appended. */
  ids: Map<string, { seq: number; at: number }>
  readers: Set<{ queue: BatchQueue<LogEntry>; next: number }>
}

export class MemoryLog implements Log {
  /** Appends to come that store their entry but fail as if the acknowledgement was lost. */
  loseAcks = 0
  /** Appends to come that fail without storing anything. */
  refuseAppends = 0
  private readonly streams = new Map<string, Held>()
  /** Entries removed: a reader skips them, as JetStream's consumers skip deleted messages. */
  private readonly removed = new WeakSet<LogEntry>()

  constructor(
    private readonly layout: MemoryStream[],
    private readonly duplicateWindowMs = 10 * 60_000,
    private readonly now: () => number = Date.now,
  ) {
    for (const stream of layout) this.streams.set(stream.name, { entries: [], bytes: 0, maxBytes: stream.maxBytes ?? Infinity, ids: new Map(), readers: new Set() })
  }

  async append(subject: string, data: Uint8Array, options: { id: string; timeoutMs: number }): Promise<Appended> {
    if (this.refuseAppends > 0) {
      this.refuseAppends -= 1
      throw new Error('memory log: append refused (injected)')
    }
    const held = this.streams.get(this.streamOf(subject))!
    const at = this.now()
    const seen = held.ids.get(options.id)
    if (seen && at - seen.at < this.duplicateWindowMs) return { seq: seen.seq, duplicate: true }
    // JetStream answers a duplicate before it checks the stream's limits: a resend to a full stream is acknowledged.
    if (held.bytes + data.byteLength > held.maxBytes) throw new LogFull(subject, 'maximum bytes exceeded')
    const entry = { seq: held.entries.length + 1, data: Uint8Array.from(data) }
    held.entries.push(entry)
    held.bytes += data.byteLength
    held.ids.set(options.id, { seq: entry.seq, at })
    for (const reader of held.readers) this.deliver(held, reader)
    if (this.loseAcks > 0) {
      this.loseAcks -= 1
      throw new Error('memory log: acknowledgement lost (injected)')
    }
    return { seq: entry.seq, duplicate: false }
  }

  read(stream: string, from: number, maxBytes: number): LogReader {
    const held = this.held(stream)
    const queue = new BatchQueue<LogEntry>(maxBytes)
    const reader = { queue, next: from }
    held.readers.add(reader)
    this.deliver(held, reader)
    return {
      [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
      stop: () => {
        held.readers.delete(reader)
        queue.end()
      },
    }
  }

  /** Ends every reader of every stream with `error`, as a server that went away does. */
  failReaders(error = new Error('memory log: reader failed (injected)')): void {
    for (const held of this.streams.values()) {
      for (const reader of held.readers) reader.queue.end(error)
      held.readers.clear()
    }
  }

  async heads(streams: string[]): Promise<Map<string, number>> {
    return new Map(streams.map((name) => [name, this.held(name).entries.length]))
  }

  async get(stream: string, seq: number): Promise<Uint8Array | undefined> {
    const entry = this.held(stream).entries[seq - 1]
    return entry && !this.removed.has(entry) ? entry.data : undefined
  }

  getFromLeader(stream: string, seq: number): Promise<Uint8Array | undefined> {
    return this.get(stream, seq)
  }

  async remove(stream: string, seq: number): Promise<boolean> {
    const entry = this.held(stream).entries[seq - 1]
    if (!entry || this.removed.has(entry)) return false
    this.removed.add(entry)
    return true
  }

  async close(): Promise<void> {
    for (const held of this.streams.values()) for (const reader of held.readers) reader.queue.end()
  }

  private deliver(held: Held, reader: { queue: BatchQueue<LogEntry>; next: number }): void {
    while (reader.next <= held.entries.length) {
      const entry = held.entries[reader.next++ - 1]
      if (!this.removed.has(entry)) reader.queue.push(entry)
    }
  }

  private held(stream: string): Held {
    const held = this.streams.get(stream)
    if (!held) throw new Error(`memory log: no stream ${stream}`)
    return held
  }

  private streamOf(subject: string): string {
    for (const stream of this.layout) {
      if (stream.subjects.some((pattern) => (pattern.endsWith('.>') ? subject.startsWith(pattern.slice(0, -1)) : subject === pattern))) return stream.name
    }
    throw new Error(`memory log: no stream takes subject ${subject}`)
  }
}
