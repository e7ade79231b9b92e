/**
 * A node's read model follows the log: the control worker of every node
 * reads each stream from the position its store last applied and applies the
 * entries to its own LMDB, recording the position in the same transaction as
 * the ingest items it applies (control entries are applied one call each and
 * then recorded; each such call leaves the same state when applied twice).
 *
 * Control mutations of this node go through `submit`: published to the log,
 * then answered with the result of applying them here, in log order, so a
 * client that wrote sees its write and every node agrees on what won.
 */
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { DeliverPolicy, type JsMsg } from '@nats-io/jetstream'
import { ApiError } from '../errors.js'
import { log } from '../log.js'
import { metrics } from '../metrics/registry.js'
import { StorageUnavailable, type IngestItem, type Store } from '../store/store.js'
import type { Journal } from './connect.js'
import { decodeControl, decodeIngest, encodeControl } from './entries.js'
import { publishUntil } from './publish.js'
import { controlStream, controlSubject, streamNames, type JournalLayout } from './streams.js'

/** Ingest entries applied in one store transaction at most: a backlog is applied in a few large commits, not one per entry. */
const APPLY_BATCH = 256
/**
 * How often the applier checks that every stream it is behind on moves. A
 * consumer whose NATS server died can stall without an error (seen with
 * nats-server 2.9 after the servers restarted: the stream grew, the consumer
 * delivered nothing); a follower that made no progress while behind for a
 * whole period is started again from the store's position.
 */
const WATCHDOG_MS = 2_000

interface Ticket {
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

export class Applier {
  readonly node = randomUUID()
  private nextTicket = 1
  private readonly tickets = new Map<number, Ticket>()
  /** Streams' applied positions, mirrored from the store so waiting is cheap. */
  private readonly applied = new Map<string, number>()
  private readonly progress = new Set<() => void>()
  private stopped = false
  /** Each follower's way to end its current consumer, so that the watchdog can restart it. */
  private readonly restarts = new Map<string, () => void>()
  private watchdog?: NodeJS.Timeout
  private readonly control: string

  constructor(
    private readonly store: Store,
    private readonly journal: Journal,
    private readonly layout: JournalLayout,
    private readonly options: { chunkBytesInLog: boolean } = { chunkBytesInLog: true },
  ) {
    this.control = controlStream(layout)
  }

  get streams(): string[] {
    return streamNames(this.layout)
  }

  position(stream: string): number {
    return this.applied.get(stream) ?? this.store.journalPosition(stream)
  }

  start(): void {
    for (const stream of this.streams) {
      this.applied.set(stream, this.store.journalPosition(stream))
      void this.follow(stream, stream === this.control ? (msgs) => this.applyControl(msgs) : (msgs) => this.applyIngest(stream, msgs))
    }
    let seen = new Map<string, number>()
    this.watchdog = setInterval(() => {
      void this.lastSequences()
        .then((last) => {
          for (const [stream, seq] of last) {
            const position = this.position(stream)
            if (seq > position && seen.get(stream) === position) {
              log.warn('journal follower made no progress while behind; restarting it', { stream, position, last: seq })
              this.restarts.get(stream)?.()
            }
          }
          seen = new Map(this.streams.map((s) => [s, this.position(s)]))
        })
        .catch(() => undefined)
    }, WATCHDOG_MS)
    this.watchdog.unref()
  }

  /** Each stream's last sequence now: one request for the list, one more for any stream the list left out. */
  private async lastSequences(): Promise<Map<string, number>> {
    const last = new Map<string, number>()
    for await (const info of this.journal.jsm.streams.list()) {
      if (this.streams.includes(info.config.name)) last.set(info.config.name, info.state.last_seq)
    }
    // A listing can come back short (a server answering while it rejoins): never take a missing stream for caught up.
    for (const stream of this.streams) {
      if (!last.has(stream)) last.set(stream, (await this.journal.jsm.streams.info(stream)).state.last_seq)
    }
    return last
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.watchdog)
    for (const restart of this.restarts.values()) restart()
    for (const ticket of this.tickets.values()) ticket.reject(new Error('applier stopped'))
    this.tickets.clear()
  }

  /** Publishes one store mutation and resolves to its result once this node has applied it. */
  async submit(op: string, args: unknown[], deadline: number): Promise<unknown> {
    const ticket = this.nextTicket++
    const result = new Promise((resolve, reject) => this.tickets.set(ticket, { resolve, reject }))
    try {
      await publishUntil(this.journal.js, controlSubject(this.layout, op), encodeControl({ op, args, node: this.node, ticket }), { deadline })
    } catch (error) {
      this.tickets.delete(ticket)
      log.warn('control change not taken by the log', { op, error: String(error) })
      // The publish may have reached the log just as it failed: say so rather than claim nothing changed.
      throw new ApiError('internal_error', {
        error: 'The cluster\'s log (NATS JetStream) did not take this change in time; it may or may not have been made.',
        hint: 'Read the resource back in a few seconds, and retry if it is not there; if this persists, check the NATS servers.',
        retryAfterSeconds: 5,
      })
    }
    return result
  }

  /**
   * Resolves once this node has applied every stream up to where it stood
   * when asked: what any node acknowledged before is then readable here.
   * False when `timeoutMs` passed first, or when the log could not say
   * where it stands (its servers unreachable): callers then serve what this
   * node holds, and a rejection here would end the control worker.
   */
  async caughtUp(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs
    const targets = await this.lastSequences().catch(() => undefined)
    if (!targets) return false
    return this.until(() => [...targets].every(([stream, seq]) => this.position(stream) >= seq), deadline)
  }

  private until(done: () => boolean, deadline: number): Promise<boolean> {
    if (done()) return Promise.resolve(true)
    return new Promise((resolve) => {
      const check = () => {
        if (done()) finish(true)
        else if (Date.now() >= deadline) finish(false)
      }
      const timer = setTimeout(() => finish(done()), Math.max(0, deadline - Date.now()))
      const finish = (value: boolean) => {
        clearTimeout(timer)
        this.progress.delete(check)
        resolve(value)
      }
      this.progress.add(check)
    })
  }

  private advanced(stream: string, seq: number): void {
    this.applied.set(stream, seq)
    for (const check of [...this.progress]) check()
  }

  /**
   * Reads `stream` from the first entry not yet applied, handing what has
   * arrived to `apply` in batches; on any failure it waits and starts again
   * from the store's position, so an entry is never skipped.
   */
  private async follow(stream: string, apply: (msgs: JsMsg[]) => Promise<void>): Promise<void> {
    while (!this.stopped) {
      try {
        const from = this.store.journalPosition(stream) + 1
        const consumer = await this.journal.js.consumers.get(stream, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: from })
        const messages = await consumer.consume({ max_messages: APPLY_BATCH })
        this.restarts.set(stream, () => messages.stop())
        const pending: JsMsg[] = []
        let applying: Promise<void> | undefined
        const drain = async () => {
          while (pending.length > 0) await apply(pending.splice(0, APPLY_BATCH))
          applying = undefined
        }
        for await (const msg of messages) {
          if (this.stopped) break
          pending.push(msg)
          applying ??= drain()
          // Keep what is buffered bounded: wait for the batch being applied once a full one is queued behind it.
          if (pending.length >= APPLY_BATCH) await applying
        }
        await applying
      } catch (error) {
        if (this.stopped) return
        log.error('journal follower failed; resuming from the applied position', { stream, error: String(error) })
        await sleep(500)
      }
    }
  }

  private async applyIngest(stream: string, msgs: JsMsg[]): Promise<void> {
    const items: IngestItem[] = []
    let after = 0
    for (const msg of msgs) {
      const entry = decodeIngest(msg.data)
      // The bytes stay in the log: the store keeps where they are.
      if (entry.item.kind === 'chunk' && this.options.chunkBytesInLog) entry.item.journal = { stream, seq: msg.seq }
      items.push(entry.item)
      after = Math.max(after, entry.after)
    }
    // An item names a project, rules and pages as its publisher saw them: the control log comes first.
    await this.until(() => this.position(this.control) >= after, Number.POSITIVE_INFINITY)
    const last = msgs[msgs.length - 1].seq
    if (last <= this.position(stream)) return
    const started = performance.now()
    await this.store.appendBatch(items, { stream, seq: last })
    // The embedded mode's write families: in the cluster mode this is where ingest items reach LMDB.
    metrics.batchItems.observe(items.length)
    metrics.commitSeconds.observe((performance.now() - started) / 1000)
    this.advanced(stream, last)
  }

  private async applyControl(msgs: JsMsg[]): Promise<void> {
    for (const msg of msgs) {
      if (msg.seq <= this.position(this.control)) continue
      const entry = decodeControl(msg.data)
      let outcome: { value?: unknown; error?: unknown }
      try {
        const method = (this.store as unknown as Record<string, (...args: unknown[]) => unknown>)[entry.op]
        if (typeof method !== 'function') throw new Error(`control log entry names no store operation: ${entry.op}`)
        outcome = { value: await method.apply(this.store, entry.args) }
      } catch (error) {
        // Storage failing here (a full disk) is this node's trouble, not the call's: apply it again later.
        if (error instanceof StorageUnavailable) throw error
        // The same call fails the same way on every node: answer its client, and go on with the log.
        log.error('control log entry failed', { op: entry.op, seq: msg.seq, error: String(error) })
        outcome = { error }
      }
      await this.store.setJournalPosition({ stream: this.control, seq: msg.seq })
      this.advanced(this.control, msg.seq)
      if (entry.node !== this.node) continue
      const ticket = this.tickets.get(entry.ticket)
      this.tickets.delete(entry.ticket)
      if (outcome.error !== undefined) ticket?.reject(outcome.error)
      else ticket?.resolve(outcome.value)
    }
  }
}
