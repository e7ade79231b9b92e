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

/** The whole batch as documented. At run time the envelope and each entry are validated apart, so that one bad entry is dropped alone. */
export const signalsBatchSchema = {
  $id: 'SignalsBatch',
  type: 'object',
  required: ['sk', 'vid'],
  properties: {
    sk: { type: 'string', minLength: 1, maxLength: 256 },
    vid: { type: 'string', minLength: 1, maxLength: 256 },
    startedAt: { ...int64, description: 'Clamped to a window around the server clock.' },
    dropped: { type: 'integer', minimum: 0 },
    views: { type: 'array', maxItems: 200, items: viewSchema },
    clicks: { type: 'array', maxItems: 2000, items: clickSchema },
    errors: { type: 'array', maxItems: 100, items: errorEntrySchema },
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
  },
} as const

export const okSchema = {
  $id: 'IngestAck',
  type: 'object',
  required: ['ok'],
  properties: { ok: { type: 'boolean', enum: [true] } },
} as const
