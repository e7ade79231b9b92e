/**
 * Organisations take turns on the control worker's event loop. Every
 * operation a member calls (src/control/router.ts) runs in its
 * organisation's turns: one step at a time, organisations served round robin,
 * each step started from a fresh macrotask so that the I/O that arrived
 * meanwhile (a sign-in, a whoami, a front's request) is served first. A
 * step is one operation, or one budgeted part of a long one (an erasure dry
 * run over a whole project), which gives the turn away with `pass()` and
 * goes on when its organisation's turn comes again. One organisation's
 * reads, however many and however heavy, then delay another's by at most the
 * one step running when it asked, and a step is bounded by its budget
 * (src/store/read-budget.ts): the bound holds by construction, not per
 * endpoint.
 *
 * A step holds the turn while it awaits (an LMDB commit), but not while it
 * waits on the cluster's log (src/waiting.ts). Operations marked
 * `light` in the router (a few keys read: whoami, sign-in) never queue.
 */
import { log } from '../log.js'
import { withAway } from '../waiting.js'
import { metrics } from '../metrics/registry.js'

/** A step that holds the turn longer than this is logged: its operation needs a smaller budget. */
const SLOW_STEP_MS = 100

/** What a step may do with its turn. */
export interface Turn {
  /** Ends this step: the operation goes on when its organisation's turn comes round again. */
  pass(): Promise<void>
  /**
   * Ends this step while `work` runs elsewhere (a read in a thread of the read
   * pool, src/control/read-pool.ts), then waits for the organisation's turn
   * again: a step never holds the turns while it waits for another thread.
   */
  away<T>(work: () => Promise<T>): Promise<T>
}

export class FairTurns {
  /** Steps waiting per organisation, in arrival order. */
  private readonly queues = new Map<string, Array<() => void>>()
  /**
   * Organisations with steps waiting, in the order their turn comes. One that
   * had nothing waiting goes before every organisation served since it
   * last had a turn (after the others that arrived idle, in their order):
   * the organisation running now, however much it queued meanwhile, comes
   * round after it.
   */
  private readonly order: string[] = []
  /** How many at the front of `order` arrived idle and have not had their turn. */
  private fresh = 0
  private running = false
  /** The organisation whose step runs now: what it queues meanwhile waits behind everyone. */
  private current: string | undefined
  /** The organisations of the last `keepServed` steps, in the order they ran (for tests). */
  readonly served: string[] = []

  constructor(private readonly keepServed = 0) {}

  /** Runs `work` in `org`'s turns; answers what it answers. `what` names it in the log line of a slow step. */
  run<T>(org: string, work: (turn: Turn) => Promise<T> | T, what = 'operation'): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let started = 0
      const timed = (step: () => void) => () => {
        started = performance.now()
        step()
      }
      const ended = () => {
        const ms = performance.now() - started
        if (ms > SLOW_STEP_MS) log.warn('a step held the control worker\'s turns', { operation: what, ms: Math.round(ms) })
        this.stepDone()
      }
      const again = () => new Promise<void>((resume) => this.enqueue(org, timed(resume)))
      const turn: Turn = {
        pass: () => {
          const resumed = again()
          ended()
          return resumed
        },
        async away<R>(work: () => Promise<R>): Promise<R> {
          ended()
          try {
            return await work()
          } finally {
            await again()
          }
        },
      }
      this.enqueue(org, timed(() => {
        let settled: Promise<T>
        try {
          // A wait on the log anywhere below gives this turn away while it waits (src/waiting.ts).
          settled = Promise.resolve(withAway((w) => turn.away(w), () => work(turn)))
        } catch (error) {
          settled = Promise.reject(error)
        }
        settled.then(resolve, reject).finally(ended)
      }))
    })
  }

  /** Steps waiting for their turn, all organisations together. */
  get waiting(): number {
    let n = 0
    for (const queue of this.queues.values()) n += queue.length
    return n
  }

  private enqueue(org: string, step: () => void): void {
    const queue = this.queues.get(org)
    metrics.turnsQueued.inc()
    if (queue) queue.push(step)
    else if (org === this.current) {
      this.queues.set(org, [step])
      this.order.push(org)
    } else {
      this.queues.set(org, [step])
      this.order.splice(this.fresh, 0, org)
      this.fresh += 1
    }
    if (!this.running) this.startNext()
  }

  private stepDone(): void {
    this.running = false
    this.current = undefined
    this.startNext()
  }

  private startNext(): void {
    if (this.running || this.order.length === 0) return
    this.running = true
    const org = this.order.shift()!
    this.current = org
    if (this.fresh > 0) this.fresh -= 1
    const queue = this.queues.get(org)!
    const step = queue.shift()!
    // Served: to the back of the line if it has more waiting, forgotten if not.
    if (queue.length) this.order.push(org)
    else this.queues.delete(org)
    metrics.turnsQueued.dec()
    if (this.keepServed) {
      this.served.push(org)
      if (this.served.length > this.keepServed) this.served.shift()
    }
    setImmediate(step)
  }
}
