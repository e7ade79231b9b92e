/**
 * piscina entry of a front's writer thread: the thread's own store, and the
 * batch writer of src/ingest-sink/write-batch.ts (which says why batches and what
 * a task does).
 */
import { workerData } from 'node:worker_threads'
import type { WriterInit } from '../src/supervisor/messages.js'
import { createWriteBatch } from '../src/ingest-sink/write-batch.js'
import { openStore } from '../src/store/open.js'

export default createWriteBatch(openStore(workerData as WriterInit))
