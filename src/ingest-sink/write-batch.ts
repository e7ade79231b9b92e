/**
 * One write task: a batch of ingest items committed to LMDB in one transaction.
 *
 * Why batches: a commit costs far more than a put. The front gathers the
 * requests that arrive while earlier batches are being written and hands
 * them over together; one task is one transaction, so the commit cost is
 * shared by the whole batch. The promise resolves only after the commit (and
 * the disk sync, with durability "flush"): the front acknowledges nothing
 * before that.
 *
 * Signals bodies arrive as bytes and are parsed and validated here (AJV,
 * compiled once per thread), unless the front did as they arrived: a body
 * that is no batch is answered `invalid` and stored nowhere, while its
 * batch-mates are written.
 *
 * Page identity is decided here too (src/grouping/prepare-items.ts).
 *
 * Parsing gives the thread back every PREPARE_SLICE_MS: with the front
 * writing on its own thread (WRITER_THREADS=0), a flood of large signals
 * batches would otherwise hold every request the front forwards (a
 * bystander's whoami) for the whole batch's parsing.
 */
import { performance } from 'node:perf_hooks'
import { log } from '../log.js'
import type { WriteOutcome, WriteResult, WriteTask } from '../supervisor/messages.js'
import { ItemPreparer } from '../grouping/prepare-items.js'
import { StorageUnavailable, type IngestItem, type Store } from '../store/store.js'

export type WriteBatch = (task: WriteTask) => Promise<WriteResult>

/** Parsing time after which the writer lets the thread's other work in (a 200 KB batch parses in a few ms). */
const PREPARE_SLICE_MS = 4
/** A gap this long between two items' preparing means the thread was free meanwhile: a new stretch starts. */
const FREE_GAP_MS = 1

/**
 * The thread's stretch of preparing, across every task in flight: tasks
 * started in one turn prepare one after another without awaiting, so each
 * task timing only itself would never give the thread back.
 */
const stretch = { since: 0, lastEnd: 0 }

/** A promise to await when the thread has been preparing for a whole slice; nothing (no await) otherwise. */
function turnIfLong(): Promise<void> | undefined {
  const now = performance.now()
  if (now - stretch.lastEnd > FREE_GAP_MS) stretch.since = now
  else if (now - stretch.since > PREPARE_SLICE_MS) {
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        stretch.since = performance.now()
        resolve()
      }),
    )
  }
  return undefined
}

/** The writer of one thread: a piscina writer thread's (workers/writer.ts), or the front's own with WRITER_THREADS=0. */
export function createWriteBatch(store: Store): WriteBatch {
  const preparer = new ItemPreparer(store)
  return async function write(task: WriteTask): Promise<WriteResult> {
    const outcomes: WriteOutcome[] = []
    const items: IngestItem[] = []
    const stored: number[] = []
    const prepare = preparer.forBatch()
    for (let i = 0; i < task.items.length; i++) {
      const raw = task.items[i]
      // Only a signals body not parsed on arrival is parsed here; a chunk's preparing is a page key.
      const parsed = raw.kind === 'signals-body' && !raw.batch
      const turn = parsed ? turnIfLong() : undefined
      if (turn) await turn
      const item = prepare(raw)
      if (parsed) stretch.lastEnd = performance.now()
      if ('invalid' in item) {
        outcomes[i] = item
        continue
      }
      items.push(item)
      stored.push(i)
    }
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
}
