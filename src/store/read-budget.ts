/**
 * What one read may cost: entries examined, work on them, bytes materialised
 * and time. A read that passes a bound stops before the next entry and
 * answers what it has with a cursor that continues (or, for an operation that
 * runs in steps, gives its organisation's turn away: src/control/turns.ts).
 * Work counts what an entry costs beyond being read: a session tested
 * against a search is 1 plus the texts of its search record that the search
 * reads, so a record of 112 texts costs 113, not 1.
 *
 * Bytes and work are checked as they are spent; time every few entries (a
 * clock read costs more than an entry of most scans).
 */

export interface ReadLimits {
  entries: number
  work: number
  bytes: number
  ms: number
}

/**
 * A step holds the control worker for about 10 ms at most: every async hop of
 * a sign-in (its body, its scrypt, its commit) may wait one step, so steps
 * are kept short (bench/RESULTS.md, "Isolation", has the sign-in figures).
 */
export const READ_LIMITS: ReadLimits = { entries: 2_000, work: 20_000, bytes: 4 * 1024 * 1024, ms: 10 }

const CLOCK_EVERY = 16

export class ReadBudget {
  entries = 0
  work = 0
  bytes = 0
  private readonly started: number

  constructor(
    readonly limits: ReadLimits = READ_LIMITS,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.started = clock()
  }

  /** Takes the next entry, costing one unit of work; false (taking nothing) once a bound is reached. */
  entry(): boolean {
    if (this.entries >= this.limits.entries || this.work >= this.limits.work || this.bytes >= this.limits.bytes) return false
    if (this.entries % CLOCK_EVERY === CLOCK_EVERY - 1 && this.clock() - this.started >= this.limits.ms) return false
    this.entries += 1
    this.work += 1
    return true
  }

  /** Adds what the entry taken last cost beyond its reading. */
  spend(work: number, bytes = 0): void {
    this.work += work
    this.bytes += bytes
  }
}
