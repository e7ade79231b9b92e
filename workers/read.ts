/**
 * A reader of the control worker's read pool (src/control/read-pool.ts): the
 * store opened on the same LMDB files, answering one read at a time. LMDB
 * serves any number of reader threads; what the control worker and the fold
 * thread commit is seen by the next read here.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { ApiError } from '../src/errors.js'
import type { ReadFailure, ReadReply, ReadRequest, ReadThreadInit } from '../src/control/read-pool.js'
import { openStore } from '../src/store/open.js'

const store = openStore(workerData as ReadThreadInit)
// The pool counts a read's deadline from here: opening the store is not the read's time.
parentPort?.postMessage('ready')

const failure = (error: unknown): ReadFailure =>
  error instanceof ApiError ? { message: error.message, code: error.code, options: error.options } : { message: String((error as Error)?.stack ?? error) }

parentPort?.on('message', async ({ id, method, args }: ReadRequest) => {
  let reply: ReadReply
  try {
    // A fold answers once its transaction committed; a read at once.
    reply = { id, value: await (store[method] as (...a: unknown[]) => unknown).apply(store, args) }
  } catch (error) {
    reply = { id, error: failure(error) }
  }
  parentPort?.postMessage(reply)
})
