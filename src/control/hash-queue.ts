/**
 * A small queue in front of expensive work (password hashing): at most
 * `running` tasks at once, at most `waiting` more in each line, and past that
 * an immediate 429 `overloaded` with Retry-After rather than a line that
 * grows with the attack. Two lines: a sign-in from a place that signed in to
 * the account before (login-throttle.ts) waits in the priority line, served
 * first, so a flood of guesses from new places fills only the other one.
 *
 * Within a line every task names whose it is (an organisation, a client
 * address) and the line is shared by construction: keys take turns, and a
 * full line makes room for a key with fewer waiters by refusing the newest
 * waiter of the key with most. So no one key (a member signing in again and
 * again with the right password, one guessing address) can hold another out
 * or ahead of it for more than a turn; a task that names no key shares one.
 */
import { ApiError } from '../errors.js'

export interface HashQueueLimits {
  running: number
  waiting: number
  /** Running slots only the priority line may use, so that a known place never waits for a guesser's hash. */
  reservedForPriority?: number
}

export interface Turn {
  /** A check from a known place, or from a signed-in caller: the priority line. */
  priority?: boolean
  /** Whose task it is: the line takes keys in turn and never lets one crowd out another. */
  key?: string
}

interface Waiter {
  start(): void
  refuse(error: ApiError): void
}

const overloaded = () =>
  new ApiError('overloaded', {
    error: 'Too many password checks are waiting; nothing was changed.',
    hint: 'Try again after the Retry-After header\'s seconds.',
    retryAfterSeconds: 1,
  })

/** One line: a first-come queue per key, the keys served in turn, at most `limit` waiters in all. */
class FairLine {
  private readonly byKey = new Map<string, Waiter[]>()
  size = 0

  constructor(private readonly limit: number) {}

  /** False when the line is full and `key` already waits as often as any other key; nothing changes then. */
  admit(key: string, waiter: Waiter): boolean {
    if (this.size >= this.limit) {
      let heaviest: Waiter[] = []
      for (const waiters of this.byKey.values()) if (waiters.length > heaviest.length) heaviest = waiters
      // Only a strictly fairer line is worth a refusal: swapping equals would just move the 429 around.
      if (heaviest.length < (this.byKey.get(key)?.length ?? 0) + 2) return false
      heaviest.pop()!.refuse(overloaded())
      this.size -= 1
    }
    const waiters = this.byKey.get(key)
    if (waiters) waiters.push(waiter)
    else this.byKey.set(key, [waiter])
    this.size += 1
    return true
  }

  /** The next waiter: the head of the key whose turn it is, which then goes to the back of the turns. */
  next(): Waiter | undefined {
    for (const [key, waiters] of this.byKey) {
      this.byKey.delete(key)
      if (waiters.length > 1) this.byKey.set(key, waiters)
      this.size -= 1
      return waiters.shift()
    }
    return undefined
  }
}

export class HashQueue {
  private active = 0
  private activeNormal = 0
  private readonly line: FairLine
  private readonly priorityLine: FairLine

  constructor(private readonly limits: HashQueueLimits) {
    this.line = new FairLine(limits.waiting)
    this.priorityLine = new FairLine(limits.waiting)
  }

  /** Tasks running and waiting now (for tests and metrics). */
  get load(): { running: number; waiting: number } {
    return { running: this.active, waiting: this.line.size + this.priorityLine.size }
  }

  private canStart(priority: boolean): boolean {
    if (this.active >= this.limits.running) return false
    return priority || this.activeNormal < this.limits.running - (this.limits.reservedForPriority ?? 0)
  }

  async run<T>(task: () => Promise<T>, turn: Turn = {}): Promise<T> {
    const priority = turn.priority === true
    const line = priority ? this.priorityLine : this.line
    if (!this.canStart(priority) || line.size > 0) {
      // Counted as running by startWaiter when its turn comes; a refusal (now, or later to make room) throws here.
      await new Promise<void>((start, refuse) => {
        if (!line.admit(turn.key ?? '', { start, refuse })) refuse(overloaded())
      })
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
    while (this.priorityLine.size > 0 && this.canStart(true)) this.startWaiter(this.priorityLine.next()!, true)
    while (this.line.size > 0 && this.canStart(false)) this.startWaiter(this.line.next()!, false)
  }

  /** Counts the waiter as running before it resumes, so that a newcomer in the same turn cannot overtake it. */
  private startWaiter(waiter: Waiter, priority: boolean): void {
    this.active += 1
    if (!priority) this.activeNormal += 1
    waiter.start()
  }
}
