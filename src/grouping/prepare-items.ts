/**
 * What an ingest item needs before the store appends it: a signals body
 * parsed and validated (AJV), and page identity decided for the chunk's URL
 * and for each signal's URL under the project's rules as they are now. The
 * writer threads run it in the embedded mode; in the cluster mode the front
 * runs it before publishing, so every node applies the same page keys.
 */
import { parseSignals } from '../contract/signals-checks.js'
import type { WriteItem } from '../cluster/messages.js'
import type { IngestItem, PageRecord, Store } from '../store/store.js'
import { groupUrl, RulesCache } from './group.js'

export class ItemPreparer {
  private readonly rulesCache = new RulesCache()

  constructor(private readonly store: Pick<Store, 'getProject'>) {}

  /** The item to store, or why a signals body is none. */
  prepare(raw: WriteItem): IngestItem | { invalid: string } {
    const item = toIngestItem(raw)
    if ('invalid' in item) return item
    this.assignPages(item)
    return item
  }

  /**
   * Groups each distinct URL of an item once: a signals batch comes from one
   * page view or a few, so its dozens of clicks share a handful of URLs
   * (bench/micro.ts, "pages of a signals batch").
   */
  private pager(projectId: string, receivedAt: number): (url: string) => PageRecord {
    const rules = this.rulesCache.rulesFor(projectId, this.store.getProject(projectId)?.pathRules ?? [])
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

  private assignPages(item: IngestItem): void {
    const pageOf = this.pager(item.projectId, item.receivedAt)
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
}

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
