/**
 * The fold thread: a thread of the control worker that folds stored signal
 * batches into the aggregates (src/store/lmdb/fold-log.ts), oldest first,
 * FOLD_BATCHES per transaction (src/control/fold-loop.ts). With a full
 * fold's worth left it goes on at once. Otherwise it lets batches gather for
 * FOLD_INTERVAL_MS first: folding them as they come rewrote the busy buckets
 * nearly once per batch (the read bench, bench/read-results.md).
 *
 * It runs at a lower scheduling priority than the rest of the machine's
 * processes (nice +19, on Linux a thread's own): under a burst the fronts
 * and their writers acknowledge first and the aggregates catch up behind,
 * which is the order a tracker and a dashboard user want. Its lag is what
 * `store.derivationLag()` reports; bench/read-queries.ts measures how long a
 * backlog takes to drain after a saturating run.
 *
 * Readers never depend on it alone: a read folds what is pending first
 * (src/control/reading.ts), so a thread that died or lags cannot make a
 * client miss what it just sent.
 */
import { setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import { runFoldLoop } from '../src/control/fold-loop.js'
import { log } from '../src/log.js'
import type { FoldThreadInit, FoldThreadMessage } from '../src/supervisor/messages.js'
import { openStore } from '../src/store/open.js'

const init = workerData as FoldThreadInit
const store = openStore(init)
try {
  setPriority(init.nice)
} catch (error) {
  log.warn('fold thread could not lower its priority', { error: String(error) })
}

const stop = new AbortController()
parentPort?.on('message', (message: FoldThreadMessage) => {
  if (message.type === 'stop') stop.abort()
})

await runFoldLoop(store, { batches: init.batches, intervalMs: init.intervalMs }, stop.signal)
await store.close()
parentPort?.postMessage({ type: 'stopped' } satisfies FoldThreadMessage)
