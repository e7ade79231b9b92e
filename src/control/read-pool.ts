/**
 * Reads off the control worker's event loop. The aggregate reads, the
 * session list and the fold before them (READ_METHODS) run in threads of their own (workers/read.ts), each with the
 * store open on the same LMDB files, so that however long one takes, the
 * control worker goes on answering sign-ins, whoami and writes meanwhile.
 *
 * Threads are shared fairly between organisations: each has its own queue,
 * served round robin, and an organisation with a read running takes no
 * other thread while one with none waits. One organisation's reads, however
 * many and however heavy, then delay another's by at most the one read that
 * holds the thread it gets next.
 *
 * The memory store (tests, document-only builds) cannot be opened by another
 * thread: `inlineReads` calls it where it is, in the caller's turn.
 */
import { Worker } from 'node:worker_threads'
import { ApiError, type ErrorCode } from '../errors.js'
import { log } from '../log.js'
import type { InsightStore } from '../store/insight-store.js'
import type { Config } from '../config.js'

/**
 * What runs in the pool: the reads that scan in bulk (aggregate buckets, the
 * session list and its search), each taking and answering plain data, and
 * the fold a read makes first (a batch of clicks on new pages costs tens of
 * milliseconds to fold).
 */
export const READ_METHODS = ['overview', 'heatmap', 'topElements', 'listFriction', 'pageInsights', 'listSessionPage', 'applyDerivations'] as const
export type ReadMethod = (typeof READ_METHODS)[number]
export type ReadArgs<M extends ReadMethod> = Parameters<InsightStore[M]>
export type ReadResult<M extends ReadMethod> = Awaited<ReturnType<InsightStore[M]>>

export interface Reads {
  /** `store[method](...args)` in `org`'s share of the readers. */
  run<M extends ReadMethod>(org: string, method: M, args: ReadArgs<M>): Promise<ReadResult<M>>
  close(): Promise<void>
  /** For an online compaction: reads running finish, the rest wait, and every reader ends (its environment closed with it). */
  pause(): Promise<void>
  /** Readers start again as reads come, on the environment as it is now. */
  resume(): void
}

/** A read as a handler calls it: in its organisation's share, with its turn given up while it waits. */
export type Read = <M extends ReadMethod>(method: M, ...args: ReadArgs<M>) => Promise<ReadResult<M>>

/** What the main thread sends a reader, and what it answers. */
export interface ReadRequest {
  id: number
  method: ReadMethod
  args: unknown[]
}
export interface ReadFailure {
  message: string
  code?: ErrorCode
  options?: ApiError['options']
}
export type ReadReply = { id: number; value: unknown } | { id: number; error: ReadFailure }

export type ReadThreadInit = Pick<Config, 'dataDir' | 'mapSizeBytes' | 'durability' | 'maxPagesPerProject'> & Partial<Pick<Config, 'readMaxEntries' | 'readMaxBytes'>>

/** Reads where the store is, at once: for a store no other thread can open. */
export function inlineReads(store: InsightStore): Reads {
  return {
    async run<M extends ReadMethod>(_org: string, method: M, args: ReadArgs<M>): Promise<ReadResult<M>> {
      const call = store[method] as (...a: unknown[]) => ReadResult<M> | Promise<ReadResult<M>>
      return await call.apply(store, args)
    },
    async close() {},
    async pause() {},
    resume() {},
  }
}

interface Job {
  org: string
  request: ReadRequest
  resolve(value: unknown): void
  reject(error: unknown): void
}

interface Reader {
  worker: Worker
  job?: Job
  /** Exited: never given work again (its slot gets a new reader after RESTART_DELAY_MS). */
  gone?: boolean
  /** Stopped at a read's deadline: replaced at once, as nothing failed. */
  stopped?: boolean
  /** Has opened the store (its first message): a read's deadline counts from then, not from the thread's start. */
  ready?: boolean
  deadline?: NodeJS.Timeout
}

/**
 * Organisations' queues of reads, served round robin, each given a thread
 * only when no other organisation with nothing running waits (see above).
 */
export class FairQueue<T extends { org: string }> {
  private readonly queues = new Map<string, T[]>()
  private readonly order: string[] = []
  private readonly running = new Map<string, number>()

  get waiting(): number {
    let n = 0
    for (const queue of this.queues.values()) n += queue.length
    return n
  }

  push(job: T): void {
    const queue = this.queues.get(job.org)
    if (queue) queue.push(job)
    else {
      this.queues.set(job.org, [job])
      this.order.push(job.org)
    }
  }

  /** The next job to start, counted as running until `done`; undefined when none waits. */
  take(): T | undefined {
    if (this.order.length === 0) return undefined
    const at = Math.max(0, this.order.findIndex((org) => !this.running.get(org)))
    const org = this.order.splice(at, 1)[0]
    const queue = this.queues.get(org)!
    const job = queue.shift()!
    if (queue.length) this.order.push(org)
    else this.queues.delete(org)
    this.running.set(org, (this.running.get(org) ?? 0) + 1)
    return job
  }

  done(job: T): void {
    const n = (this.running.get(job.org) ?? 1) - 1
    if (n > 0) this.running.set(job.org, n)
    else this.running.delete(job.org)
  }
}

/** A reader that died is replaced after this long; its read is answered as failed. */
const RESTART_DELAY_MS = 500

/**
 * Reads that are never cut at the deadline: a fold writes, and a thread
 * stopped inside a write transaction could leave it to LMDB's recovery. Its
 * step is bounded by its batch count instead (READ_FOLD_STEP, reading.ts).
 */
export const UNCUT: ReadonlySet<ReadMethod> = new Set(['applyDerivations'])

/** What a read past the deadline answers: the bound it passed, and what to ask instead. */
export function pastDeadline(deadlineMs: number): ApiError {
  return new ApiError('invalid_request', {
    error: `This read took more than ${deadlineMs} ms, the most one read may take; it was stopped.`,
    hint: 'Ask for a shorter period, or a page key instead of a display path that names the page on many hosts; lists page with their cursor.',
  })
}

const BOUND_NAMES = { entries: ['entries', 'READ_MAX_ENTRIES'], bytes: ['bytes of values', 'READ_MAX_BYTES'] } as const

/** What a read past its entries or bytes (src/store/lmdb/read-meter.ts) answers: the bound it passed. */
export function pastBound(bound: 'entries' | 'bytes', limit: number): ApiError {
  const [what, setting] = BOUND_NAMES[bound]
  return new ApiError('invalid_request', {
    error: `This read examined more than ${limit} ${what}, the most one read may (${setting}); it was stopped.`,
    hint: 'Ask for a shorter period or fewer pages; lists page with their cursor.',
  })
}

/**
 * Up to `threads` readers of the store at `config.dataDir`, started as work
 * comes, fed from a fair queue; `script` is the built workers/read.ts. A read
 * still running `deadlineMs` after it started is stopped with its thread
 * (another starts at once) and answered `pastDeadline`: one read holds a
 * thread, and so delays another organisation's, for that long at most,
 * whatever the method and whatever a new one forgets to bound.
 */
export function threadReads(config: ReadThreadInit, threads: number, deadlineMs: number, script = new URL('./read.js', import.meta.url)): Reads {
  const { dataDir, mapSizeBytes, durability, maxPagesPerProject, readMaxEntries, readMaxBytes } = config
  const init: ReadThreadInit = { dataDir, mapSizeBytes, durability, maxPagesPerProject, readMaxEntries, readMaxBytes }
  const queue = new FairQueue<Job>()
  const readers: Reader[] = []
  let nextId = 1
  let closing = false
  /** Set by pause(): no read is dispatched until resume(). */
  let paused = false
  let idle: (() => void) | undefined

  const dispatch = () => {
    if (paused) {
      if (readers.every((reader) => !reader.job)) idle?.()
      return
    }
    for (const reader of readers) {
      if (reader.job || reader.gone) continue
      const job = queue.take()
      if (!job) return
      reader.job = job
      reader.worker.ref()
      reader.worker.postMessage(job.request)
      if (reader.ready) startDeadline(reader)
    }
  }

  const startDeadline = (reader: Reader) => {
    if (reader.job && !UNCUT.has(reader.job.request.method)) reader.deadline = setTimeout(() => stop(reader), deadlineMs)
  }

  const stop = (reader: Reader) => {
    reader.gone = reader.stopped = true
    log.warn('read stopped at its deadline', { method: reader.job?.request.method, org: reader.job?.org, deadlineMs })
    finish(reader, (job) => job.reject(pastDeadline(deadlineMs)))
    void reader.worker.terminate()
  }

  const finish = (reader: Reader, settle: (job: Job) => void) => {
    clearTimeout(reader.deadline)
    const job = reader.job
    if (!job) return
    reader.job = undefined
    reader.worker.unref()
    queue.done(job)
    settle(job)
    dispatch()
  }

  const spawn = (slot: number) => {
    const worker = new Worker(script, { workerData: init })
    const reader: Reader = { worker }
    readers[slot] = reader
    worker.on('message', (reply: ReadReply | 'ready') => {
      if (reply === 'ready') return void ((reader.ready = true), startDeadline(reader))
      if (reader.job?.request.id !== reply.id) return
      if ('value' in reply) finish(reader, (job) => job.resolve(reply.value))
      else finish(reader, (job) => job.reject(reply.error.code ? new ApiError(reply.error.code, reply.error.options) : new Error(reply.error.message)))
    })
    worker.on('error', (error) => log.error('read thread failed', { error: String(error) }))
    worker.on('exit', (code) => {
      reader.gone = true
      finish(reader, (job) => job.reject(new Error(`the read thread exited (${code}) during ${job.request.method}`)))
      // Closing, paused, or a reader a pause already let go.
      if (closing || paused || readers[slot] !== reader) return
      if (reader.stopped) return void (spawn(slot), dispatch())
      log.error('read thread exited; restarting', { code })
      setTimeout(() => closing || (spawn(slot), dispatch()), RESTART_DELAY_MS)
    })
    // Only a reader at work keeps the process alive (dispatch refs it): the control worker ends when its server does.
    worker.unref()
  }

  return {
    run(org, method, args) {
      return new Promise((resolve, reject) => {
        queue.push({ org, request: { id: nextId++, method, args }, resolve: resolve as (value: unknown) => void, reject })
        // Readers start when there is work for them: most workers (and most of the test suite's) never read an aggregate.
        if (!paused && readers.length < threads && readers.every((reader) => reader.job || reader.gone)) spawn(readers.length)
        dispatch()
      })
    },
    async close() {
      closing = true
      await Promise.all(readers.map((reader) => reader.worker.terminate()))
    },
    async pause() {
      paused = true
      if (readers.some((reader) => reader.job)) await new Promise<void>((resolve) => (idle = resolve))
      idle = undefined
      // A reader's environment closes as its thread ends (lmdb-js closes it at the thread's teardown).
      const ending = readers.splice(0).map((reader) => ((reader.gone = true), reader.worker.terminate()))
      await Promise.all(ending)
    },
    resume() {
      paused = false
      while (readers.length < Math.min(threads, queue.waiting)) spawn(readers.length)
      dispatch()
    },
  }
}
