/**
 * A reader of the control worker's read pool (src/control/read-pool.ts): the
 * store opened on the same LMDB files, answering one read at a time. LMDB
 * serves any number of reader threads; what the control worker and the fold
 * thread commit is seen by the next read here. Every read but the fold runs
 * metered (src/store/lmdb/read-meter.ts): past its entries or bytes it stops.
 */
import { setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import { ApiError } from '../src/errors.js'
import { log } from '../src/log.js'
import { pastBound, UNCUT, type ReadFailure, type ReadReply, type ReadRequest, type ReadThreadInit } from '../src/control/read-pool.js'
import { installMeter, metered, ReadMeter, ReadPastBound } from '../src/store/lmdb/read-meter.js'
import { openStore } from '../src/store/open.js'
import type { LmdbStore } from '../src/store/lmdb/index.js'

const init = workerData as ReadThreadInit
/** Added to the thread's niceness: less than the fold thread's +19, so a read's answer still comes before the next fold. */
const READ_THREAD_NICE = 5
// The pool opens readers only on an LMDB store (a memory store reads inline).
const store = openStore(init) as LmdbStore
const limits = { entries: init.readMaxEntries ?? Infinity, bytes: init.readMaxBytes ?? Infinity }
installMeter(Object.values(store.tables))
try {
  // Below the loops that answer requests (sign-in, whoami, ingest): on a busy core a long read waits, they do not.
  setPriority(READ_THREAD_NICE)
} catch (error) {
  log.warn('read thread could not lower its priority', { error: String(error) })
}
// The pool counts a read's deadline from here: opening the store is not the read's time.
parentPort?.postMessage('ready')

const failure = (error: unknown): ReadFailure => {
  if (error instanceof ReadPastBound) error = pastBound(error.bound, error.limit)
  return error instanceof ApiError ? { message: error.message, code: error.code, options: error.options } : { message: String((error as Error)?.stack ?? error) }
}

/**
 * lmdb-js ends a thread's read snapshot on a timer after it is taken: a read that comes within that tick of the
 * one before would see the store as it was then, missing what another thread committed in between. Each read here
 * starts a snapshot of its own, in both environments.
 */
const freshSnapshots = [store.tables.sessions, store.tables.derived]

parentPort?.on('message', async ({ id, method, args }: ReadRequest) => {
  let reply: ReadReply
  for (const table of freshSnapshots) table.resetReadTxn()
  try {
    const call = () => (store[method] as (...a: unknown[]) => unknown).apply(store, args)
    // A fold answers once its transaction committed; a read at once.
    reply = { id, value: await (UNCUT.has(method) ? call() : metered(new ReadMeter(limits), call)) }
  } catch (error) {
    reply = { id, error: failure(error) }
  }
  parentPort?.postMessage(reply)
})
