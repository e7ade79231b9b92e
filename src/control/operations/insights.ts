/**
 * Heatmaps, the element leaderboard, the friction feed and the page list
 * (documented extensions of section 4.3). Each reads aggregates kept
 * by page and hour (src/store/aggregates/, src/store/lmdb/derived-keys.ts), folded in behind ingest by the
 * fold thread and, for what is still pending, by the read itself first; a 30-day
 * query reads at most 720 buckets per page. Hour resolution shows in the answers: `since` and `until`
 * come back rounded out to whole hours (the friction feed, a list of events,
 * keeps exact times).
 */
import { HEAT_X_BINS, HEAT_Y_BIN_PX, hoursOf, HOUR_MS } from '../../store/insights.js'
import { elementsTopBody, frictionListBody, heatmapBody, pagesListBody, PAGES_LIST_DEFAULT } from '../../schemas/read.js'
import { elementsTopAnswer, frictionListAnswer, heatmapAnswer, pagesListAnswer } from '../../schemas/read-answers.js'
import type { Store } from '../../store/store.js'
import type { ApiKeyAuth } from '../auth.js'
import { decodeCursor, encodeCursor, foldBeforeRead, rangeOf, resolvePages, type Range } from '../reading.js'
import { rankedPages } from '../page-ranking.js'
import { operation, type Operation } from '../router.js'
import { ownedProject } from './projects.js'

/** The grid of the click kinds, as literals: the answer schema pins both values. */
const CLICK_BINS = { xBins: HEAT_X_BINS, yBinPx: HEAT_Y_BIN_PX } as const

/** The range the hourly buckets actually cover. */
function hourRange(range: Range): Range {
  const { from, to } = hoursOf(range.since, range.until)
  return { since: from * HOUR_MS, until: to * HOUR_MS }
}

export function insightOperations(store: Store, now: () => number = Date.now): Operation<ApiKeyAuth>[] {
  return [
    operation({
      operationId: 'getHeatmap',
      method: 'POST',
      route: '/cli/heatmap',
      credential: 'apiKey',
      minRole: 'viewer',
      summary: `A page's click, rage-click or dead-click heatmap (${HEAT_X_BINS} columns across the viewport by ${HEAT_Y_BIN_PX} px rows of the document), or its scroll map (share of views reaching each depth); optionally one device class. Default range: the last 30 days.`,
      body: heatmapBody,
      response: heatmapAnswer,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body, read }) {
        const b = body
        const project = ownedProject(store, auth, b.projectId)
        await foldBeforeRead(read)
        const range = rangeOf(b, now())
        const pages = resolvePages(store, project, b.page)
        const result = await read('heatmap', project.id, { ...range, pages, kind: b.kind, device: b.device })
        const head = { page: b.page, pages, ...(b.device ? { device: b.device } : {}), ...hourRange(range) }
        if (result.kind === 'scroll') return { ...head, ...result }
        return { ...head, ...result, ...CLICK_BINS }
      },
    }),
    operation({
      operationId: 'listTopElements',
      method: 'POST',
      route: '/cli/elements.top',
      credential: 'apiKey',
      minRole: 'viewer',
      summary: 'The most clicked elements (by selector) of a page or of the whole project, with label, tag, rage, dead and error-click counts and their share of the page\'s clicks.',
      body: elementsTopBody,
      response: elementsTopAnswer,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body, read }) {
        const b = body
        const project = ownedProject(store, auth, b.projectId)
        await foldBeforeRead(read)
        const range = rangeOf(b, now())
        const pages = b.page === undefined ? undefined : resolvePages(store, project, b.page)
        const elements = await read('topElements', project.id, { ...range, pages, limit: b.limit ?? 20 })
        return { ...hourRange(range), elements }
      },
    }),
    operation({
      operationId: 'listFriction',
      method: 'POST',
      route: '/cli/friction.list',
      credential: 'apiKey',
      minRole: 'viewer',
      summary: 'The friction feed, newest first: rage, dead and error clicks and quick backs, and JavaScript errors grouped by message with counts and first and last seen; each with the session key and time to open the replay at. Follow nextCursor; the first answer pins `until`, so the answers that follow do not shift as new signals arrive.',
      body: frictionListBody,
      response: frictionListAnswer,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body, read }) {
        const b = body
        const project = ownedProject(store, auth, b.projectId)
        await foldBeforeRead(read)
        const cursor = b.cursor ? decodeCursor(b.cursor, { t: 'number', i: 'string', u: 'number', s: 'number' }) : undefined
        // Later answers keep the window of the first, whose `until` defaulted to the time it was asked.
        const range = cursor ? { since: cursor.s, until: cursor.u } : rangeOf(b, now())
        const pages = b.page === undefined ? undefined : resolvePages(store, project, b.page)
        const feed = await read('listFriction', project.id, {
          ...range,
          pages,
          sessionKey: b.sessionKey,
          limit: b.limit ?? 50,
          after: cursor && { ts: cursor.t, id: cursor.i },
        })
        return {
          items: feed.items,
          nextCursor: feed.next ? encodeCursor({ t: feed.next.ts, i: feed.next.id, u: range.until, s: range.since }) : null,
        }
      },
    }),
    operation({
      operationId: 'listPages',
      method: 'POST',
      route: '/cli/pages.list',
      credential: 'apiKey',
      minRole: 'viewer',
      summary:
        'The pages with activity in the range, most viewed first: sessions, views, average active time and scroll depth, exit and quick-back rates, JavaScript errors, clicks; ' +
        'then, with zero counts, the pages first seen in the range that have no signals in it (known from recordings alone, say). ' +
        `At most \`limit\` (default ${PAGES_LIST_DEFAULT}) per answer: follow nextCursor; the first answer pins the range. \`search\` keeps the pages whose key contains it. ` +
        'Pages past the project\'s cap (MAX_PAGES_PER_PROJECT) count under the page `(other)`.',
      body: pagesListBody,
      response: pagesListAnswer,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body, turn, read }) {
        const b = body
        const project = ownedProject(store, auth, b.projectId)
        await foldBeforeRead(read)
        const cursor = b.cursor ? decodeCursor(b.cursor, { o: 'number', u: 'number', s: 'number' }) : undefined
        // Later answers keep the range of the first, whose `until` defaulted to the time it was asked.
        const range = cursor ? { since: cursor.s, until: cursor.u } : rangeOf(b, now())
        const rows = await rankedPages(store, read, project.id, range, b.search, cursor === undefined, turn)
        const offset = cursor?.o ?? 0
        const end = offset + (b.limit ?? PAGES_LIST_DEFAULT)
        return {
          ...hourRange(range),
          pages: rows.slice(offset, end),
          nextCursor: end < rows.length ? encodeCursor({ o: end, u: range.until, s: range.since }) : null,
        }
      },
    }),
  ]
}

