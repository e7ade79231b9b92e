/**
 * piscina task: commits a batch of ingest items to LMDB in one transaction.
 *
 * Why a pool and batches: a commit costs far more than a put, and one pool
 * round trip per request caps near 12k tasks/s on two cores. The front
 * gathers the requests that arrive while earlier batches are being written
 * and hands them over together, bodies transferred rather than copied; one
 * task is one transaction, so the commit cost is shared by the whole batch.
 * The promise resolves only after the commit (and the disk sync, with
 * durability "flush"): the front acknowledges nothing before that.
 */
import { workerData } from 'node:worker_threads'
import type { WriteResult, WriteTask, WriterInit } from '../src/messages.js'
import { openStore } from '../src/store/open.js'

const store = openStore(workerData as WriterInit)

export default async function write(task: WriteTask): Promise<WriteResult> {
  for (const item of task.items) {
    // A transferred ArrayBuffer arrives as a plain ArrayBuffer or Uint8Array; the store wants a view.
    if (item.kind === 'chunk' && !(item.body instanceof Uint8Array)) item.body = new Uint8Array(item.body as ArrayBuffer)
  }
  return { outcomes: await store.appendBatch(task.items) }
}
