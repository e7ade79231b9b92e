/**
 * A reader of the control worker's read pool (src/control/read-pool.ts): the
 * store opened on the same LMDB files, answering one read at a time. LMDB
 * serves any number of reader threads; what the control worker and the fold
 * thread commit is seen by the next read here.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { ApiError } from '../src/errors.js'
import type { ReadReply, ReadRequest, ReadThreadInit } from '../src/control/read-pool.js'
import { openStore } from '../src/store/open.js'

const store = openStore(workerData as ReadThreadInit)

parentPort?.on('message', ({ id, method, args }: ReadRequest) => {
  let reply: ReadReply
  try {
    reply = { id, value: (store[method] as (...a: unknown[]) => unknown)(...args) }
  } catch (error) {
    reply = { id, error: error instanceof ApiError ? { message: error.message, code: error.code, options: error.options } : { message: String((error as Error)?.stack ?? error) } }
  }
  parentPort?.postMessage(reply)
})
