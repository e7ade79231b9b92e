/**
 * A small queue in front of expensive work (password hashing): at most
 * `running` tasks at once, at most `waiting` more in each line, and past that
 * an immediate 429 `overloaded` with Retry-After rather than a line that
 * grows with the attack. Two lines: a sign-in from a place that signed in to
 * the account before (login-throttle.ts) waits in the priority line, served
 * first, so a flood of guesses from new places fills only the other one.
 * Within a line, first come, first served.
 */
import { ApiError } from '../errors.js'

export interface HashQueueLimits {
  running: number
  waiting: number
  /** Running slots only the priority line may use, so that a known place never waits for a guesser's hash. */
  reservedForPriority?: number
}

type Waiter = () => void

export class HashQueue {
  private active = 0
  private activeNormal = 0
  private readonly line: Waiter[] = []
  private readonly priorityLine: Waiter[] = []

  constructor(private readonly limits: HashQueueLimits) {}

  /** Tasks running and waiting now (for tests and metrics). */
  get load(): { running: number; waiting: number } {
    return { running: this.active, waiting: this.line.length + this.priorityLine.length }
  }

  private canStart(priority: boolean): boolean {
    if (this.active >= this.limits.running) return false
    return priority || this.activeNormal < this.limits.running - (this.limits.reservedForPriority ?? 0)
  }

  async run<T>(task: () => Promise<T>, options: { priority?: boolean } = {}): Promise<T> {
    const priority = options.priority === true
    if (!this.canStart(priority) || (priority ? this.priorityLine : this.line).length > 0) {
      const line = priority ? this.priorityLine : this.line
      if (line.length >= this.limits.waiting) {
        throw new ApiError('overloaded', {
          error: 'Too many password checks are waiting; nothing was changed.',
          hint: 'Try again after the Retry-After header\'s seconds.',
          retryAfterSeconds: 1,
        })
      }
      // Counted as running by startWaiter when its turn comes.
      await new Promise<void>((resolve) => line.push(resolve))
    } else {
      this.active += 1
      if (!priority) this.activeNormal += 1
    }
    try {
      return await task()
    } finally {
      this.active -= 1
      if (!priority) this.activeNormal -= 1
      this.wakeNext()
    }
  }

  /** Starts whoever may go now: the priority line first, then the other while it has a slot. */
  private wakeNext(): void {
    while (this.priorityLine.length > 0 && this.canStart(true)) this.startWaiter(this.priorityLine.shift()!, true)
    while (this.line.length > 0 && this.canStart(false)) this.startWaiter(this.line.shift()!, false)
  }

  /** Counts the waiter as running before it resumes, so that a newcomer in the same turn cannot overtake it. */
  private startWaiter(waiter: Waiter, priority: boolean): void {
    this.active += 1
    if (!priority) this.activeNormal += 1
    waiter()
  }
}
