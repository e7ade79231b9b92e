/**
 * The fold thread's loop (workers/fold.ts runs it in its thread): fold, and
 * wait only when less than a full fold is left.
 *
 * Why it asks the store what is left rather than trusting the fold's count: a
 * read folds what is pending too (src/control/reading.ts), and when it takes
 * some of the entries this fold read, the fold comes back short with a
 * backlog still behind it. Judged by its count alone, the loop then slept
 * `intervalMs` (500 ms by default) with a full fold waiting, which reads
 * under ingest load made happen over and over.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { log } from '../log.js'
import type { Store } from '../store/store.js'

/** After a fold that failed as a whole (the environment itself, say a full map), before the next try. */
const RETRY_MS = 1_000

export interface FoldLoopOptions {
  /** Batches one fold takes at most (FOLD_BATCHES). */
  batches: number
  /** How long batches gather when less than a full fold is left (FOLD_INTERVAL_MS), ms. */
  intervalMs: number
}

/** Whether to fold again at once: a full fold, or at least a full fold's worth left (another fold took part of this one). */
export function foldAgain(store: Pick<Store, 'derivationLag'>, folded: number, batches: number): boolean {
  return folded >= batches || store.derivationLag() >= batches
}

/** Folds until `signal` aborts (which also cuts a wait short); resolves after the fold under way has committed. */
export async function runFoldLoop(store: Pick<Store, 'applyDerivations' | 'derivationLag'>, options: FoldLoopOptions, signal: AbortSignal): Promise<void> {
  let first = true
  while (!signal.aborted) {
    let again: boolean
    try {
      const folded = await store.applyDerivations(options.batches)
      // Once per start: from here on what arrives waits up to FOLD_INTERVAL_MS (or a read) to be folded.
      if (first) log.info('fold thread: first fold done', { folded })
      first = false
      again = foldAgain(store, folded, options.batches)
    } catch (error) {
      // The store's fold sets aside a batch that fails alone, so this is the environment itself: retry.
      log.error('fold failed; retrying in 1 s', { error: String(error) })
      await sleep(RETRY_MS, undefined, { signal }).catch(() => {})
      continue
    }
    if (again) continue
    await sleep(options.intervalMs, undefined, { signal }).catch(() => {})
  }
}
