/** What the read operations share: time ranges, opaque cursors, and turning a `page` parameter into page keys. */
import { ApiError } from '../errors.js'
import { groupUrl, RulesCache } from '../grouping/group.js'
import type { ProjectRecord, Store } from '../store/store.js'
import type { Read } from './read-pool.js'

const DAY_MS = 24 * 60 * 60 * 1000
/** Default window of the aggregate reads: 30 days, the default retention, so 720 hourly buckets per page. */
export const DEFAULT_WINDOW_MS = 30 * DAY_MS

export interface Range {
  since: number
  until: number
}

/** since/until from a body, with their defaults; refuses an empty range. */
export function rangeOf(body: { since?: number; until?: number }, now: number): Range {
  const until = body.until ?? now
  const since = body.since ?? Math.max(0, until - DEFAULT_WINDOW_MS)
  if (since >= until) throw new ApiError('invalid_request', { error: 'since must be before until.', hint: 'Times are epoch milliseconds; since is inclusive, until exclusive.' })
  return { since, until }
}

/** Cursors are base64url JSON: opaque to clients, checked member by member when they come back. */
export function encodeCursor(value: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url')
}

export function decodeCursor<T extends Record<string, 'string' | 'number'>>(cursor: string, shape: T): { [K in keyof T]: T[K] extends 'string' ? string : number } {
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    value = undefined
  }
  const valid =
    typeof value === 'object' &&
    value !== null &&
    Object.entries(shape).every(([name, type]) => typeof (value as Record<string, unknown>)[name] === type && (type === 'string' || Number.isFinite((value as Record<string, number>)[name])))
  if (!valid) throw new ApiError('invalid_request', { error: 'The cursor is not one this endpoint gave.', hint: 'Send back the nextCursor of the previous answer unchanged, or omit it to start over.' })
  return value as { [K in keyof T]: T[K] extends 'string' ? string : number }
}

/**
 * Batches a read folds into the aggregates before it answers, at most. The
 * fold thread keeps the backlog below this unless ingest saturates the
 * machine; then reads show the aggregates a little behind rather than wait
 * for all of it.
 */
const READ_FOLD_LIMIT = 250
/**
 * Batches per transaction of that fold: a batch of 2,000 clicks on pages
 * never seen costs 50-200 ms to fold, and each transaction holds one reader
 * thread, in which the other organisations' reads wait their turn.
 */
const READ_FOLD_STEP = 4

/**
 * Folds what is pending first, so that a client reads the signals it has had
 * acknowledged. The fold runs in the read pool (src/control/read-pool.ts),
 * never on the control worker's loop, one transaction per call.
 */
export async function foldBeforeRead(read: Read): Promise<void> {
  for (let folded = 0; folded < READ_FOLD_LIMIT; ) {
    const step = await read('applyDerivations', READ_FOLD_STEP)
    folded += step
    if (step < READ_FOLD_STEP) return
  }
}

const rulesCache = new RulesCache(1000)

/**
 * Pages one display path may merge (the same path on that many hosts): each
 * is read bucket by bucket, and 100 of them over a quarter cost about what
 * the whole project's overview does (bench/RESULTS.md, "The longest read").
 */
export const MAX_MERGED_PAGES = 100

/**
 * The page keys a `page` parameter names: a page key as listed; else a
 * display path (`/{tenant}/settings/:id`), on every host that has it; else a
 * URL, grouped under the project's rules. A page the project never saw is
 * 404 not_found, like a missing project.
 */
export function resolvePages(store: Store, project: ProjectRecord, page: string): string[] {
  const known = new Set(store.listSignalPages(project.id))
  for (const record of store.listPages(project.id)) known.add(record.key)
  if (known.has(page)) return [page]
  const byPath = [...known].filter((key) => key.slice(key.indexOf('/')) === page && key.indexOf('/') !== -1)
  if (byPath.length > MAX_MERGED_PAGES) {
    throw new ApiError('invalid_request', {
      error: `The path ${page} names ${byPath.length} pages, one per host; a read merges at most ${MAX_MERGED_PAGES}.`,
      hint: 'Pass one page key from POST /cli/pages.list (host and path) instead of the path alone.',
    })
  }
  if (byPath.length > 0) return byPath.sort()
  const grouped = groupUrl(page, rulesCache.rulesFor(project.id, project.pathRules)).key
  if (known.has(grouped)) return [grouped]
  throw new ApiError('not_found', { error: 'No such page in this project.', hint: 'List the project\'s pages with POST /cli/pages.list; pass a page key, a display path or a URL.' })
}
