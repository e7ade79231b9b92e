/**
 * Runs erasure requests (src/store/erasure-store.ts) in the control worker: a
 * loop of bounded steps per request, each one write transaction that saves
 * its cursor, so that ingest goes on between steps and a killed worker resumes
 * from the last committed step on start-up (resumeAll), like backfills
 * (src/grouping/backfill.ts). A request done calls `onDone`: what removes the
 * freed bytes from the files (the compaction, src/store/lmdb/compaction.ts).
 */
import { log } from '../log.js'
import type { ErasureRecord, NewErasure, Store } from '../store/store.js'
import { pastCompaction } from '../store/reopenable.js'

export interface ErasureOptions {
  /** Entries one step looks at. */
  batch: number
  pauseMs: number
  /** The erasure-id key, which requests name their session, visitor or user under (src/store/erasure-subjects.ts). */
  subjectKey?: Buffer
  now?: () => number
  onDone?: (erasure: ErasureRecord) => void
  /**
   * Run before the first step of a request and again when one resumes in its first phase, while the records still
   * say where its items are: the cluster mode removes them from the log there (src/journal/log-scrub.ts).
   */
  beforeSteps?: (erasure: ErasureRecord) => Promise<void>
  /** False while an online compaction has the store closed (src/store/reopenable.ts): the pick-up skips a look. */
  storeOpen?: () => boolean
}

export class ErasureRunner {
  private readonly running = new Map<string, Promise<ErasureRecord>>()
  private stopped = false

  constructor(
    private readonly store: Store,
    private readonly options: ErasureOptions,
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)()
  }

  /** Records the request and starts it (or answers the same request already running); answers at once. */
  async start(request: NewErasure): Promise<ErasureRecord> {
    const erasure = await this.store.startErasure(request, this.now())
    this.ensureRunning(erasure)
    return erasure
  }

  /** Resumes every erasure a previous process left unfinished. */
  resumeAll(): void {
    for (const erasure of this.store.listRunningErasures()) {
      log.info('resuming erasure', { id: erasure.id, projectId: erasure.projectId, phase: erasure.phase, sessionsExamined: erasure.sessionsExamined })
      this.ensureRunning(erasure)
    }
  }

  /**
   * Starts, every `intervalMs`, the erasures this process has not started: in the cluster mode a request reaches
   * every node as a log entry (startErasure), and each node erases its own copy. Answers a stop function.
   */
  pickUpEvery(intervalMs: number): () => void {
    const timer = setInterval(() => {
      // While a compaction has the store closed (StoreClosed), the next interval looks again.
      if (this.options.storeOpen?.() === false) return
      for (const erasure of this.store.listRunningErasures()) this.ensureRunning(erasure)
    }, intervalMs)
    timer.unref()
    return () => clearInterval(timer)
  }

  /** Resolves when the erasure (if running in this process) ends. */
  async settled(id: string): Promise<ErasureRecord | undefined> {
    return (await this.running.get(id)) ?? this.store.getErasure(id)
  }

  get runningCount(): number {
    return this.running.size
  }

  stop(): void {
    this.stopped = true
  }

  private ensureRunning(erasure: ErasureRecord): void {
    if (erasure.state === 'done' || this.running.has(erasure.id) || this.stopped) return
    const run = this.loop(erasure).finally(() => this.running.delete(erasure.id))
    this.running.set(erasure.id, run)
    run.catch((error) => log.error('erasure failed; it resumes on the next start', { id: erasure.id, error: String(error) }))
  }

  private async loop(initial: ErasureRecord): Promise<ErasureRecord> {
    let erasure = initial
    if (this.options.beforeSteps && erasure.state !== 'done' && erasure.phase === 'sessions') await this.options.beforeSteps(erasure)
    while (erasure.state !== 'done' && !this.stopped) {
      erasure = await pastCompaction(() => this.store.continueErasure(erasure.id, this.options.batch, this.now(), this.options.subjectKey))
      if (this.options.pauseMs > 0) await new Promise((r) => setTimeout(r, this.options.pauseMs))
      else await new Promise((r) => setImmediate(r))
    }
    if (erasure.state === 'done') {
      // Ids and counts only: the log never holds what was erased.
      log.info('erasure done', { id: erasure.id, projectId: erasure.projectId, removed: erasure.removed })
      this.options.onDone?.(erasure)
    }
    return erasure
  }
}
