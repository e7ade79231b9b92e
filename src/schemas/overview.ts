/**
 * JSON Schemas of overview.get (issue 35): a project's figures over a period,
 * their change against the period before, a series of hour or day buckets,
 * and the pages with the most sessions with each kind of friction.
 */
import { projectId } from './control.js'

/** The longest period: a quarter, so the previous period and the series stay a few hundred buckets. */
export const OVERVIEW_MAX_DAYS = 92
/** The most hourly buckets one answer holds: 31 days of them. */
export const OVERVIEW_MAX_HOURS = 31 * 24
/** Periods up to this many hours default to hourly buckets; longer ones to daily. */
export const OVERVIEW_HOURLY_UNTIL_HOURS = 48
export const OVERVIEW_TOP_DEFAULT = 5
export const OVERVIEW_TOP_MAX = 20

const epochMs = { type: 'integer', format: 'int64', minimum: 0, maximum: 8_640_000_000_000_000 } as const
const frictionKinds = ['rage', 'dead', 'errorClick', 'quickBack', 'jsError'] as const

export const overviewBody = {
  type: 'object',
  additionalProperties: false,
  required: ['projectId'],
  properties: {
    projectId,
    since: { ...epochMs, description: 'Epoch ms, inclusive; rounded down to its hour (its UTC day with `bucket: day`). Default: 7 days before `until`.' },
    until: { ...epochMs, description: `Epoch ms, exclusive; rounded up likewise. Default: now. At most ${OVERVIEW_MAX_DAYS} days after \`since\`.` },
    bucket: {
      type: 'string',
      enum: ['hour', 'day'],
      description: `The series' buckets: hours (at most ${OVERVIEW_MAX_HOURS} of them) or UTC days. Default: hours for periods up to ${OVERVIEW_HOURLY_UNTIL_HOURS} hours, else days.`,
    },
    device: { type: 'string', enum: ['mobile', 'tablet', 'desktop'], description: 'Sessions whose first viewport was under 768 px, 768-1023 px, 1024 px and over. Absent: every session.' },
    page: {
      type: 'string',
      minLength: 1,
      maxLength: 2000,
      description: 'Only the sessions with activity on this page, counted by what they did there: its key from pages.list, its display path (that path on every host, at most 100 of them: more is 400 invalid_request), or a URL, grouped under the project\'s rules.',
    },
    top: { type: 'integer', minimum: 1, maximum: OVERVIEW_TOP_MAX, description: `Pages per friction kind in \`topPages\`. Default ${OVERVIEW_TOP_DEFAULT}.` },
  },
} as const

const figure = { type: 'number', nullable: true } as const
const metric = {
  type: 'object',
  required: ['value', 'previous', 'change'],
  properties: {
    value: { ...figure, description: 'Over the period; null where it has no sessions to average over.' },
    previous: { ...figure, description: 'Over the period of the same length just before.' },
    change: { ...figure, description: 'Counts and averages: the relative change (0.1 is 10% more). Shares: the difference (0.01 is one point more). Null without a previous value.' },
  },
} as const

const METRIC_DESCRIPTIONS = {
  sessions: 'Sessions that started in the period.',
  visitors: 'Distinct visitors among them (a HyperLogLog estimate, within about 3%).',
  pagesPerSession: 'Page views per session.',
  activeMs: 'Active time per session, ms (the tab visible and focused).',
  scrollPct: 'Average deepest scroll of a page view, percent of the page.',
  rage: 'Share of sessions with a rage click.',
  dead: 'Share of sessions with a dead click.',
  errorClick: 'Share of sessions with a click followed by a JavaScript error.',
  quickBack: 'Share of sessions that left a page straight back to the one before.',
  jsError: 'Share of sessions with a JavaScript error.',
} as const

const metricIds = ['sessions', 'visitors', 'pagesPerSession', 'activeMs', 'scrollPct', ...frictionKinds] as const

const topPage = {
  type: 'object',
  required: ['page', 'path', 'sessions', 'withFriction', 'share'],
  properties: {
    page: { type: 'string', description: 'Page key: pass it as `page` to heatmap, sessions.list or friction.list.' },
    path: { type: 'string', description: 'Display path.' },
    sessions: { type: 'integer', minimum: 0, description: 'Sessions with activity on the page in the period.' },
    withFriction: { type: 'integer', minimum: 0, description: 'Of those, sessions with this kind of friction on the page.' },
    share: { type: 'number', minimum: 0, maximum: 1 },
  },
} as const

export const overviewAnswer = {
  type: 'object',
  required: ['since', 'until', 'bucket', 'previous', 'metrics', 'series', 'topPages'],
  properties: {
    since: { ...epochMs, description: 'Start of the period read (rounded down to the bucket).' },
    until: { ...epochMs, description: 'End of the period read (rounded up to the bucket).' },
    bucket: { type: 'string', enum: ['hour', 'day'] },
    device: { type: 'string', enum: ['mobile', 'tablet', 'desktop'] },
    page: { type: 'string', description: 'The page asked for.' },
    pages: { type: 'array', items: { type: 'string' }, description: 'Page keys it resolved to.' },
    previous: { type: 'object', required: ['since', 'until'], properties: { since: epochMs, until: epochMs } },
    metrics: {
      type: 'object',
      required: metricIds,
      properties: {
        sessions: { ...metric, description: METRIC_DESCRIPTIONS.sessions },
        visitors: { ...metric, description: METRIC_DESCRIPTIONS.visitors },
        pagesPerSession: { ...metric, description: METRIC_DESCRIPTIONS.pagesPerSession },
        activeMs: { ...metric, description: METRIC_DESCRIPTIONS.activeMs },
        scrollPct: { ...metric, description: METRIC_DESCRIPTIONS.scrollPct },
        rage: { ...metric, description: METRIC_DESCRIPTIONS.rage },
        dead: { ...metric, description: METRIC_DESCRIPTIONS.dead },
        errorClick: { ...metric, description: METRIC_DESCRIPTIONS.errorClick },
        quickBack: { ...metric, description: METRIC_DESCRIPTIONS.quickBack },
        jsError: { ...metric, description: METRIC_DESCRIPTIONS.jsError },
      },
    },
    series: {
      type: 'object',
      description: '`t`: the start of each bucket (epoch ms); each metric: its value in each bucket, null where the bucket has no sessions.',
      required: ['t', ...metricIds],
      properties: {
        t: { type: 'array', items: epochMs },
        sessions: { type: 'array', items: figure },
        visitors: { type: 'array', items: figure },
        pagesPerSession: { type: 'array', items: figure },
        activeMs: { type: 'array', items: figure },
        scrollPct: { type: 'array', items: figure },
        rage: { type: 'array', items: figure },
        dead: { type: 'array', items: figure },
        errorClick: { type: 'array', items: figure },
        quickBack: { type: 'array', items: figure },
        jsError: { type: 'array', items: figure },
      },
    },
    topPages: {
      type: 'object',
      description: 'Per friction kind, the pages with the most sessions that had it there, most first.',
      required: [...frictionKinds],
      properties: {
        rage: { type: 'array', items: topPage },
        dead: { type: 'array', items: topPage },
        errorClick: { type: 'array', items: topPage },
        quickBack: { type: 'array', items: topPage },
        jsError: { type: 'array', items: topPage },
      },
    },
  },
} as const
