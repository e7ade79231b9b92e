/**
 * Waiting on another process without holding what the caller holds. The
 * control worker runs each operation in its organisation's turn
 * (control/turns.ts), and a step holds the turn while it awaits: a wait on
 * the cluster's log (a change's acknowledgement, a chunk's bytes from a NATS
 * server) lasts up to NATS_DEADLINE_MS when NATS is in trouble, and would hold
 * every organisation that long (`npm run chaos`, a NATS server's disk filled:
 * steps of 5 and 10 s). Code that waits on the log wraps the wait in
 * `waitAway`, and whatever turn the call came from is given away meanwhile:
 * by construction, for every operation that reaches the log.
 */
import { AsyncLocalStorage } from 'node:async_hooks'

export type Away = <T>(work: () => Promise<T>) => Promise<T>

const scope = new AsyncLocalStorage<Away | undefined>()

/** Runs `work` with `away` as what a `waitAway` inside it gives away its turn with. */
export function withAway<T>(away: Away, work: () => T): T {
  return scope.run(away, work)
}

export function waitAway<T>(work: () => Promise<T>): Promise<T> {
  const away = scope.getStore()
  // Inside the wait nothing is held any more: a wait within it runs as it is.
  return away ? away(() => scope.run(undefined, work)) : work()
}
