/**
 * pages.list's ranking over a project of up to MAX_PAGES_PER_PROJECT pages,
 * without holding the control worker's loop: the pages' buckets are summed in
 * slices, and the organisation's turn is passed between them
 * (src/control/turns.ts), so that other organisations' requests are answered
 * meanwhile (issue 28: one ranking of 218,206 pages held every other request
 * for 13 s). A ranking is kept a
 * minute for the answers that follow the first, whose cursor pins its range
 * as friction.list's does.
 */
import type { PageInsight } from '../store/insights.js'
import type { PageRecord, Store } from '../store/store.js'
import type { Range } from './reading.js'
import type { Turn } from './turns.js'
import type { Read } from './read-pool.js'

/** Pages summed per turn of the loop: each reads up to 30 daily and 48 hourly buckets, 100 of them take 10-40 ms here. */
const SLICE_PAGES = 100
/** Records of the page index read per turn. */
const INDEX_SLICE = 1_000
const RANKINGS_KEPT = 8
const RANKING_TTL_MS = 60_000

/** A page as pages.list answers it: its insight row, keyed by the page's full key rather than its path. */
export type PageRow = Omit<PageInsight, 'path'> & { key: string }

const rankings = new Map<string, { at: number; rows: PageRow[] }>()

/**
 * Every page of the project matching `search` in pages.list's order; `fresh`
 * computes it anew (a first answer), otherwise a ranking of the last minute
 * for the same project, range and search serves (the answers after it).
 */
export async function rankedPages(store: Store, read: Read, projectId: string, range: Range, search: string | undefined, fresh: boolean, turn: Turn): Promise<PageRow[]> {
  const id = JSON.stringify([projectId, range.since, range.until, search ?? null])
  const kept = rankings.get(id)
  if (!fresh && kept && Date.now() - kept.at < RANKING_TTL_MS) return kept.rows
  const matches = matcher(search)
  const active: PageRow[] = []
  for (let keys: string[] = [], after: string | undefined; ; after = keys.at(-1)) {
    keys = store.listSignalPages(projectId, { after, limit: SLICE_PAGES })
    const pages = keys.filter(matches)
    if (pages.length > 0) for (const { page, path, ...rest } of await read('pageInsights', projectId, { ...range, pages })) active.push({ page: path, key: page, ...rest })
    if (keys.length < SLICE_PAGES) break
    await turn.pass()
  }
  active.sort((a, b) => b.views - a.views || b.clicks - a.clicks || (a.key < b.key ? -1 : 1))
  const known: PageRecord[] = []
  for (let records: PageRecord[] = [], after: string | undefined; ; after = records.at(-1)?.key) {
    await turn.pass()
    records = store.listPages(projectId, { after, limit: INDEX_SLICE })
    for (const record of records) if (matches(record.key)) known.push(record)
    if (records.length < INDEX_SLICE) break
  }
  const rows = withQuietPages(active, known, range)
  for (const [key, ranking] of rankings) if (Date.now() - ranking.at >= RANKING_TTL_MS) rankings.delete(key)
  if (rankings.size >= RANKINGS_KEPT) rankings.delete(rankings.keys().next().value!)
  rankings.set(id, { at: Date.now(), rows })
  return rows
}

function matcher(search: string | undefined): (key: string) => boolean {
  if (search === undefined) return () => true
  const needle = search.toLowerCase()
  return (key) => key.toLowerCase().includes(needle)
}

/**
 * A client that sends only recordings (or a page with recordings but no views
 * yet) still sees its pages: every page of the page index first seen in the
 * range and without signals in it is listed after the active ones.
 */
function withQuietPages(active: PageRow[], known: PageRecord[], range: Range): PageRow[] {
  const listed = new Set(active.map((p) => p.key))
  const quiet = known
    .filter((record) => !listed.has(record.key) && record.firstSeenAt >= range.since && record.firstSeenAt <= range.until)
    .sort((a, b) => (a.key < b.key ? -1 : 1))
    .map((record) => ({
      page: record.path,
      key: record.key,
      host: record.host,
      sessions: 0,
      views: 0,
      avgActiveMs: null,
      avgScrollPct: null,
      exitRate: null,
      quickBackRate: null,
      errors: 0,
      clicks: 0,
    }))
  return [...active, ...quiet]
}
