/**
 * Validation of a signals batch: the envelope must hold or the whole batch is
 * refused (400); each entry is then checked alone, and one that fails is
 * dropped and counted while the rest is recorded (API contract, section 2).
 */
import type { ValidateFunction } from 'ajv'
import { LIMITS } from '../config.js'
import { clickSchema, consoleEntrySchema, errorEntrySchema, MAX_LOSSES_PER_BATCH, requestEntrySchema, signalsBatchSchema, viewSchema } from '../schemas/tracker-payloads.js'
import type { Click, ConsoleEntry, ErrorEntry, RecordingLoss, RequestEntry, SignalsRecord, View } from '../store/store.js'
import { flattenDeeperThan, schemaDepth } from './json-nesting.js'
import { validators } from './payload-validators.js'
import { describeErrors } from './validators.js'

/** Search texts per batch (the schema's bound): past it, entries are dropped and counted like any other. */
const MAX_CONSOLE = signalsBatchSchema.properties.console.maxItems
const MAX_REQUESTS = signalsBatchSchema.properties.requests.maxItems

export type SignalsResult = { ok: true; batch: SignalsRecord } | { ok: false; error: string }

interface Envelope {
  sk: string
  vid: string
  batchId?: string
  startedAt?: number
  dropped?: number
  views?: unknown[]
  clicks?: unknown[]
  errors?: unknown[]
  console?: unknown[]
  requests?: unknown[]
  lost?: unknown[]
}

/** A batch nests 3 deep (batch → list → entry); anything deeper is flattened before parsing (./json-nesting.ts). */
const BATCH_DEPTH = schemaDepth(signalsBatchSchema)
/** Arrays and objects a full batch can hold (one per entry, plus the lists), twice over for brackets inside strings. */
const CONTAINER_BUDGET = 2 * (LIMITS.views + LIMITS.clicks + LIMITS.errors + MAX_CONSOLE + MAX_REQUESTS + 6)

export function parseSignals(body: Uint8Array, now: number): SignalsResult {
  let value: unknown
  try {
    // Invalid UTF-8 decodes to U+FFFD and then fails JSON.parse or validation.
    const text = flattenDeeperThan(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'), BATCH_DEPTH, CONTAINER_BUDGET)
    if (text === undefined) return { ok: false, error: 'The body is not JSON.' }
    value = JSON.parse(text)
  } catch {
    return { ok: false, error: 'The body is not JSON.' }
  }
  if (!validators.signalsEnvelope(value)) {
    return { ok: false, error: `The body is not a signals batch: ${describeErrors(validators.signalsEnvelope.errors)}.` }
  }
  const envelope = value as Envelope
  let dropped = envelope.dropped ?? 0
  const keep = <T>(entries: unknown[] | undefined, max: number, validate: ValidateFunction, pick: (entry: unknown) => Record<string, unknown>): T[] => {
    const kept: T[] = []
    for (const entry of entries ?? []) {
      if (kept.length < max && validate(entry)) kept.push(pick(entry) as T)
      else dropped += 1
    }
    return kept
  }
  const batch: SignalsRecord = {
    sk: envelope.sk,
    vid: envelope.vid,
    ...(envelope.batchId === undefined ? {} : { batchId: envelope.batchId }),
    dropped: 0,
    views: keep<View>(envelope.views, LIMITS.views, validators.view, PICK.view),
    clicks: keep<Click>(envelope.clicks, LIMITS.clicks, validators.click, PICK.click),
    errors: keep<ErrorEntry>(envelope.errors, LIMITS.errors, validators.errorEntry, PICK.error),
  }
  // Absent rather than empty: most batches have none, and a stored batch is smaller without them.
  const consoleEntries = keep<ConsoleEntry>(envelope.console, MAX_CONSOLE, validators.consoleEntry, PICK.console)
  if (consoleEntries.length) batch.console = consoleEntries
  const requests = keep<RequestEntry>(envelope.requests, MAX_REQUESTS, validators.requestEntry, PICK.request)
  if (requests.length) batch.requests = requests
  batch.dropped = dropped
  // Loss reports are not signals: one that does not validate is dropped alone and not counted in `dropped`.
  const lost = (envelope.lost ?? []).slice(0, MAX_LOSSES_PER_BATCH).filter((loss) => validators.recordingLoss(loss)) as RecordingLoss[]
  if (lost.length) batch.lost = lost
  if (envelope.startedAt !== undefined) batch.startedAt = clampStartedAt(envelope.startedAt, now)
  return { ok: true, batch }
}

/** Keeps a client clock from placing a session years away: [now - 24 h, now + 5 min] (see LIMITS). */
export function clampStartedAt(startedAt: number, now: number): number {
  return Math.min(Math.max(startedAt, now - LIMITS.clampPastMs), now + LIMITS.clampFutureMs)
}

/**
 * Copiers of only the documented fields into a fresh object: nothing unknown
 * (and no `__proto__` key) is stored. Each is compiled once from its schema's
 * field names, so that every read and write names a constant property (a
 * loop over the names pays a keyed lookup per field, on the hot path of
 * /signals). A plain read finds own fields only, since JSON holds no
 * undefined and no field is a name Object.prototype has (checked here).
 */
function picker(schema: { properties: Record<string, unknown> }): (entry: unknown) => Record<string, unknown> {
  const fields = Object.keys(schema.properties)
  for (const field of fields) {
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(field)) throw new Error(`signals field ${field} is not a plain name`)
    if (field in Object.prototype) throw new Error(`signals field ${field} is a name Object.prototype has: a pick would read it`)
  }
  const copies = fields.map((field) => `if (entry.${field} !== undefined) out.${field} = entry.${field};`).join('\n')
  return new Function('entry', `const out = {};\n${copies}\nreturn out`) as (entry: unknown) => Record<string, unknown>
}

const PICK = {
  view: picker(viewSchema),
  click: picker(clickSchema),
  error: picker(errorEntrySchema),
  console: picker(consoleEntrySchema),
  request: picker(requestEntrySchema),
}
