/**
 * A store that closes and opens again in place, for an online compaction
 * (src/supervisor/compaction-round.ts). The compaction replaces data.mdb:
 * every thread of every process must close its environment before it (one
 * left open would keep the old file mapped, and a later open in that process
 * would share it and write into the replaced file) and open it anew after.
 *
 * Why an indirection: routes, runners and the write batch each keep the store
 * they were given for their life. They are given `store`, which forwards every
 * call to the environment open now. While it is closed, a call throws
 * StorageUnavailable, which callers already answer as a failing disk (ingest
 * 429, the control worker 429 with Retry-After, runners try the step again);
 * a caller that can wait asks `whenOpen` first.
 */
import { StorageUnavailable, type Store } from './store.js'

/** A call made while the store is closed for a compaction: storage unavailable for a second or two, nothing written. */
export class StoreClosed extends StorageUnavailable {
  constructor() {
    super(new Error('the store is closed for a compaction'), false)
  }
}

/** How often a background step refused by a closed store is tried again. */
const RETRY_CLOSED_MS = 100

/**
 * Runs `step` (a background job's step: one transaction, safe to try again)
 * and again while the store is closed for a compaction, so that an erasure or
 * backfill waits it out rather than stopping until the next start.
 */
export async function pastCompaction<T>(step: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await step()
    } catch (error) {
      if (!(error instanceof StoreClosed)) throw error
      await new Promise((resolve) => setTimeout(resolve, RETRY_CLOSED_MS))
    }
  }
}

export class ReopenableStore {
  /** What modules hold: forwards to the environment open now. */
  readonly store: Store
  private current: Store | undefined
  /** Calls whose promise has not settled: a write in flight commits before the environment closes. */
  private inFlight = 0
  private settled: (() => void) | undefined
  private opened: Promise<void> | undefined
  private markOpened: (() => void) | undefined
  private closing: Promise<void> | undefined

  constructor(private readonly open: () => Store) {
    this.current = open()
    const forwarders = new Map<PropertyKey, (...args: unknown[]) => unknown>()
    this.store = new Proxy({} as Store, {
      get: (_target, name) => {
        // Not a thenable: an async function may answer the store itself.
        if (name === 'then') return undefined
        let forward = forwarders.get(name)
        if (!forward) forwarders.set(name, (forward = (...args) => this.call(name, args)))
        return forward
      },
    })
  }

  /** Undefined while open; else resolves once open again. */
  whenOpen(): Promise<void> | undefined {
    return this.opened
  }

  /** Refuses new calls at once, waits for the ones in flight, then closes the environment. */
  close(): Promise<void> {
    if (this.closing) return this.closing
    this.opened = new Promise((resolve) => (this.markOpened = resolve))
    this.closing = (async () => {
      if (this.inFlight > 0) await new Promise<void>((resolve) => (this.settled = resolve))
      this.settled = undefined
      const store = this.current
      this.current = undefined
      await store?.close()
    })()
    return this.closing
  }

  /** Opens the environment anew (a fresh open maps whatever data.mdb is now) and lets waiting callers go on. */
  async reopen(): Promise<void> {
    if (!this.closing) return
    await this.closing
    this.current = this.open()
    const markOpened = this.markOpened
    this.opened = this.markOpened = this.closing = undefined
    markOpened?.()
  }

  private call(name: PropertyKey, args: unknown[]): unknown {
    const store = this.opened ? undefined : this.current
    if (!store) throw new StoreClosed()
    const result = (store[name as keyof Store] as (...a: unknown[]) => unknown).apply(store, args)
    if (result instanceof Promise) {
      this.inFlight += 1
      const done = () => {
        this.inFlight -= 1
        if (this.inFlight === 0) this.settled?.()
      }
      result.then(done, done)
    }
    return result
  }
}
