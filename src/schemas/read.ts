/**
 * JSON Schemas of the read API's requests (documented extensions of section
 * 4.3; the answers are in read-answers.ts): sessions and recordings,
 * heatmaps, the element leaderboard, the friction feed and the page list.
 * Request bodies refuse unknown members: a misspelt filter would otherwise
 * answer unfiltered data without a word.
 */
import { MAX_FOUND_CONSOLE, MAX_FOUND_ELEMENTS, MAX_FOUND_ERRORS, MAX_FOUND_PATHS, MAX_FOUND_REFERRERS, MAX_FOUND_REQUESTS, MAX_FOUND_TEXT } from '../store/aggregates/search.js'
import { projectId } from './control.js'

export const epochMs = { type: 'integer', format: 'int64', minimum: 0, maximum: 8_640_000_000_000_000 } as const
const since = { ...epochMs, description: 'Epoch ms, inclusive. Default: 30 days before `until`.' } as const
const until = { ...epochMs, description: 'Epoch ms, exclusive. Default: now.' } as const
const sessionKey = { type: 'string', minLength: 1, maxLength: 256, description: 'A session key (`sessionKey` in sessions.list).' } as const
const cursor = { type: 'string', minLength: 1, maxLength: 1000, pattern: '^[A-Za-z0-9_-]+$', description: 'The `nextCursor` of the previous answer; send the same filters with it.' } as const
const page = {
  type: 'string',
  minLength: 1,
  maxLength: 2000,
  description: 'A page: its key from pages.list (`shop.test/{tenant}/settings/:id`), its display path (`/{tenant}/settings/:id`: that path on every host, at most 100 of them: more is 400 invalid_request), or a URL, grouped under the project\'s rules.',
} as const
const limit = (max: number, fallback: number) => ({ type: 'integer', minimum: 1, maximum: max, description: `Default ${fallback}.` }) as const
const device = { type: 'string', enum: ['mobile', 'tablet', 'desktop'], description: 'Viewport width under 768 px, 768-1023 px, 1024 px and over. Absent: every view and click, those without a width included.' } as const

const strict = { type: 'object', additionalProperties: false } as const

/** pages.list: rows per answer by default and at most; 500 rows are about 150 KB of JSON. */
export const PAGES_LIST_DEFAULT = 100
export const PAGES_LIST_MAX = 500

// ---- requests ----

export const sessionsListBody = {
  ...strict,
  required: ['projectId'],
  properties: {
    projectId,
    since: { ...epochMs, description: 'Sessions that started at or after this time (epoch ms).' },
    until: { ...epochMs, description: 'Sessions that started before this time (epoch ms).' },
    page: { ...page, description: `Sessions that viewed this page. ${page.description}` },
    selector: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      description: 'With `page`: sessions that clicked the element with this selector on that page (a `selector` of elements.list). Needs `page`.',
    },
    userId: { type: 'string', minLength: 1, maxLength: 256, description: 'Sessions identified with this user id.' },
    accountId: { type: 'string', minLength: 1, maxLength: 256, description: 'Sessions identified with this account id.' },
    minDurationMs: { type: 'integer', minimum: 0, maximum: 8_640_000_000_000_000 },
    hasErrors: { type: 'boolean', description: 'true: sessions with at least one JavaScript error; false: sessions with none.' },
    hasRage: { type: 'boolean', description: 'true: sessions with at least one rage click; false: sessions with none.' },
    hasConsoleErrors: { type: 'boolean', description: 'true: sessions whose recording has a console error (console capture); false: sessions with none.' },
    hasFailedRequests: { type: 'boolean', description: 'true: sessions whose recording has a request that failed or answered 500 or more (network capture); false: sessions with none.' },
    visited: {
      type: 'string',
      minLength: 1,
      maxLength: 2000,
      description: `Sessions that visited a URL whose path matches this pattern, in the path rules' syntax: literal segments, \`{name}\` for any one segment, a trailing \`*\` for any deeper path (\`/settings/{id}/*\`). A session's first ${MAX_FOUND_PATHS} paths are searchable.`,
    },
    clicked: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      description: `Sessions that clicked an element whose label or selector (as elements.list names it) contains this text, ignoring case. A session's first ${MAX_FOUND_ELEMENTS} elements are searchable.`,
    },
    error: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      description: `Sessions with a JavaScript error whose message contains this text, ignoring case. A session's first ${MAX_FOUND_ERRORS} messages are searchable, each its first ${MAX_FOUND_TEXT} characters.`,
    },
    console: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      description: `Sessions whose recording has a console error or warning containing this text, ignoring case (console capture; the message as the recording holds it, masked values starred). A session's first ${MAX_FOUND_CONSOLE} distinct messages are searchable, each its first ${MAX_FOUND_TEXT} characters.`,
    },
    request: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      description: `Sessions whose recording has a request that failed or answered 500 or more whose \`METHOD url status\` contains this text, ignoring case (network capture; \`GET https://api.test/cart 503\`, \`failed\` for a network error; the URL as the recording holds it). A session's first ${MAX_FOUND_REQUESTS} distinct requests are searchable, each its first ${MAX_FOUND_TEXT} characters.`,
    },
    referrer: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      description: `Sessions that came from another site whose origin (scheme, host and port: the tracker sends nothing of the path or query) contains this text, ignoring case: \`google\`, \`https://news.example\`. A path, query or fragment is refused, as it can never match. A session's first ${MAX_FOUND_REFERRERS} referrers are searchable.`,
    },
    live: {
      type: 'boolean',
      description: 'true: only sessions in progress, whose last chunk arrived within the last 60 seconds, most recent first, each with `live` (when it last sent). Takes `limit` and no other filter or cursor. In the cluster mode, sessions in progress on any node.',
    },
    device: { ...device, description: 'Sessions on this device class: from the recording\'s viewport width, else the first page view\'s (under 768 px mobile, 768-1023 px tablet, 1024 px and over desktop).' },
    limit: limit(200, 50),
    cursor,
  },
} as const

export const sessionBody = {
  ...strict,
  required: ['projectId', 'sessionKey'],
  properties: { projectId, sessionKey },
} as const

/** sessions.follow: a session to follow as it is recorded. */
export const sessionFollowBody = {
  ...strict,
  required: ['projectId', 'sessionKey'],
  properties: {
    projectId,
    sessionKey,
    maxSeconds: { type: 'integer', minimum: 10, maximum: 3600, description: 'End the feed after this many seconds (default and most: 3600); a client that wants more follows again.' },
  },
} as const

/** sessions.events: a session, and optionally how many bytes of events the caller wants at most. */
export const sessionEventsBody = {
  ...strict,
  required: ['projectId', 'sessionKey'],
  properties: {
    projectId,
    sessionKey,
    maxBytes: {
      type: 'integer',
      minimum: 1024,
      maximum: 2_147_483_647,
      description: 'Stop the answer before it passes this many bytes, after the last whole event that fits; a `svc.answer_truncated` custom event (type 5) then ends the array. No limit when absent.',
    },
    from: {
      ...epochMs,
      description: 'Only the part of the recording from this time (epoch ms): the answer starts at the last checkpoint chunk (a full snapshot) whose first event is at or before it, so it replays on its own. From the start when absent, or when no checkpoint precedes it.',
    },
    until: { ...epochMs, description: 'Only the part before this time (epoch ms): chunks whose first event is later are left out. To the end when absent.' },
  },
} as const

export const sessionChunkBody = {
  ...strict,
  required: ['projectId', 'sessionKey', 'seq'],
  properties: { projectId, sessionKey, seq: { type: 'integer', minimum: 0, maximum: 2_147_483_647 } },
} as const

export const heatmapBody = {
  ...strict,
  required: ['projectId', 'page', 'kind'],
  properties: {
    projectId,
    page,
    kind: { type: 'string', enum: ['click', 'rage', 'dead', 'scroll'], description: '`click`: every click (rage, dead and error clicks included); `scroll`: the share of views that reached each depth.' },
    device,
    since,
    until,
  },
} as const

export const elementsTopBody = {
  ...strict,
  required: ['projectId'],
  properties: { projectId, page: { ...page, description: `Absent: every page. ${page.description}` }, since, until, limit: limit(500, 20) },
} as const

export const frictionListBody = {
  ...strict,
  required: ['projectId'],
  properties: {
    projectId,
    page: { ...page, description: `Absent: every page. ${page.description}` },
    sessionKey: { ...sessionKey, description: 'Only this session\'s friction (the replay\'s markers).' },
    since,
    until,
    limit: limit(500, 50),
    cursor,
  },
} as const

export const pagesListBody = {
  ...strict,
  required: ['projectId'],
  properties: {
    projectId,
    since,
    until,
    search: { type: 'string', minLength: 1, maxLength: 200, description: 'Only pages whose key (host and display path) contains this text, ignoring case.' },
    limit: limit(PAGES_LIST_MAX, PAGES_LIST_DEFAULT),
    cursor,
  },
} as const
