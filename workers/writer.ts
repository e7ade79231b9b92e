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
 *
 * Signals bodies arrive as bytes and are parsed and validated here (AJV,
 * compiled once per thread): a body that is no batch is answered `invalid`
 * and stored nowhere, while its batch-mates are written. Moving this off the
 * front took ~20% of the server CPU per 5 KB batch (no structured clone of
 * the parsed batch either way; measured A/B, see issue 2's note).
 *
 * Page identity is decided here, off the front's event loop
 * (src/grouping/prepare-items.ts).
 */
import { performance } from 'node:perf_hooks'
import { workerData } from 'node:worker_threads'
import { log } from '../src/log.js'
import type { WriteOutcome, WriteResult, WriteTask, WriterInit } from '../src/cluster/messages.js'
import { ItemPreparer } from '../src/grouping/prepare-items.js'
import { StorageUnavailable, type IngestItem } from '../src/store/store.js'
import { openStore } from '../src/store/open.js'

const store = openStore(workerData as WriterInit)
const preparer = new ItemPreparer(store)

export default async function write(task: WriteTask): Promise<WriteResult> {
  const outcomes: WriteOutcome[] = []
  const items: IngestItem[] = []
  const stored: number[] = []
  task.items.forEach((raw, i) => {
    const item = preparer.prepare(raw)
    if ('invalid' in item) return void (outcomes[i] = item)
    items.push(item)
    stored.push(i)
  })
  if (items.length === 0) return { outcomes }
  try {
    const started = performance.now()
    const written = await store.appendBatch(items)
    const commitMs = performance.now() - started
    written.forEach((outcome, j) => (outcomes[stored[j]] = outcome))
    return { outcomes, commitMs }
  } catch (error) {
    // The transaction did not commit (disk full, I/O error, panicked environment): none of its items is stored,
    // and each is answered 429 so that its client sends it again.
    // Anything else that throws here is no storage failure but still stored nothing: the same answer is the honest one.
    log.error('ingest transaction failed; answered overloaded', { error: String(error), items: items.length })
    for (const j of stored) outcomes[j] = 'unavailable'
    return { outcomes, fatal: error instanceof StorageUnavailable && error.fatal }
  }
}
