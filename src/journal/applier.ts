/**
 * A node's read model follows the log: the control worker of every node
 * reads each stream from the position its store last applied and applies the
 * entries to its own LMDB. Each effect commits with its position, so a node
 * applies every entry exactly once whatever crashes: ingest entries in
 * batches of log messages, each message a group of items (appendBatch
 * records the position in its transaction, and refuses the whole batch when
 * storage fails), control entries one at a time
 * (applyJournalled records the position with the entry's first write).
 * Repeats are kept out by identity: a chunk's (project, session, seq), a
 * signals batch's entry id (minted once by the node that took it), a control
 * entry's place in its stream.
 *
 * Control mutations of this node go through `submit`: published to the log,
 * then answered with the result of applying them here, in log order, so a
 * client that wrote sees its write and every node agrees on what won.
 */
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { ApiError } from '../errors.js'
import { log } from '../log.js'
import { metrics } from '../metrics/registry.js'
import { StorageUnavailable, type IngestItem, type Store } from '../store/store.js'
import { pastCompaction, StoreClosed } from '../store/reopenable.js'
import { AppliedCheck, type AppliedCheckOptions } from './applied-check.js'
import { applyLeaderCopies } from './diverged.js'
import { decodeControl, decodeIngestMessage, type ControlEntry } from './entries.js'
import { LogFull, type Log, type LogEntry } from './log.js'
import { appendControl, newControlEntry } from './control-append.js'
import { REPLICATED } from './operations.js'
import { UnsealedEntry, type LogSeal } from './seal.js'
import { controlStream, streamNames, type JournalLayout } from './streams.js'

/**
 * Log bytes applied in one store transaction at most: a backlog (or a busy
 * log) is applied in a few large commits, not one per message, and a batch
 * of groups of chunks stays a few megabytes.
 */
const APPLY_BATCH_BYTES = 4 * 1024 * 1024
/** Ingest batches of one stream committing at once: the next is decoded and written while the last one syncs. */
const INGEST_IN_FLIGHT = 4
/**
 * How often the applier checks that every stream it is behind on moves. A
 * consumer whose NATS server died can stall without an error (seen with
 * nats-server 2.9 after the servers restarted: the stream grew, the consumer
 * delivered nothing); a follower that made no progress while behind for a
 * whole period is started again from the store's position.
 */
const WATCHDOG_MS = 2_000
/** Pause before a follower that failed reads again from the store's position. */
const RESUME_PAUSE_MS = 500

interface Ticket {
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

export interface ApplierOptions {
  /** Opens and seals entries with the cluster's secret (seal.ts). */
  seal: LogSeal
  /** The bytes of chunks stay in the log (NATS_CHUNK_BYTES=log): the store keeps where they are. */
  chunkBytesInLog: boolean
  /** Pause before a failed follower resumes, ms (tests shorten it). */
  resumePauseMs?: number
  /** Watchdog period, ms; 0: none (the in-memory log cannot stall). */
  watchdogMs?: number
  /** Each chunk applied, whichever node took it: the live board's sessions in progress (src/live/board.ts). */
  onChunk?: (projectId: string, sessionKey: string) => void
  /** The background check of applied messages against the leader (applied-check.ts): its budget, or false for none. */
  check?: Pick<AppliedCheckOptions, 'periodMs' | 'readsPerPeriod' | 'bytesPerPeriod' | 'maxPending' | 'confirmMs'> | false
}

export class Applier {
  readonly node = randomUUID()
  /** Items applied since start: ingest items (several per log message) and control entries, for progress lines. */
  itemsApplied = 0
  private nextTicket = 1
  private readonly tickets = new Map<number, Ticket>()
  /** Streams' applied positions, mirrored from the store so waiting is cheap. */
  private readonly applied = new Map<string, number>()
  private readonly progress = new Set<() => void>()
  /** Per ingest stream, the control position the last batch given to the store waited for. */
  private readonly controlNeeded = new Map<string, number>()
  private stopped = false
  /** Each follower's way to end its current reader, so that the watchdog can restart it. */
  private readonly restarts = new Map<string, () => void>()
  private readonly followers: Promise<void>[] = []
  private watchdog?: NodeJS.Timeout
  private readonly control: string
  private readonly check?: AppliedCheck

  constructor(
    private readonly store: Store,
    private readonly log: Log,
    private readonly layout: JournalLayout,
    private readonly options: ApplierOptions,
  ) {
    this.control = controlStream(layout)
    if (options.check !== false) {
      this.check = new AppliedCheck({ ...options.check, store, log, control: this.control, chunkBytesInLog: options.chunkBytesInLog, open: (stream, seq, data) => this.opened('ingest', stream, { seq, data }) })
    }
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
      // Control entries one at a time, each with its effect; ingest batches pipelined.
      this.followers.push(
        stream === this.control ? this.follow(stream, (entries) => this.applyControl(entries), 1) : this.follow(stream, (entries, after) => this.applyIngest(stream, entries, after), INGEST_IN_FLIGHT),
      )
    }
    this.check?.start()
    const period = this.options.watchdogMs ?? WATCHDOG_MS
    if (period === 0) return
    let seen = new Map<string, number>()
    this.watchdog = setInterval(() => {
      void this.log
        .heads(this.streams)
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
    }, period)
    this.watchdog.unref()
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.watchdog)
    await this.check?.stop()
    // A follower waiting for the control log to catch up gives up now rather than hold stop() forever.
    for (const check of [...this.progress]) check()
    for (const restart of this.restarts.values()) restart()
    await Promise.all(this.followers)
    for (const ticket of this.tickets.values()) ticket.reject(new Error('applier stopped'))
    this.tickets.clear()
  }

  /**
   * Publishes one store mutation and resolves to its result once this node
   * has applied it, by `deadline` (epoch ms) at the latest: a change the log
   * took but this node has not applied by then (its follower stalled, or the
   * entry never opens here) is answered `internal_error` rather than waited
   * for without end.
   */
  async submit(op: string, args: unknown[], deadline: number): Promise<unknown> {
    const ticket = this.nextTicket++
    const result = new Promise((resolve, reject) => this.tickets.set(ticket, { resolve, reject }))
    const entry = newControlEntry(op, args, this.node, ticket)
    try {
      await appendControl(this.log, this.options.seal, this.layout, entry, deadline)
    } catch (error) {
      this.tickets.delete(ticket)
      log.warn('control change not taken by the log', { op, error: String(error) })
      if (error instanceof LogFull) {
        throw new ApiError('internal_error', {
          error: 'The cluster\'s log (NATS JetStream) has no room for changes: this change was not made.',
          hint: 'An operator raises the control stream\'s max_bytes (NATS_STREAM_MAX_BYTES, then npm run admin -- log-streams as the NATS operator user) or the NATS servers\' max_file_store.',
          retryAfterSeconds: 60,
        })
      }
      // The publish may have reached the log just as it failed: say so rather than claim nothing changed.
      throw new ApiError('internal_error', {
        error: 'The cluster\'s log (NATS JetStream) did not take this change in time; it may or may not have been made.',
        hint: 'Read the resource back in a few seconds, and retry if it is not there; if this persists, check the NATS servers.',
        retryAfterSeconds: 5,
      })
    }
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.tickets.delete(ticket)
        log.warn('control change taken by the log but not applied here in time', { op, seq: this.position(this.control) })
        reject(
          new ApiError('internal_error', {
            error: 'The cluster\'s log took this change, but this node did not apply it in time; it may be applied later.',
            hint: 'Read the resource back in a few seconds (through any node), and retry if it is not there; if this persists, check this node\'s log (journal follower) and the NATS servers.',
            retryAfterSeconds: 5,
          }),
        )
      }, Math.max(0, deadline - Date.now()))
    })
    try {
      return await Promise.race([result, late])
    } finally {
      clearTimeout(timer)
    }
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
    const targets = await this.log.heads(this.streams).catch(() => undefined)
    if (!targets) return false
    return this.until(() => [...targets].every(([stream, seq]) => this.position(stream) >= seq), deadline)
  }

  private until(done: () => boolean, deadline: number): Promise<boolean> {
    if (done()) return Promise.resolve(true)
    return new Promise((resolve) => {
      const check = () => {
        if (done()) finish(true)
        else if (Date.now() >= deadline || this.stopped) finish(false)
      }
      const timer = Number.isFinite(deadline) ? setTimeout(() => finish(done()), Math.max(0, deadline - Date.now())) : undefined
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
   * Reads `stream` from the first entry not yet applied and applies what has
   * arrived in batches, up to `inFlight` of them committing at once (each
   * written only where the one before it ended: the store refuses a batch
   * that does not continue its position). Any failure (the log's reader, or
   * storage while applying, which commits nothing) ends this reader; once
   * what was in flight has settled, and after a pause, the follower reads
   * again from the store's position, so an entry is never skipped and the
   * node never stops.
   */
  private async follow(stream: string, apply: (entries: LogEntry[], after: number) => Promise<void>, inFlight: number): Promise<void> {
    while (!this.stopped) {
      // An online compaction may have the store closed: wait it out rather than end the follower.
      let after = await pastCompaction(async () => this.store.journalPosition(stream))
      const reader = this.log.read(stream, after + 1, APPLY_BATCH_BYTES)
      this.restarts.set(stream, () => reader.stop())
      const pending: Promise<void>[] = []
      try {
        for await (const entries of reader) {
          if (this.stopped) break
          const applied = apply(entries, after)
          // A batch that fails ends the reader at once (the loop may be waiting for entries that never come), and is
          // handled here as well as where it is awaited: failing while another is awaited is no crash.
          applied.catch(() => reader.stop())
          pending.push(applied)
          after = entries[entries.length - 1].seq
          if (pending.length >= inFlight) await pending.shift()
        }
        await Promise.all(pending)
      } catch (error) {
        await Promise.allSettled(pending)
        if (this.stopped) return
        // The store closed for an online compaction: no failure; the follower reads again once it is open.
        if (error instanceof StoreClosed) continue
        metrics.journalFollowerFailures.inc({ stream })
        log.error('journal follower failed; resuming from the applied position', { stream, error: String(error) })
        await sleep(this.options.resumePauseMs ?? RESUME_PAUSE_MS)
      } finally {
        reader.stop()
      }
    }
  }

  private async applyIngest(stream: string, entries: LogEntry[], after: number): Promise<void> {
    const items: IngestItem[] = []
    let controlAfter = 0
    for (const entry of entries) {
      const plain = this.opened('ingest', stream, entry)
      if (!plain) continue
      decodeIngestMessage(plain).forEach((decoded, part) => {
        // Where the log holds each chunk and signals batch: read back from there, and rewritten by an erasure.
        const place = { stream, seq: entry.seq, part }
        if (decoded.item.kind === 'chunk') {
          decoded.item.journal = place
          if (this.options.chunkBytesInLog) decoded.item.bytesInLog = true
        } else if (decoded.item.kind === 'signals') decoded.item.batch.journal = place
        items.push(decoded.item)
        controlAfter = Math.max(controlAfter, decoded.after)
      })
    }
    // An item names a project, rules and pages as its publisher saw them: the control log comes first. What a batch
    // waits for is at least what the batch before it waited for: messages from different publishers (or one an
    // erasure rewrote) can name an older control position than the one before them, and a batch that waited less
    // would be written first, where the store refuses it (BatchOutOfOrder) and the follower starts over.
    const needed = Math.max(this.controlNeeded.get(stream) ?? 0, controlAfter)
    this.controlNeeded.set(stream, needed)
    if (!(await this.until(() => this.position(this.control) >= needed, Number.POSITIVE_INFINITY))) return
    const last = entries[entries.length - 1].seq
    const started = performance.now()
    const outcomes = await this.store.appendBatch(items, { stream, seq: last, after })
    // Storage failing for an item would leave it out of this node for good: the store refuses the whole batch then.
    if (outcomes.includes('unavailable')) throw new StorageUnavailable(new Error(`an item of ${stream} up to ${last} could not be stored`), false)
    // The embedded mode's write families: in the cluster mode this is where ingest items reach LMDB.
    metrics.batchItems.observe(items.length)
    metrics.commitSeconds.observe((performance.now() - started) / 1000)
    this.itemsApplied += items.length
    if (this.options.onChunk) for (const item of items) if (item.kind === 'chunk') this.options.onChunk(item.projectId, item.meta.sk)
    const now = Date.now()
    for (const entry of entries) {
      if (entry.storedAt === undefined || entry.receivedAt === undefined) continue
      metrics.journalDelivery.observe(Math.max(0, entry.receivedAt - entry.storedAt) / 1000)
      metrics.journalApply.observe((now - entry.receivedAt) / 1000)
    }
    this.advanced(stream, last)
    this.check?.noteApplied(stream, entries)
    // Items met again elsewhere: where a replica held another message, the leader's is applied (diverged.ts). After
    // the position moved on: batches in flight advance it in their order, and these items need no position.
    const moved = this.store.takeMovedPlaces()
    if (moved.length) this.itemsApplied += await applyLeaderCopies(moved, { store: this.store, log: this.log, chunkBytesInLog: this.options.chunkBytesInLog, open: (at, seq, data) => this.opened('ingest', at, { seq, data }) })
  }

  /** The entry's plain bytes, or undefined for one that does not open with this cluster's secret (skipped, counted). */
  private opened(kind: 'control' | 'ingest', stream: string, entry: LogEntry): Uint8Array | undefined {
    try {
      return this.options.seal.open(kind, entry.data)
    } catch (error) {
      if (!(error instanceof UnsealedEntry)) throw error
      this.refused('unauthenticated', { stream, seq: entry.seq, why: error.message })
      return undefined
    }
  }

  /** An entry no node applies: logged and counted here, skipped the same way everywhere. */
  private refused(reason: string, details: Record<string, unknown>): void {
    metrics.journalRefused.inc({ reason })
    log.error('log entry refused; skipped', { reason, ...details })
  }

  private async applyControl(entries: LogEntry[]): Promise<void> {
    for (const logEntry of entries) {
      const { seq } = logEntry
      if (seq <= this.position(this.control)) continue
      const position = { stream: this.control, seq }
      const entry = this.controlEntry(logEntry)
      let outcome: { value?: unknown; error?: unknown }
      if (!entry) {
        await this.store.setJournalPosition(position)
        outcome = {}
      } else if (!REPLICATED.has(entry.op) || this.store.journalEntryApplied(entry.id)) {
        // Not an operation this code replicates (a foreign entry, or one from a newer version), or a copy of one
        // applied before (a replay: a revoked key put back): never applied.
        this.refused(REPLICATED.has(entry.op) ? 'replayed' : 'unknown_operation', { op: String(entry.op).slice(0, 100), seq })
        await this.store.setJournalPosition(position)
        outcome = { error: new Error(`control entry refused: ${entry.op}`) }
      } else {
        try {
          const method = (this.store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[entry.op]
          outcome = { value: await this.store.applyJournalled(position, () => method.apply(this.store, entry.args), entry.id) }
        } catch (error) {
          // Storage failing here (a full disk) is this node's trouble, not the call's: nothing committed, apply it again.
          if (error instanceof StorageUnavailable) throw error
          // The same call fails the same way on every node: answer its client, and go on with the log.
          log.error('control log entry failed', { op: entry.op, seq, error: String(error) })
          outcome = { error }
        }
      }
      this.itemsApplied += 1
      this.advanced(this.control, seq)
      this.check?.noteApplied(this.control, [logEntry])
      if (!entry || entry.node !== this.node) continue
      const ticket = this.tickets.get(entry.ticket)
      this.tickets.delete(entry.ticket)
      if (outcome.error !== undefined) ticket?.reject(outcome.error)
      else ticket?.resolve(outcome.value)
    }
  }

  /** The control entry, or undefined (refused, counted) when it does not open or does not parse. */
  private controlEntry(logEntry: LogEntry): ControlEntry | undefined {
    const plain = this.opened('control', this.control, logEntry)
    if (!plain) return undefined
    try {
      return decodeControl(plain)
    } catch (error) {
      // Sealed with the secret yet unreadable: a node of another version wrote it. Skipped alike on every node of this one.
      this.refused('malformed', { stream: this.control, seq: logEntry.seq, why: String(error) })
      return undefined
    }
  }
}
