/** Signal batches of one click each on one page, and how many clicks the aggregates count: the fold tests' fixture. */
import { groupUrl } from '../../src/grouping/group.js'
import type { ClickHeatmap } from '../../src/store/insights.js'
import type { IngestItem, Store } from '../../src/store/store.js'

export const NOW = Date.UTC(2026, 10, 20, 12)
const URL = 'https://shop.test/cart'
export const PAGE = groupUrl(URL, []).key
export const DAY = { since: NOW - 24 * 3600_000, until: NOW + 3600_000 }

/** Batch `n` of `projectId`: session `s<n>`, one click on #buy, received at NOW + n. */
export function oneClickBatch(projectId: string, n: number): IngestItem {
  return {
    kind: 'signals',
    projectId,
    receivedAt: NOW + n,
    batch: { sk: `s${n}`, vid: 'v', dropped: 0, views: [], errors: [], clicks: [{ url: URL, page: PAGE, ts: NOW + n, xRatio: 0.5, yDoc: 100, vw: 1440, selector: '#buy' }] },
  }
}

/** Clicks the aggregates hold for PAGE today. */
export const countedClicks = (store: Store, projectId: string) => (store.heatmap(projectId, { ...DAY, pages: [PAGE], kind: 'click' }) as ClickHeatmap).total
