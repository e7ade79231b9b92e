/**
 * Compaction without an outage (issue 42): the primary pauses every child,
 * compacts while none has the store open, and resumes them; no process stops
 * and no listening socket closes. A paused front goes on taking requests and
 * holds their writes, answering each only after its commit (pausing.ts, the
 * children's side); the control worker holds its requests at the door.
 *
 * Why every child must close its environments, not only stop writing: the
 * compaction replaces data.mdb by a rename, and LMDB's lock file describes
 * the file it was opened with. Only once no process has it open does the
 * next open (each child's, on resume) start the lock file afresh on the new
 * file.
 *
 * A round: wait for children still starting to be ready (they open the store
 * as they start), ask each live one to pause, compact once all answered (a
 * child that exits meanwhile holds nothing; its restart waits for the end of
 * the round), then resume them all. A child that does not answer within
 * PAUSE_DEADLINE_MS makes the round give up without compacting: the others
 * resume, and the round is tried again RETRY_MS later.
 */
import type { ChildProcess } from 'node:child_process'
import { log } from '../log.js'
import type { PrimaryMessage } from './messages.js'

/** Long enough for a read at its deadline and a full write queue to finish; a child slower than this is stuck. */
const PAUSE_DEADLINE_MS = 30_000
/** A round that gave up is tried again after this long: its erasure's bytes are still in the files. */
const RETRY_MS = 60_000
/** A child starting takes a second or so to open the store and listen. */
const READY_DEADLINE_MS = 30_000

export interface RoundChild {
  name: string
  child?: ChildProcess
  /** The child answered `ready` since it was last started. */
  ready: boolean
}

const alive = (child?: ChildProcess): child is ChildProcess => !!child && child.exitCode === null && child.signalCode === null && child.connected

export class CompactionRounds {
  private running: Promise<void> | undefined
  private again = false
  private round = 0
  /** Live children whose `paused` this round still waits for, and the wake-up of the wait. */
  private waitingFor = new Set<ChildProcess>()
  private wake: (() => void) | undefined
  /** Starts (restarts) asked for during a round: run after it, as the store is open to all again. */
  private deferred: Array<() => void> = []

  constructor(
    private readonly children: () => RoundChild[],
    /** Answers false when the store could not be compacted now (another process has it open): tried again later. */
    private readonly compact: () => Promise<boolean>,
    private readonly stopping: () => boolean,
    private readonly timing = { pauseDeadlineMs: PAUSE_DEADLINE_MS, retryMs: RETRY_MS },
  ) {}

  /** Whether a round is under way: a child may not open the store until it ends (start it through `whenOpen`). */
  get active(): boolean {
    return this.running !== undefined
  }

  /** Resolves when no round runs. */
  settled(): Promise<void> {
    return this.running ?? Promise.resolve()
  }

  /** Runs `start` now, or after the round under way. */
  whenOpen(start: () => void): void {
    if (this.running) this.deferred.push(start)
    else start()
  }

  /** A round now, or one more after the round under way (an erasure finished meanwhile). */
  request(): void {
    if (this.running) return void (this.again = true)
    this.running = (async () => {
      do {
        this.again = false
        await this.runRound()
      } while (this.again && !this.stopping())
    })().finally(() => {
      this.running = undefined
      for (const start of this.deferred.splice(0)) start()
    })
  }

  /** A child's `paused` answer. */
  paused(child: ChildProcess, round: number): void {
    if (round !== this.round || !this.waitingFor.delete(child)) return
    if (this.waitingFor.size === 0) this.wake?.()
  }

  /** A child exited: it holds the store no more, and is no longer waited for. */
  exited(child: ChildProcess): void {
    if (this.waitingFor.delete(child) && this.waitingFor.size === 0) this.wake?.()
  }

  private async runRound(): Promise<void> {
    const started = Date.now()
    await this.untilReady()
    const round = ++this.round
    const live = this.children().map((unit) => unit.child).filter(alive)
    this.waitingFor = new Set(live)
    const allPaused = new Promise<boolean>((resolve) => {
      const deadline = setTimeout(() => resolve(false), this.timing.pauseDeadlineMs)
      this.wake = () => (clearTimeout(deadline), resolve(true))
    })
    log.info('compacting the store after an erasure: every child pauses, none stops', { round, children: live.length })
    for (const child of live) send(child, { type: 'pause', round })
    if (this.waitingFor.size === 0) this.wake?.()
    const ok = await allPaused
    this.wake = undefined
    const paused = Date.now()
    const compacted = ok && (await this.compact())
    if (!ok) {
      const late = this.children().filter((unit) => unit.child && this.waitingFor.has(unit.child)).map((unit) => unit.name)
      log.error('a child did not pause for the compaction; compacting later', { round, late, retryInMs: this.timing.retryMs })
    }
    if (!compacted) setTimeout(() => !this.stopping() && this.request(), this.timing.retryMs).unref()
    this.waitingFor.clear()
    for (const child of this.children().map((unit) => unit.child).filter(alive)) send(child, { type: 'resume', round })
    log.info('children resumed after the compaction', { round, compacted, pausingMs: paused - started, heldMs: Date.now() - started })
  }

  private async untilReady(): Promise<void> {
    const deadline = Date.now() + READY_DEADLINE_MS
    while (this.children().some((unit) => alive(unit.child) && !unit.ready) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

function send(child: ChildProcess, message: PrimaryMessage): void {
  // A child gone between the check and the send: its exit is handled as any other.
  if (child.connected) child.send(message, (error) => error && log.warn('message to a child not delivered', { type: message.type, error: String(error) }))
}
