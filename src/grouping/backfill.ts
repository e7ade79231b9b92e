/**
 * Backfill: re-keys every stored session and signal of a project under its
 * current rules and rebuilds the page index (API contract, section 1: "Rules
 * changed later re-key existing pages only after a purge and backfill").
 *
 * It runs in the control worker as a loop of bounded steps, each one write
 * transaction that also saves its cursor: ingest goes on between steps, a
 * killed worker resumes from the last committed step on start-up, and no
 * session is ever removed (re-keying only rewrites page keys).
 */
import { log } from '../log.js'
import { metrics } from '../metrics/registry.js'
import type { BackfillState, Store } from '../store/store.js'
import { pastCompaction } from '../store/reopenable.js'
import { groupUrl, RulesCache } from './group.js'

export interface BackfillOptions {
  batch: number
  pauseMs: number
  now?: () => number
}

export class BackfillRunner {
  private running = new Map<string, Promise<BackfillState>>()
  private readonly cache = new RulesCache(64)
  private stopped = false

  constructor(
    private readonly store: Store,
    private readonly options: BackfillOptions,
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)()
  }

  /** Starts (or joins) the backfill of a project; answers its state at once. */
  async start(projectId: string, rules: string[]): Promise<BackfillState> {
    const state = await this.store.startBackfill(projectId, rules, this.now())
    this.ensureRunning(state)
    return state
  }

  /** Resumes every backfill a previous process left running. */
  resumeAll(): void {
    for (const state of this.store.listRunningBackfills()) {
      log.info('resuming backfill', { projectId: state.projectId, phase: state.phase, sessionsRekeyed: state.sessionsRekeyed })
      this.ensureRunning(state)
    }
  }

  /** Resolves when the project's backfill (if any, in this process) ends. */
  async settled(projectId: string): Promise<BackfillState | undefined> {
    return (await this.running.get(projectId)) ?? this.store.getBackfill(projectId)
  }

  /** Backfills running in this process now. */
  get runningCount(): number {
    return this.running.size
  }

  stop(): void {
    this.stopped = true
  }

  private ensureRunning(state: BackfillState): void {
    if (state.state !== 'running' || this.running.has(state.projectId)) return
    const run = this.loop(state).finally(() => this.running.delete(state.projectId))
    this.running.set(state.projectId, run)
    run.catch((error) => log.error('backfill failed; it resumes on the next start', { projectId: state.projectId, error: String(error) }))
  }

  private async loop(initial: BackfillState): Promise<BackfillState> {
    const rules = this.cache.rulesFor(`backfill:${initial.projectId}`, initial.rules)
    const rekey = (url: string) => ({ ...groupUrl(url, rules), firstSeenAt: 0 })
    let state = initial
    while (state.state === 'running' && !this.stopped) {
      const before = state.sessionsRekeyed
      state = await pastCompaction(() => this.store.continueBackfill(state.projectId, this.options.batch, rekey, this.now()))
      metrics.backfillSessions.inc(Math.max(0, state.sessionsRekeyed - before))
      if (this.options.pauseMs > 0) await new Promise((r) => setTimeout(r, this.options.pauseMs))
      else await new Promise((r) => setImmediate(r))
    }
    if (state.state === 'done') {
      metrics.backfillsDone.inc()
      log.info('backfill done', { projectId: state.projectId, pagesBefore: state.pagesBefore, pagesAfter: state.pagesAfter, sessionsRekeyed: state.sessionsRekeyed })
    }
    return state
  }
}
