/**
 * overview.get (issue 35): a project's first screen as data. The store
 * answers from buckets its fold keeps (src/store/aggregates/overview.ts);
 * here the period, the bucket size and the page are checked against their
 * bounds, so that no request reads more than a quarter's buckets.
 */
import { ApiError } from '../../errors.js'
import { OTHER_PAGE } from '../../store/aggregates/pages.js'
import { HOUR_MS } from '../../store/insights.js'
import {
  OVERVIEW_HOURLY_UNTIL_HOURS,
  OVERVIEW_MAX_DAYS,
  OVERVIEW_MAX_HOURS,
  OVERVIEW_TOP_DEFAULT,
  overviewAnswer,
  overviewBody,
} from '../../schemas/overview.js'
import type { Store } from '../../store/store.js'
import type { ApiKeyAuth } from '../auth.js'
import { foldBeforeRead, resolvePages } from '../reading.js'
import { operation, type Operation } from '../router.js'
import { ownedProject } from './projects.js'

const DAY_MS = 24 * HOUR_MS
/** Default period: the last 7 days, the period a weekly look at a site compares. */
const DEFAULT_DAYS = 7

export function overviewOperations(store: Store, now: () => number = Date.now): Operation<ApiKeyAuth>[] {
  return [
    operation({
      operationId: 'getOverview',
      method: 'POST',
      route: '/cli/overview.get',
      credential: 'apiKey',
      minRole: 'viewer',
      summary:
        'A project\'s overview over a period: sessions, visitors, pages per session, active time, scroll depth, and the share of sessions with rage, dead and error clicks, quick backs and JavaScript errors; ' +
        'each with its value in the period before, a series of hour or day buckets, and per friction kind the pages with the most sessions that had it. ' +
        `Optionally one device class or one page. Default: the last ${DEFAULT_DAYS} days; at most ${OVERVIEW_MAX_DAYS} days, and ${OVERVIEW_MAX_HOURS} hourly buckets.`,
      body: overviewBody,
      response: overviewAnswer,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body, read }) {
        const b = body
        const project = ownedProject(store, auth, b.projectId)
        const until = b.until ?? now()
        const since = b.since ?? Math.max(0, until - DEFAULT_DAYS * DAY_MS)
        const bucket = b.bucket ?? (until - since <= OVERVIEW_HOURLY_UNTIL_HOURS * HOUR_MS ? 'hour' : 'day')
        checkPeriod(since, until, bucket)
        await foldBeforeRead(read)
        const pages = b.page === undefined ? undefined : resolvePages(store, project, b.page)
        const answer = await read('overview', project.id, { since, until, bucket, device: b.device, pages, top: b.top ?? OVERVIEW_TOP_DEFAULT })
        const topPages = Object.fromEntries(
          Object.entries(answer.topPages).map(([kind, rows]) => [kind, rows.map((row) => ({ ...row, path: displayPath(row.page) }))]),
        ) as { [K in keyof typeof answer.topPages]: ((typeof answer.topPages)[K][number] & { path: string })[] }
        return { ...answer, topPages, ...(b.device ? { device: b.device } : {}), ...(pages ? { page: b.page, pages } : {}) }
      },
    }),
  ]
}

function checkPeriod(since: number, until: number, bucket: 'hour' | 'day'): void {
  const hint = `Times are epoch ms; the period is at most ${OVERVIEW_MAX_DAYS} days, with at most ${OVERVIEW_MAX_HOURS} hourly buckets (ask for bucket: day beyond that).`
  if (since >= until) throw new ApiError('invalid_request', { error: 'since must be before until.', hint })
  if (until - since > OVERVIEW_MAX_DAYS * DAY_MS) throw new ApiError('invalid_request', { error: `The period is longer than ${OVERVIEW_MAX_DAYS} days.`, hint })
  const hours = Math.ceil(until / HOUR_MS) - Math.floor(since / HOUR_MS)
  if (bucket === 'hour' && hours > OVERVIEW_MAX_HOURS) throw new ApiError('invalid_request', { error: `Hourly buckets: the period spans ${hours} hours, more than ${OVERVIEW_MAX_HOURS}.`, hint })
}

/** `shop.test/{tenant}/cart` → `/{tenant}/cart`, as pages.list shows it; `(other)`, which has no host, as itself. */
function displayPath(page: string): string {
  if (page === OTHER_PAGE) return page
  const slash = page.indexOf('/')
  return slash === -1 ? '/' : page.slice(slash)
}
