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
 * compiled once per thread): a body that is no batch is answered `invalid`
 * and stored nowhere, while its batch-mates are written.
 *
 * Page identity is decided here: each chunk's URL and each signal's URL is
 * grouped under the project's rules as they are now.
 */
import { performance } from 'node:perf_hooks'
import { parseSignals } from '../contract/signals-checks.js'
import { log } from '../log.js'
import type { WriteItem, WriteOutcome, WriteResult, WriteTask } from '../cluster/messages.js'
import { groupUrl, RulesCache } from '../grouping/group.js'
import { StorageUnavailable, type IngestItem, type PageRecord, type Store } from '../store/store.js'

export type WriteBatch = (task: WriteTask) => Promise<WriteResult>

/** The writer of one thread: a piscina writer thread's (workers/writer.ts), or the front's own with WRITER_THREADS=0. */
export function createWriteBatch(store: Store): WriteBatch {
  const rulesCache = new RulesCache()

  /**
   * Groups each distinct URL of an item once: a signals batch comes from one
   * page view or a few, so its dozens of clicks share a handful of URLs, and
   * grouping each entry again cost more than the rest of the page bookkeeping
   * (bench/micro.ts, "pages of a signals batch"; bench/RESULTS.md).
   */
  function pager(projectId: string, receivedAt: number): (url: string) => PageRecord {
    const rules = rulesCache.rulesFor(projectId, store.getProject(projectId)?.pathRules ?? [])
    const pages = new Map<string, PageRecord>()
    return (url) => {
      let page = pages.get(url)
      if (!page) {
        page = { ...groupUrl(url, rules), firstSeenAt: receivedAt }
        pages.set(url, page)
      }
      return page
    }
  }

  function assignPages(item: IngestItem): void {
    const pageOf = pager(item.projectId, item.receivedAt)
    if (item.kind === 'chunk') {
      if (item.meta.url) item.page = pageOf(item.meta.url)
      return
    }
    const seen = new Map<string, PageRecord>()
    for (const entry of [...item.batch.views, ...item.batch.clicks, ...item.batch.errors]) {
      const page = pageOf(entry.url)
      entry.page = page.key
      seen.set(page.key, page)
    }
    item.pages = [...seen.values()]
  }

  /** The item to store, or why a signals body is none. */
  function toIngestItem(item: WriteItem): IngestItem | { invalid: string } {
    // A transferred ArrayBuffer arrives as a plain ArrayBuffer or Uint8Array; the store and the parser want a view.
    const body = item.body instanceof Uint8Array ? item.body : new Uint8Array(item.body as ArrayBuffer)
    if (item.kind === 'chunk') return { ...item, body }
    let parsed: ReturnType<typeof parseSignals>
    try {
      parsed = parseSignals(body, item.receivedAt)
    } catch {
      // Whatever a hostile body does to the parser stays with that body: a throw here would fail its batch-mates too.
      return { invalid: 'The body is not a signals batch.' }
    }
    if (!parsed.ok) return { invalid: parsed.error }
    return { kind: 'signals', projectId: item.projectId, receivedAt: item.receivedAt, batch: parsed.batch }
  }

  return async function write(task: WriteTask): Promise<WriteResult> {
    const outcomes: WriteOutcome[] = []
    const items: IngestItem[] = []
    const stored: number[] = []
    task.items.forEach((raw, i) => {
      const item = toIngestItem(raw)
      if ('invalid' in item) return void (outcomes[i] = item)
      assignPages(item)
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
}
