/**
 * The page cap: a project holds at most `max` pages (MAX_PAGES_PER_PROJECT,
 * src/config.ts), so that a client with the project's public key, which sits
 * in every recorded page, cannot grow the page index and the aggregates
 * without bound by sending distinct URLs (issue 28). A page already held goes
 * on counting as itself; a new one past the cap counts under the project's
 * `(other)` page, as elements past their cap count under `(other)`
 * (elements.ts). `(other)` itself is not counted against the cap.
 */
import type { PageRecord, SignalsRecord } from '../records.js'

/** Default cap: far above the pages a site's grouping rules leave, far below what a flood of URLs makes. */
export const DEFAULT_MAX_PAGES = 10_000

/** The key of the `(other)` page. Every grouped page key holds a `/` (group.ts), so none can be this one. */
export const OTHER_PAGE = '(other)'

/** Whether a page counts under `(other)`: it is not `held`, and `size` real pages are held already (the cap). */
export const countsAsOtherPage = (held: boolean, size: number, max: number): boolean => !held && size >= max

export function otherPageRecord(firstSeenAt: number): PageRecord {
  return { key: OTHER_PAGE, host: '', path: OTHER_PAGE, firstSeenAt }
}

/** Moves a batch's entries on the `refused` pages to `(other)`, so that whatever folds the stored batch counts them there. */
export function moveToOther(batch: SignalsRecord, refused: ReadonlySet<string>): void {
  for (const entries of [batch.views, batch.clicks, batch.errors] as { page?: string }[][]) {
    for (const entry of entries) if (entry.page !== undefined && refused.has(entry.page)) entry.page = OTHER_PAGE
  }
}
