/**
 * A small queue in front of expensive work (password hashing): at most
 * `running` tasks at once, at most `waiting` more in line, and past that an
 * immediate 429 `overloaded` with Retry-After rather than a line that grows
 * with the attack. Order is first come, first served.
 */
import { ApiError } from '../errors.js'

export interface HashQueueLimits {
  running: number
  waiting: number
}

export class HashQueue {
  private active = 0
  private readonly line: (() => void)[] = []

  constructor(private readonly limits: HashQueueLimits) {}

  /** Tasks running and waiting now (for tests and metrics). */
  get load(): { running: number; waiting: number } {
    return { running: this.active, waiting: this.line.length }
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limits.running) {
      if (this.line.length >= this.limits.waiting) {
        throw new ApiError('overloaded', {
          error: 'Too many password checks are waiting; nothing was changed.',
          hint: 'Try again after the Retry-After header\'s seconds.',
          retryAfterSeconds: 1,
        })
      }
      await new Promise<void>((resolve) => this.line.push(resolve))
    } else {
      this.active += 1
    }
    try {
      return await task()
    } finally {
      // Hand the slot straight to the next in line, so a newcomer cannot overtake it.
      const next = this.line.shift()
      if (next) next()
      else this.active -= 1
    }
  }
}
