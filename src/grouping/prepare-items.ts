/**
 * What an ingest item needs before the store appends it: a signals body
 * parsed and validated (AJV), and page identity decided for the chunk's URL
 * and for each signal's URL under the project's rules as they are now. The
 * writer threads run it in the embedded mode; in the cluster mode the front
 * runs it before publishing, so every node applies the same page keys. A
 * stylesheet comes checked by the front (src/recordings/styles.ts).
 */
import { parseSignals } from '../contract/signals-checks.js'
import type { WriteItem } from '../supervisor/messages.js'
import type { IngestItem, PageRecord, SignalsRecord, Store } from '../store/store.js'
import { groupUrl, RulesCache, type Page } from './group.js'
import type { CompiledRule } from './rules.js'

/** Each project's rules as read for one batch. */
type BatchRules = Map<string, CompiledRule[]>

/** URLs whose pages a preparer remembers, all projects together (at most a few MB of 2,000-character URLs): past it, it starts over. */
const PAGES_REMEMBERED = 1_000

export class ItemPreparer {
  private readonly rulesCache = new RulesCache()
  /**
   * Pages already decided, per rule set (RulesCache hands out the same array
   * until a project's rules change, so a change starts afresh): a site's
   * traffic names the same few pages over and over.
   */
  private pagesByRules = new WeakMap<CompiledRule[], Map<string, Page>>()
  private pagesRemembered = 0

  constructor(private readonly store: Pick<Store, 'getProject'>) {}

  /** The item to store, or why a signals body is none. */
  prepare(raw: WriteItem, batchRules?: BatchRules): IngestItem | { invalid: string } {
    const item = toIngestItem(raw)
    if ('invalid' in item) return item
    this.assignPages(item, batchRules)
    return item
  }

  /** Prepares the items of one batch, reading each project's record once for all of them rather than once per item. */
  forBatch(): (raw: WriteItem) => IngestItem | { invalid: string } {
    const batchRules: BatchRules = new Map()
    return (raw) => this.prepare(raw, batchRules)
  }

  private rulesOf(projectId: string, batchRules?: BatchRules): CompiledRule[] {
    let rules = batchRules?.get(projectId)
    if (!rules) {
      rules = this.rulesCache.rulesFor(projectId, this.store.getProject(projectId)?.pathRules ?? [])
      batchRules?.set(projectId, rules)
    }
    return rules
  }

  /**
   * Groups each distinct URL once while the project's rules hold: a signals
   * batch's dozens of clicks share a handful of URLs, and a site's traffic
   * the same few pages (bench/micro.ts, "pages of a signals batch").
   */
  private pagesOf(projectId: string, batchRules?: BatchRules): (url: string) => Page {
    const rules = this.rulesOf(projectId, batchRules)
    let pages = this.pagesByRules.get(rules)
    if (!pages) this.pagesByRules.set(rules, (pages = new Map()))
    const known = pages
    return (url) => {
      let page = known.get(url)
      if (!page) {
        known.set(url, (page = groupUrl(url, rules)))
        if (++this.pagesRemembered >= PAGES_REMEMBERED) {
          this.pagesByRules = new WeakMap()
          this.pagesRemembered = 0
        }
      }
      return page
    }
  }

  private assignPages(item: IngestItem, batchRules?: BatchRules): void {
    if (item.kind === 'style') return
    const pageOf = this.pagesOf(item.projectId, batchRules)
    if (item.kind === 'chunk') {
      if (item.meta.url) item.page = { ...pageOf(item.meta.url), firstSeenAt: item.receivedAt }
      return
    }
    // The item's distinct pages, each once: a batch's dozens of clicks share a handful of URLs.
    const seen = new Map<string, PageRecord>()
    const assign = (entries: Array<{ url: string; page?: string }>): void => {
      for (const entry of entries) {
        const page = pageOf(entry.url)
        entry.page = page.key
        if (!seen.has(page.key)) seen.set(page.key, { ...page, firstSeenAt: item.receivedAt })
      }
    }
    assign(item.batch.views)
    assign(item.batch.clicks)
    assign(item.batch.errors)
    item.pages = [...seen.values()]
  }
}

function toIngestItem(item: WriteItem): IngestItem | { invalid: string } {
  // A transferred ArrayBuffer arrives as a plain ArrayBuffer or Uint8Array; the store and the parser want a view.
  const body = item.body instanceof Uint8Array ? item.body : new Uint8Array(item.body as ArrayBuffer)
  if (item.kind === 'chunk') return { ...item, body }
  // A front checks a stylesheet before it is queued (styles.ts checkStyle, zlib off its loop); nothing else makes one.
  if (item.kind === 'style') return item.checked ? { ...item, body } : { invalid: 'The stylesheet was not checked.' }
  const parsed = item.batch ? { batch: item.batch } : parseSignalsBody(body, item.receivedAt)
  if ('invalid' in parsed) return parsed
  return { kind: 'signals', projectId: item.projectId, receivedAt: item.receivedAt, batch: parsed.batch }
}

/** A signals body parsed and checked, or why it is no batch. */
export function parseSignalsBody(body: Uint8Array, receivedAt: number): { batch: SignalsRecord } | { invalid: string } {
  let parsed: ReturnType<typeof parseSignals>
  try {
    parsed = parseSignals(body, receivedAt)
  } catch {
    // Whatever a hostile body does to the parser stays with that body: a throw here would fail its batch-mates too.
    return { invalid: 'The body is not a signals batch.' }
  }
  return parsed.ok ? { batch: parsed.batch } : { invalid: parsed.error }
}
