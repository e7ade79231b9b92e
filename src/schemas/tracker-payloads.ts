/**
 * JSON Schemas of the ingest payloads (API contract, sections 2, 4.2 and 8).
 * AJV compiles these once at start-up (src/contract/validators.ts) and the OpenAPI
 * document embeds the same objects: nothing here is written twice.
 */

const int64 = { type: 'integer', format: 'int64' } as const
const epochMs = { type: 'integer', format: 'int64', minimum: 0, maximum: 8_640_000_000_000_000 } as const
const pixels = { type: 'integer', minimum: 0, maximum: 1_000_000 } as const
const shortText = (maxLength: number) => ({ type: 'string', maxLength }) as const

/** Members of the X-Svc-Meta header of POST /ingest. */
export const chunkMetaSchema = {
  $id: 'ChunkMeta',
  type: 'object',
  required: ['sk', 'vid', 'seq', 'encoding'],
  properties: {
    sk: { type: 'string', minLength: 1, maxLength: 256, description: 'Session key.' },
    vid: { type: 'string', minLength: 1, maxLength: 256, description: 'Visitor id.' },
    seq: { type: 'integer', minimum: 0, maximum: 2_147_483_647, description: 'Chunk sequence, strictly increasing within a session.' },
    pageIndex: { type: 'integer', minimum: 0, maximum: 100_000, description: 'Index of the page view within the session.' },
    url: { type: 'string', maxLength: 2000, description: 'Page URL.' },
    firstTs: { ...epochMs, description: 'First event time, epoch ms.' },
    lastTs: { ...epochMs, description: 'Last event time, epoch ms.' },
    eventCount: { type: 'integer', minimum: 0, maximum: 10_000_000 },
    encoding: { type: 'string', enum: ['gzip', 'json'] },
    checkpoint: { type: 'boolean', description: 'The chunk starts with a full snapshot (a Meta event, then the snapshot): a replay can start here without the chunks before it.' },
    leaving: { type: 'string', enum: ['site', 'page'], description: 'Sent by a tracker whose session is followed live, on the last chunk as its page goes away: `site` the visitor left the site or closed the tab, `page` another page of the site follows. The live feed ends on `site`.' },
    startedAt: { ...epochMs, description: 'Session start, epoch ms.' },
    viewport: {
      type: 'object',
      properties: { w: pixels, h: pixels },
      additionalProperties: false,
    },
    screen: {
      type: 'object',
      properties: { w: pixels, h: pixels, dpr: { type: 'number', minimum: 0, maximum: 16 } },
      additionalProperties: false,
    },
    consoleErrors: { type: 'integer', minimum: 0, maximum: 10_000_000, description: 'Console errors among the chunk\'s events (console capture).' },
    failedRequests: { type: 'integer', minimum: 0, maximum: 10_000_000, description: 'Requests among the chunk\'s events that failed (status 0) or answered 500 or more (network capture).' },
    identity: {
      type: 'object',
      properties: {
        userId: shortText(256),
        email: shortText(256),
        name: shortText(256),
        accountId: shortText(256),
      },
      additionalProperties: false,
    },
  },
} as const

export const viewSchema = {
  $id: 'SignalView',
  type: 'object',
  required: ['url', 'startedAt'],
  properties: {
    url: shortText(2000),
    startedAt: int64,
    title: shortText(256),
    vw: pixels,
    vh: pixels,
    docH: pixels,
    endedAt: int64,
    activeMs: { type: 'integer', minimum: 0 },
    maxScrollPct: { type: 'number', minimum: 0, maximum: 100 },
    exit: { type: 'boolean' },
    quickBack: { type: 'boolean' },
    referrer: {
      type: 'string',
      maxLength: 256,
      pattern: '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#\\s]+$',
      description: 'The origin (scheme, host and port: nothing of its path or query) of the other site the visitor came from, on the first view of a session only. Searchable by sessions.list `referrer`.',
    },
  },
} as const

export const clickSchema = {
  $id: 'SignalClick',
  type: 'object',
  required: ['url', 'ts', 'xRatio', 'yDoc'],
  properties: {
    url: shortText(2000),
    ts: int64,
    xRatio: { type: 'number', minimum: 0, maximum: 1 },
    yDoc: { type: 'number', minimum: 0 },
    vw: pixels,
    docH: pixels,
    selector: shortText(256),
    label: shortText(256),
    tag: shortText(40),
    interactive: { type: 'boolean' },
    kind: { type: 'string', enum: ['click', 'rage', 'dead', 'error'] },
    n: { type: 'integer', minimum: 1, maximum: 1000 },
  },
} as const

export const errorEntrySchema = {
  $id: 'SignalError',
  type: 'object',
  required: ['url', 'ts', 'message'],
  properties: {
    url: shortText(2000),
    ts: int64,
    message: shortText(256),
  },
} as const

/** A console message of the recording, for search (sessions.list `console`): the tracker sends the first few of each batch. */
export const consoleEntrySchema = {
  $id: 'SignalConsole',
  type: 'object',
  required: ['ts', 'text'],
  properties: {
    ts: int64,
    level: { type: 'string', enum: ['error', 'warn'] },
    text: { ...shortText(256), description: 'The message as the recording holds it (its arguments serialised, masked values starred), cut to 256 characters.' },
  },
} as const

/** A failed request of the recording (status 0, or 500 and over), for search (sessions.list `request`). */
export const requestEntrySchema = {
  $id: 'SignalRequest',
  type: 'object',
  required: ['ts', 'method', 'url'],
  properties: {
    ts: int64,
    method: shortText(16),
    url: { ...shortText(256), description: 'As the recording holds it: origin and path, the query only where the project allows it, masked values starred; cut to 256 characters.' },
    status: { type: 'integer', minimum: 0, maximum: 999, description: '0: the request failed (network error, blocked, aborted).' },
  },
} as const

const seq = { type: 'integer', minimum: 0, maximum: 2_147_483_647 } as const

/** Reports per batch: a tracker sends one per lost chunk or left-out page view, and a page view rarely has more than a few. */
export const MAX_LOSSES_PER_BATCH = 20

/** One report of what did not reach a recording (src/store/session-losses.ts keeps it on the session). */
export const recordingLossSchema = {
  $id: 'RecordingLoss',
  type: 'object',
  required: ['reason'],
  additionalProperties: false,
  properties: {
    reason: {
      type: 'string',
      enum: ['dropped', 'refused_too_large', 'tab_closed', 'excluded', 'before_trigger', 'sampled_out'],
      description:
        '`dropped`: the tracker gave the chunk up (its queue was full while the service could not be reached, one event was over the chunk cap, or sending failed after its retries). `tab_closed`: the chunks `seq` to `toSeq` were sent as the tab closed; any that never arrives was lost with the tab. `excluded`, `before_trigger`, `sampled_out`: the page view `pageIndex` was not recorded because of the capture settings (an excluded URL, a page before the session\'s first trigger URL, a session outside the sampling rate). `refused_too_large`: the service adds this itself when it answers 413 to a chunk whose meta names the session.',
    },
    seq: { ...seq, description: 'The chunk\'s seq, when it had taken one.' },
    toSeq: { ...seq, description: 'With `seq`: the last seq of a range.' },
    pageIndex: { type: 'integer', minimum: 0, maximum: 100_000 },
    url: { type: 'string', maxLength: 2000, description: 'The page view\'s URL.' },
    fromTs: { ...epochMs, description: 'First event time of what was lost, epoch ms.' },
    untilTs: { ...epochMs, description: 'Last event time of what was lost (for `tab_closed`: when the tab closed), epoch ms.' },
    events: { type: 'integer', minimum: 0, maximum: 10_000_000, description: 'Events lost.' },
    bytes: { type: 'integer', minimum: 0, maximum: 8_640_000_000_000_000, description: 'Bytes of the chunk, as sent.' },
  },
} as const

/** The whole batch as documented. At run time the envelope and each entry are validated apart, so that one bad entry is dropped alone. */
export const signalsBatchSchema = {
  $id: 'SignalsBatch',
  type: 'object',
  required: ['sk', 'vid'],
  properties: {
    sk: { type: 'string', minLength: 1, maxLength: 256 },
    vid: { type: 'string', minLength: 1, maxLength: 256 },
    batchId: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      pattern: '^[A-Za-z0-9._-]+$',
      description: 'The batch\'s identity within its session (`sk`), the same on every resend: a batch whose `sk` and `batchId` were stored already is acknowledged and not counted again. A batch without one is taken as it comes.',
    },
    startedAt: { ...int64, description: 'Clamped to a window around the server clock.' },
    dropped: { type: 'integer', minimum: 0 },
    views: { type: 'array', maxItems: 200, items: viewSchema },
    clicks: { type: 'array', maxItems: 2000, items: clickSchema },
    errors: { type: 'array', maxItems: 100, items: errorEntrySchema },
    console: {
      type: 'array',
      maxItems: 10,
      items: consoleEntrySchema,
      description: 'Console errors and warnings the recording holds (console capture), the first few of the batch, for search: each checked alone and dropped (counted in `dropped`) like any entry.',
    },
    requests: {
      type: 'array',
      maxItems: 10,
      items: requestEntrySchema,
      description: 'Requests the recording holds that failed or answered 500 or more (network capture), the first few of the batch, for search: each checked alone and dropped (counted in `dropped`) like any entry.',
    },
    lost: {
      type: 'array',
      maxItems: MAX_LOSSES_PER_BATCH,
      items: recordingLossSchema,
      description: 'What of the session\'s recording did not reach the service, and why: kept on the session (sessions.list `completeness`). Each report is checked alone; one that does not validate is dropped.',
    },
  },
} as const

/** The batch without its entries' schemas or counts: what must hold for the batch to be recorded at all. */
export const signalsEnvelopeSchema = {
  ...signalsBatchSchema,
  $id: 'SignalsEnvelope',
  properties: {
    ...signalsBatchSchema.properties,
    views: { type: 'array' },
    clicks: { type: 'array' },
    errors: { type: 'array' },
    console: { type: 'array' },
    requests: { type: 'array' },
    lost: { type: 'array' },
  },
} as const

export const okSchema = {
  $id: 'IngestAck',
  type: 'object',
  required: ['ok'],
  properties: {
    ok: { type: 'boolean', enum: [true] },
    watched: { type: 'boolean', enum: [true], description: 'A chunk\'s answer, while someone follows its session live: send the session\'s chunks every `flushMs` (a tracker that ignores it loses nothing). Absent otherwise, and the answer is exactly `{"ok":true}`.' },
    flushMs: { type: 'integer', minimum: 1000, description: 'With `watched`: how often to send chunks while followed (LIVE_FLUSH_MS, 1,500 unless configured; never under 1,000).' },
  },
} as const
