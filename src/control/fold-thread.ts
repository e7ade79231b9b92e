/** Starts and keeps alive the fold thread (workers/fold.ts) of the control worker. */
import { Worker } from 'node:worker_threads'
import { log } from '../log.js'
import type { Config } from '../config.js'
import type { FoldThreadInit, FoldThreadMessage } from '../supervisor/messages.js'

/**
 * Nice +19, the lowest: under a saturating burst the fold takes about 1% of a
 * busy core rather than the 10% nice +10 left it, and that core acknowledges
 * more instead (bench/RESULTS.md, issue 44). A read folds what is pending first.
 */
const FOLD_THREAD_NICE = 19
const RESTART_DELAY_MS = 1_000

export interface FoldThreadHandle {
  /** Stops the thread once its current fold has committed. */
  stop(): Promise<void>
}

export function startFoldThread(config: Pick<Config, 'dataDir' | 'mapSizeBytes' | 'durability' | 'foldIntervalMs' | 'foldBatches' | 'maxPagesPerProject'>): FoldThreadHandle {
  const { dataDir, mapSizeBytes, durability, foldIntervalMs, foldBatches, maxPagesPerProject } = config
  const init: FoldThreadInit = { dataDir, mapSizeBytes, durability, maxPagesPerProject, nice: FOLD_THREAD_NICE, intervalMs: foldIntervalMs, batches: foldBatches }
  let stopping = false
  let worker: Worker
  let restart: NodeJS.Timeout | undefined

  const spawn = () => {
    worker = new Worker(new URL('./fold.js', import.meta.url), { workerData: init })
    worker.on('error', (error) => log.error('fold thread failed', { error: String(error) }))
    worker.on('exit', (code) => {
      if (stopping) return
      // Nothing is lost meanwhile: the fold log waits in the store, and reads fold what they need.
      log.error('fold thread exited; restarting', { code })
      restart = setTimeout(spawn, RESTART_DELAY_MS)
    })
  }
  spawn()

  return {
    async stop() {
      stopping = true
      clearTimeout(restart)
      await new Promise<void>((resolve) => {
        const done = setTimeout(() => void worker.terminate().then(() => resolve()), 5_000)
        worker.once('exit', () => (clearTimeout(done), resolve()))
        worker.on('message', (message: FoldThreadMessage) => message.type === 'stopped' && void worker.terminate())
        worker.postMessage({ type: 'stop' } satisfies FoldThreadMessage)
      })
    },
  }
}
