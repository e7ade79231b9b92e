/**
 * The log on NATS JetStream: one stream per journal stream (streams.ts),
 * appends with a message id (JetStream's duplicate window answers a repeat
 * with the first copy's sequence), reads through an ordered consumer from any
 * sequence, and single entries by direct get from any replica.
 */
import { DeliverPolicy, JetStreamApiError, type JetStreamManager } from '@nats-io/jetstream'
import type { Journal } from './connect.js'
import { BatchQueue, LogFull, type Appended, type Log, type LogEntry, type LogReader } from './log.js'

/**
 * JetStream's refusals for lack of room (nats-server 2.9's error codes): 10077
 * "maximum bytes exceeded" from a stream at its `max_bytes` with discard new
 * (also a store write failing for a full disk), 10023 "insufficient resources"
 * from a server past its `max_file_store`, 10002 from an account past its limit.
 */
const NO_ROOM_CODES = new Set([10023, 10002])
const NO_ROOM_STORE_FAILURE = /maximum (bytes|messages)|no space left/i

function noRoom(error: unknown): boolean {
  if (!(error instanceof JetStreamApiError)) return false
  return NO_ROOM_CODES.has(error.code) || (error.code === 10077 && NO_ROOM_STORE_FAILURE.test(error.message))
}

/** Room for a message's subject and headers beyond its payload, in a pull that must deliver it whole. */
const MESSAGE_HEAD_ROOM = 64 * 1024

export interface StreamUsage {
  bytes: number
  maxBytes: number
  lastSeq: number
}

/** A connection that may remove entries (connect.ts's openEraser), opened when the first removal comes. */
export type EraserOpener = () => Promise<{ jsm: JetStreamManager; close(): Promise<void> }>

export class NatsLog implements Log {
  private eraser: ReturnType<EraserOpener> | undefined

  /** `openEraser`: where removals go; without it, the node's own connection (which the shipped `node` user may not remove with). */
  constructor(readonly journal: Journal, private readonly openEraser?: EraserOpener) {}

  async append(subject: string, data: Uint8Array, options: { id: string; timeoutMs: number }): Promise<Appended> {
    try {
      const ack = await this.journal.js.publish(subject, data, { msgID: options.id, timeout: options.timeoutMs })
      return { seq: ack.seq, duplicate: ack.duplicate }
    } catch (error) {
      if (noRoom(error)) throw new LogFull(subject, (error as Error).message)
      throw error
    }
  }

  read(stream: string, from: number, maxBytes: number): LogReader {
    const queue = new BatchQueue<LogEntry>(maxBytes)
    let stop: (() => void) | undefined
    let stopped = false
    const pump = async () => {
      const consumer = await this.journal.js.consumers.get(stream, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: from })
      // Pulled in bytes, not messages: a message is one control entry or a group of chunks up to a megabyte.
      // A pull must fit a whole message, hence at least the servers' largest payload and its headers.
      const largest = (this.journal.nc.info?.max_payload ?? 1024 * 1024) + MESSAGE_HEAD_ROOM
      const messages = await consumer.consume({ max_bytes: Math.max(maxBytes, largest) })
      stop = () => messages.stop()
      if (stopped) messages.stop()
      for await (const msg of messages) {
        queue.push({ seq: msg.seq, data: msg.data, storedAt: Number(msg.timestampNanos / 1_000_000n), receivedAt: Date.now() })
        await queue.room()
        if (stopped) break
      }
    }
    // A consumer that ends without being stopped (its server went away) ends the reader with an error: the reader resumes.
    pump().then(
      () => queue.end(stopped ? undefined : new Error(`reader of ${stream} ended`)),
      (error) => queue.end(error),
    )
    return {
      [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
      stop: () => {
        stopped = true
        stop?.()
        queue.end()
      },
    }
  }

  async heads(streams: string[]): Promise<Map<string, number>> {
    const last = new Map<string, number>()
    for await (const info of this.journal.jsm.streams.list()) {
      if (streams.includes(info.config.name)) last.set(info.config.name, info.state.last_seq)
    }
    // A listing can come back short (a server answering while it rejoins): never take a missing stream for caught up.
    for (const stream of streams) {
      if (!last.has(stream)) last.set(stream, (await this.journal.jsm.streams.info(stream)).state.last_seq)
    }
    return last
  }

  /** Bytes each of `streams` holds, its max_bytes (-1: none) and its last sequence, for /metrics. */
  async usage(streams: string[]): Promise<Map<string, StreamUsage>> {
    // Each stream's info from its leader: the cluster's stream list gathers states with a short timeout of its own, and
    // under load answered a stream that held 1 MB as holding 0 bytes.
    const infos = await Promise.all(streams.map((name) => this.journal.jsm.streams.info(name)))
    return new Map(infos.map((info) => [info.config.name, { bytes: info.state.bytes, maxBytes: info.config.max_bytes, lastSeq: info.state.last_seq }]))
  }

  async get(stream: string, seq: number): Promise<Uint8Array | undefined> {
    const message = await this.journal.jsm.direct.getMessage(stream, { seq })
    return message?.data
  }

  async getFromLeader(stream: string, seq: number): Promise<Uint8Array | undefined> {
    try {
      return (await this.journal.jsm.streams.getMessage(stream, { seq }))?.data
    } catch (error) {
      // No message at that sequence: 10037 "no message found".
      if (error instanceof JetStreamApiError && error.code === 10037) return undefined
      throw error
    }
  }

  async remove(stream: string, seq: number): Promise<boolean> {
    try {
      // erase: JetStream overwrites the message's bytes in its files with random data, not only its index entry.
      const jsm = this.openEraser ? (await (this.eraser ??= this.openEraser().catch((error: unknown) => ((this.eraser = undefined), Promise.reject(error))))).jsm : this.journal.jsm
      return await jsm.streams.deleteMessage(stream, seq, true)
    } catch (error) {
      // No message at that sequence (another node removed it first, or it expired): 10057 from nats-server 2.9, 10037 in later versions.
      if (error instanceof JetStreamApiError && (error.code === 10057 || error.code === 10037)) return false
      throw error
    }
  }

  async close(): Promise<void> {
    await (await this.eraser?.catch(() => undefined))?.close()
    await this.journal.close()
  }
}
