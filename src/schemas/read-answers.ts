/**
 * JSON Schemas of the read API's answers (the requests are in read.ts): the
 * session list and its summaries, a recording's chunks and events, heatmaps,
 * elements, friction and pages.
 */
import { HEAT_X_BINS, HEAT_Y_BIN_PX, SCROLL_STEPS, SESSION_SCAN_BUDGET } from '../store/insights.js'
import { READ_LIMITS } from '../store/read-budget.js'
import { MAX_CHUNK_INFLATED_BYTES, MAX_EVENT_BYTES } from '../recordings/limits.js'
import { epochMs } from './read.js'

const count = { type: 'integer', minimum: 0 } as const
const ratio = { type: 'number', minimum: 0, maximum: 1, nullable: true } as const
const nextCursor = { type: 'string', nullable: true, description: 'Send it back as `cursor` for what follows; null at the end.' } as const

const identity = {
  type: 'object',
  properties: { userId: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' }, accountId: { type: 'string' } },
} as const

const sessionPage = {
  type: 'object',
  required: ['pageIndex', 'url', 'page'],
  properties: {
    pageIndex: { type: 'integer', minimum: 0 },
    url: { type: 'string' },
    page: { type: 'string', description: 'Page key.' },
  },
} as const

const nullableInt = { type: 'integer', minimum: 0, nullable: true } as const
const nullableMs = { ...epochMs, nullable: true } as const

/** What a recording is missing and why (src/recordings/completeness.ts). */
export const completenessSchema = {
  $id: 'Completeness',
  type: 'object',
  required: ['complete', 'recordingStartedAt', 'missing', 'missingChunks', 'dropped', 'refused', 'tabClosed', 'notReceived', 'excludedPages', 'omitted'],
  properties: {
    recordingStartedAt: { ...epochMs, description: 'The first recorded event, epoch ms: the replay\'s 0:00, from which the dashboard and the CLI tell the times of what is missing.' },
    complete: {
      type: 'boolean',
      description:
        'True when the recording holds every chunk the tracker recorded: no seq up to the highest stored or reported is missing, and the tracker reported no chunk lost. Page views the capture settings left out are listed in `missing` but do not make it false.',
    },
    missing: {
      type: 'array',
      description: 'What is missing, in time order (at most 50; `omitted` counts the rest).',
      items: {
        type: 'object',
        required: ['reason', 'chunks', 'fromSeq', 'toSeq', 'pageIndex', 'url', 'fromTs', 'untilTs'],
        properties: {
          reason: {
            type: 'string',
            enum: ['not_received', 'dropped', 'refused_too_large', 'tab_closed', 'excluded', 'before_trigger', 'sampled_out'],
            description:
              '`not_received`: seqs missing that no report explains (the service never saw them). `dropped`: the tracker gave them up (queue full during an outage, an event over the chunk cap, or sending failed after its retries). `refused_too_large`: the service answered 413 (over the chunk cap). `tab_closed`: sent as the tab closed and never arrived. `excluded`, `before_trigger`, `sampled_out`: a page view the capture settings left out.',
          },
          chunks: { ...nullableInt, description: 'Chunks missing; null for a page view left out.' },
          fromSeq: nullableInt,
          toSeq: nullableInt,
          pageIndex: nullableInt,
          url: { type: 'string', nullable: true },
          fromTs: { ...nullableMs, description: 'The last event before the gap (or the first lost event, when reported), epoch ms.' },
          untilTs: { ...nullableMs, description: 'The first event after the gap (or the last lost event; for tab_closed, when the tab closed), epoch ms.' },
        },
      },
    },
    missingChunks: { ...count, description: 'Chunks missing, all reasons.' },
    dropped: { ...count, description: 'Chunks the tracker dropped.' },
    refused: { ...count, description: 'Chunks refused as too large (413).' },
    tabClosed: { ...count, description: 'Chunks lost as the tab closed.' },
    notReceived: { ...count, description: 'Chunks missing for no reported reason.' },
    excludedPages: { ...count, description: 'Page views the capture settings left out (excluded, before the trigger, sampled out).' },
    omitted: { ...count, description: 'Missing parts not listed.' },
  },
} as const

/** A moment a search matched: the first time a session visited a path, clicked an element, hit an error, logged a console message, had a request fail or arrived from a referrer. */
const foundMoment = {
  type: 'object',
  required: ['ts', 'kind', 'label'],
  properties: {
    ts: { ...epochMs, description: 'When, epoch ms.' },
    kind: { type: 'string', enum: ['visit', 'click', 'error', 'console', 'request', 'referrer'] },
    label: { type: 'string', description: 'The path visited, the element clicked (`label (selector)`), the error\'s message, the console message, the failed request (`METHOD url status`) or the referrer\'s origin.' },
  },
} as const

export const sessionSummarySchema = {
  $id: 'SessionSummary',
  type: 'object',
  required: [
    'sessionKey', 'visitorId', 'startedAt', 'lastActivityAt', 'durationMs', 'activeMs', 'pageCount', 'pages', 'chunkCount', 'bytes',
    'eventCount', 'entryUrl', 'clicks', 'rage', 'dead', 'errorClicks', 'errors', 'purged', 'completeness',
  ],
  properties: {
    sessionKey: { type: 'string' },
    visitorId: { type: 'string' },
    identity,
    startedAt: { ...epochMs, description: 'Session start, epoch ms.' },
    lastActivityAt: { ...epochMs, description: 'Last recorded event, epoch ms.' },
    durationMs: { ...count, description: 'Last activity minus start.' },
    activeMs: { ...count, description: 'Time the tab was visible and focused, summed over the session\'s page views (from signals).' },
    pageCount: count,
    pages: { type: 'array', items: sessionPage, description: 'The page views of the recording, by page index (the first 500).' },
    chunkCount: count,
    bytes: { ...count, description: 'Recording bytes as received (compressed where the tracker compressed).' },
    eventCount: count,
    entryUrl: { type: 'string', nullable: true, description: 'URL of the first page view.' },
    viewport: { type: 'object', properties: { w: count, h: count } },
    clicks: count,
    rage: count,
    dead: count,
    errorClicks: count,
    errors: { ...count, description: 'JavaScript errors.' },
    consoleErrors: { ...count, description: 'Console errors in the recording (console capture).' },
    failedRequests: { ...count, description: 'Requests in the recording that failed or answered 500 or more (network capture).' },
    purged: { type: 'boolean', description: 'True once retention deleted the recording; metadata and signals stay.' },
    purgedAt: { ...epochMs, nullable: true },
    completeness: completenessSchema,
    match: { ...foundMoment, description: 'With a search (`visited`, `clicked`, `error`, `console`, `request`, `referrer`): the first moment that matched; the replay opens there (the dashboard\'s `?t=`).' },
    matches: { type: 'array', items: foundMoment, description: 'With a search: every moment that matched, in time order (each path, element, message, request or referrer at its first time).' },
    live: {
      type: 'object',
      required: ['lastChunkAt', 'agoMs'],
      properties: { lastChunkAt: { ...epochMs, description: 'When the service took its last chunk.' }, agoMs: { ...count, description: 'How long ago that was.' } },
      description: 'With `live: true`: the session is in progress.',
    },
  },
} as const

export const sessionsListAnswer = {
  type: 'object',
  required: ['sessions', 'nextCursor'],
  properties: {
    sessions: { type: 'array', items: sessionSummarySchema, description: `Newest first. A filtered answer may hold fewer than \`limit\` (even none) while \`nextCursor\` is set: a call examines at most ${SESSION_SCAN_BUDGET.toLocaleString('en')} sessions, and a search fewer (each session costs the texts of its record the search reads, ${READ_LIMITS.work.toLocaleString('en')} in all, and a call stops after ${READ_LIMITS.ms} ms).` },
    nextCursor,
  },
} as const

export const chunkInfoSchema = {
  $id: 'ChunkInfo',
  type: 'object',
  required: ['seq', 'pageIndex', 'url', 'firstTs', 'lastTs', 'eventCount', 'encoding', 'size'],
  properties: {
    seq: { type: 'integer', minimum: 0 },
    pageIndex: { type: 'integer', minimum: 0 },
    url: { type: 'string' },
    firstTs: epochMs,
    lastTs: epochMs,
    eventCount: count,
    encoding: { type: 'string', enum: ['gzip', 'json'] },
    size: { ...count, description: 'Bytes as received.' },
    receivedAt: epochMs,
    checkpoint: { type: 'boolean', description: 'The chunk starts with a full snapshot: a replay (and sessions.events with `from`) can start here.' },
    left: { type: 'boolean', description: 'The visitor left the site or closed the tab after this chunk (known only while the session was followed live: the tracker says so then).' },
    consoleErrors: { ...count, description: 'Console errors among the chunk\'s events, as the tracker counted them (console capture); absent when none.' },
    failedRequests: { ...count, description: 'Failed requests (status 0 or 500 and above) among the chunk\'s events (network capture); absent when none.' },
  },
} as const

export const sessionChunksAnswer = {
  type: 'object',
  required: ['chunks', 'purged', 'completeness'],
  properties: {
    chunks: { type: 'array', items: chunkInfoSchema, description: 'In seq order. Empty once retention purged the recording.' },
    purged: { type: 'boolean' },
    completeness: completenessSchema,
  },
} as const

export const sessionEventsAnswer = {
  type: 'array',
  description:
    `Every rrweb event of the recording in chunk order, as one JSON array (gzip chunks decompressed). Streamed: the answer can be large. Bounded: an event over ${MAX_EVENT_BYTES / 2 ** 20} MiB of JSON is replaced by a \`svc.event_dropped\` custom event (type 5), a gzip chunk is inflated to at most ${MAX_CHUNK_INFLATED_BYTES / 2 ** 20} MiB and the rest of it replaced by \`svc.chunk_cut\`, and \`maxBytes\` ends the answer early with \`svc.answer_truncated\`. Each marker is \`{"type":5,"timestamp":…,"data":{"tag":…,"payload":{…}}}\`.`,
  items: { type: 'object' },
} as const

export const sessionFollowAnswer = {
  type: 'string',
  description:
    'A feed that lasts, as newline-delimited JSON (application/x-ndjson): one rrweb event per line, first the recording from its last checkpoint, then each event as its chunk arrives (the tracker sends every 1-2 s while someone follows its session). Service lines are rrweb custom events (type 5): `svc.live` once the history is sent and every 15 s while the visitor sends nothing, `svc.live_ended` with `payload.reason` `left` (the visitor left the site or closed the tab), `idle` (nothing for 5 minutes), `limit` (`maxSeconds`) or `gone` (the recording was deleted). The bounds of sessions.events apply to each event.',
} as const

export const heatmapAnswer = {
  type: 'object',
  required: ['page', 'pages', 'kind', 'since', 'until'],
  properties: {
    page: { type: 'string', description: 'The page asked for.' },
    pages: { type: 'array', items: { type: 'string' }, description: 'Page keys it resolved to (merged).' },
    kind: { type: 'string', enum: ['click', 'rage', 'dead', 'scroll'] },
    device: { type: 'string', enum: ['mobile', 'tablet', 'desktop'] },
    since: { ...epochMs, description: 'Start of the first hour read (aggregates have hour resolution).' },
    until: { ...epochMs, description: 'End of the last hour read.' },
    xBins: { type: 'integer', enum: [HEAT_X_BINS], description: `Columns across the viewport width: one per ${1440 / HEAT_X_BINS} px of a 1440 px-wide page. Click kinds only.` },
    yBinPx: { type: 'integer', enum: [HEAT_Y_BIN_PX], description: 'Height of a row in document pixels. Click kinds only.' },
    total: { ...count, description: 'Clicks counted. Click kinds only.' },
    maxCount: { ...count, description: 'Highest count of one cell. Click kinds only.' },
    cells: {
      type: 'array',
      description: '[column, row, clicks] for each cell with clicks: the cell spans x from column/xBins to (column+1)/xBins of the width, y from row*yBinPx to (row+1)*yBinPx document px. Click kinds only.',
      items: { type: 'array', items: { type: 'integer', minimum: 0 }, minItems: 3, maxItems: 3 },
    },
    views: { ...count, description: 'Views that reported a scroll depth. Scroll only.' },
    reached: {
      type: 'array',
      minItems: SCROLL_STEPS,
      maxItems: SCROLL_STEPS,
      items: { type: 'number', minimum: 0, maximum: 1 },
      description: 'reached[d]: share of those views whose deepest scroll was at least d percent, d from 0 to 100. Scroll only.',
    },
  },
} as const

export const elementsTopAnswer = {
  type: 'object',
  required: ['elements', 'since', 'until'],
  properties: {
    since: epochMs,
    until: epochMs,
    elements: {
      type: 'array',
      description: 'Most clicked first. A rage click (its repeats collapsed) counts once.',
      items: {
        type: 'object',
        required: ['page', 'selector', 'clicks', 'rage', 'dead', 'errors', 'share'],
        properties: {
          page: { type: 'string', description: 'Page key.' },
          selector: { type: 'string', description: '`(other)` gathers the clicks beyond 2,000 distinct selectors in one page and hour.' },
          label: { type: 'string' },
          tag: { type: 'string' },
          clicks: count,
          rage: count,
          dead: count,
          errors: { ...count, description: 'Clicks followed by a JavaScript error.' },
          share: { type: 'number', minimum: 0, maximum: 1, description: 'Its clicks over every click on its page in the range.' },
        },
      },
    },
  },
} as const

export const frictionItemSchema = {
  $id: 'FrictionItem',
  type: 'object',
  required: ['kind', 'ts', 'id', 'sessionKey', 'page', 'url'],
  properties: {
    kind: { type: 'string', enum: ['rage', 'dead', 'errorClick', 'quickBack', 'jsError'] },
    ts: { ...epochMs, description: 'When it happened: open the replay of `sessionKey` there. A JS error group: its latest occurrence in the range.' },
    id: { type: 'string', description: 'Stable identity of the item.' },
    sessionKey: { type: 'string' },
    page: { type: 'string', description: 'Page key.' },
    url: { type: 'string' },
    selector: { type: 'string' },
    label: { type: 'string' },
    tag: { type: 'string' },
    xRatio: { type: 'number' },
    yDoc: { type: 'number' },
    n: { type: 'integer', description: 'Rage clicks: the repeats collapsed into this one.' },
    message: { type: 'string', description: 'JS errors.' },
    count: { ...count, description: 'JS errors: occurrences of this message in the range.' },
    firstSeen: epochMs,
    lastSeen: epochMs,
  },
} as const

export const frictionListAnswer = {
  type: 'object',
  required: ['items', 'nextCursor'],
  properties: {
    items: { type: 'array', items: frictionItemSchema, description: 'Newest first: rage, dead and error clicks and quick backs one by one; JavaScript errors one item per message.' },
    nextCursor,
  },
} as const

export const pagesListAnswer = {
  type: 'object',
  required: ['pages', 'since', 'until', 'nextCursor'],
  properties: {
    since: epochMs,
    until: epochMs,
    pages: {
      type: 'array',
      description:
        'Pages with any view, click or error in the range, most viewed first; then, with zero counts, the pages first seen in the range without any (known from recordings alone, say). ' +
        'At most `limit` per answer: follow `nextCursor`. A project holds at most MAX_PAGES_PER_PROJECT pages; signals on pages past it count under the page `(other)`.',
      items: {
        type: 'object',
        required: ['page', 'key', 'host', 'sessions', 'views', 'avgActiveMs', 'avgScrollPct', 'exitRate', 'quickBackRate', 'errors', 'clicks'],
        properties: {
          page: { type: 'string', description: 'Display form: `/{tenant}/settings/:id`.' },
          key: { type: 'string', description: 'Page key (host and display path): what the other calls take as `page`.' },
          host: { type: 'string' },
          sessions: { ...count, description: 'Sessions whose first view of the page falls in the range.' },
          views: count,
          avgActiveMs: { type: 'integer', minimum: 0, nullable: true },
          avgScrollPct: { type: 'number', minimum: 0, maximum: 100, nullable: true },
          exitRate: ratio,
          quickBackRate: ratio,
          errors: { ...count, description: 'JavaScript errors.' },
          clicks: count,
        },
      },
    },
    nextCursor,
  },
} as const
