/**
 * POST /ingest, POST /signals and POST /styles: the hot path. Each handler is a straight
 * chain: check the declared length → check the key → check the meta (chunks)
 * → read the body under its cap → hand to the writer pool (which parses and
 * validates a signals body in its thread) → answer.
 *
 * Ingest never answers 5xx to a tracker (API contract, section 7, rule 2):
 * an unusable payload is dropped, counted and answered 200 {ok:true}. A
 * payload it wants but cannot store now (queue full, storage failing) is
 * answered 429 overloaded with Retry-After: {ok:true} always means committed.
 */
import { LIMITS } from '../config.js'
import type { ErrorCode } from '../errors.js'
import { bodyMatchesEncoding, isPublicKey, parseChunkMeta } from '../contract/chunk-checks.js'
import type { CounterSeries } from '../metrics/local.js'
import { log } from '../log.js'
import { metrics } from '../metrics/registry.js'
import type { WriteItem } from '../supervisor/messages.js'
import type { ChunkMeta, RecordingLoss, Store } from '../store/store.js'
import { declaredLength, readBody } from './body.js'
import type { BodyPool } from './body-pool.js'
import { guard, sendError, sendJson, sendOk } from './reply.js'
import type { LiveBoard } from '../live/board.js'
import type { HttpRequest, HttpResponse } from './uws.js'
import type { IngestSink } from '../ingest-sink/sink.js'
import { checkStyle, MAX_STYLE_BYTES_PER_PROJECT, MAX_STYLES_PER_PROJECT, STYLE_HASH, styleQuotaRefusal } from '../recordings/styles.js'

export interface IngestCounters {
  stored: number
  duplicates: number
  /** Answered 200 but not stored: empty or mislabelled bodies, items no store could hold. */
  dropped: number
  /** Answered 429 because the queue was full (the rest of refused.overloaded: storage failed). */
  shed: number
  refused: Partial<Record<ErrorCode, number>>
}

export interface IngestDeps {
  store: Store
  queue: IngestSink
  counters: IngestCounters
  /**
   * Cluster mode: a key this node does not know yet may name a project that
   * another node created a moment ago; resolves once this node has applied
   * the log as far as it stood, with the project then known, or undefined.
   */
  lateProject?: (pk: string) => Promise<string | undefined>
  /**
   * While an online compaction has the store closed: resolves once it is open
   * again. A request's key is then looked up after its body is read (as a late
   * project's is), so the request is taken and waits rather than refused.
   */
  whenStoreOpen?: () => Promise<void> | undefined
  /** Buffers for bodies of known length, given back by the queue once committed (WRITER_THREADS=0, body-pool.ts). */
  bodies?: BodyPool
  /** Sessions in progress and the ones being watched (src/live/board.ts); absent only in tests of the ingest path alone. */
  live?: LiveBoard
  /** What a followed session's chunk answer asks of its tracker: send every this many ms (LIVE_FLUSH_MS). */
  liveFlushMs?: number
}

const KEY_HINT_MISSING = 'Add ?pk=<public key> (svc_pk_…) from the project\'s settings.'
const KEY_HINT_UNKNOWN = 'No project has this public key: copy the snippet again from the project\'s settings, or create the project.'

export function newCounters(): IngestCounters {
  return { stored: 0, duplicates: 0, dropped: 0, shed: 0, refused: {} }
}

/**
 * Retry-After of a 429, seconds: a full queue drains in well under a second
 * (see INGEST_QUEUE_ITEMS); storage that failed needs an operator or a
 * restart, so its clients come back less often.
 */
const RETRY_AFTER_FULL_S = 1
const RETRY_AFTER_UNAVAILABLE_S = 5

// Label children resolved once: the hot path only increments.
const STORED = { chunk: metrics.stored.labels('chunk'), 'signals-body': metrics.stored.labels('signals'), style: metrics.stored.labels('style') }
const BYTES_IN = { chunk: metrics.bytesIn.labels('ingestSessionChunk'), signals: metrics.bytesIn.labels('ingestSignalsBatch'), style: metrics.bytesIn.labels('ingestStylesheet') }
const REFUSED = new Map<ErrorCode, CounterSeries>()

function refuse(deps: IngestDeps, res: HttpResponse, code: ErrorCode, error?: string, hint?: string, headers?: ReadonlyArray<readonly [string, string]>): void {
  deps.counters.refused[code] = (deps.counters.refused[code] ?? 0) + 1
  let refused = REFUSED.get(code)
  if (!refused) REFUSED.set(code, (refused = metrics.refused.labels(code)))
  refused.inc()
  sendError(res, code, { ingest: true, error, hint }, headers)
}

function overloaded(deps: IngestDeps, res: HttpResponse, retryAfterS: number, error: string): void {
  refuse(deps, res, 'overloaded', error, undefined, [['Retry-After', String(retryAfterS)]])
}

/**
 * Validates the public key; answers and returns undefined when it does not
 * name a project. In the cluster mode an unknown key is looked up again once
 * this node has caught up (`lateProject`), after the body is read.
 */
function projectFor(deps: IngestDeps, res: HttpResponse, pk: string): string | Promise<string | undefined> | undefined {
  if (!isPublicKey(pk)) {
    refuse(deps, res, 'invalid_request', pk ? 'The pk parameter is not a public key.' : 'The pk parameter is missing.', KEY_HINT_MISSING)
    return undefined
  }
  const closed = deps.whenStoreOpen?.()
  if (closed) return closed.then(() => deps.store.projectIdForPublicKey(pk) ?? deps.lateProject?.(pk))
  const projectId = deps.store.projectIdForPublicKey(pk)
  if (projectId) return projectId
  if (deps.lateProject) return deps.lateProject(pk)
  refuseUnknownKey(deps, res)
  return undefined
}

function refuseUnknownKey(deps: IngestDeps, res: HttpResponse): void {
  refuse(deps, res, 'not_found', 'No project matches the public key.', KEY_HINT_UNKNOWN)
}

const SIGNALS_HINT = 'Send a JSON signals batch with sk and vid; see /openapi.json.'
const STYLE_QUOTA_FULL = `The project has no room for this stylesheet: it keeps at most ${MAX_STYLES_PER_PROJECT} texts and ${MAX_STYLE_BYTES_PER_PROJECT / 2 ** 20} MiB of them as restored into recordings.`
const STYLE_QUOTA_HINT = 'The tracker keeps this stylesheet inline in the recording; nothing is lost.'
const STYLE_HINT = 'Send the stylesheet\'s UTF-8 text, raw or gzipped, with ?hash=<its SHA-256, 64 lowercase hex digits>.'

async function commit(deps: IngestDeps, res: HttpResponse, item: WriteItem): Promise<void> {
  const outcome = await deps.queue.enqueue(item)
  // A signals body the writer thread found to be no batch, or a stylesheet not matching its hash: the refusals decided there.
  if (typeof outcome === 'object') return refuse(deps, res, 'invalid_request', outcome.invalid, item.kind === 'style' ? STYLE_HINT : SIGNALS_HINT)
  if (outcome === 'full') {
    deps.counters.shed += 1
    return overloaded(deps, res, RETRY_AFTER_FULL_S, 'The write queue is full; nothing was stored.')
  }
  // The writer logged why; nothing of this item was stored, and the client still has it.
  if (outcome === 'unavailable') return overloaded(deps, res, RETRY_AFTER_UNAVAILABLE_S, 'Storage is failing; nothing was stored.')
  if (outcome === 'over_quota') {
    return refuse(deps, res, 'quota_exceeded', STYLE_QUOTA_FULL, STYLE_QUOTA_HINT)
  }
  if (outcome === 'duplicate') {
    deps.counters.duplicates += 1
    metrics.duplicates.inc()
  } else if (outcome === 'failed') {
    // The writer logged why: this item can never be stored (rule 2); the rest of the batch was.
    deps.counters.dropped += 1
    metrics.dropped.inc()
  } else {
    deps.counters.stored += 1
    STORED[item.kind].inc()
  }
  if (item.kind === 'chunk' && deps.live && outcome !== 'failed') {
    deps.live.seen(item.projectId, item.meta.sk)
    // Someone follows this session: the tracker sends more often while it is told so (tracker/src/transport.ts).
    if (deps.live.watched(item.projectId, item.meta.sk)) return sendJson(res, 200, { ok: true, watched: true, flushMs: deps.liveFlushMs ?? LIVE_FLUSH_MS })
  }
  sendOk(res)
}

/** LIVE_FLUSH_MS's default (src/config.ts). */
const LIVE_FLUSH_MS = 1_500

/**
 * A fault inside an ingest handler (a bug, not the client's doing): nothing
 * was stored, so it is not acknowledged; 429 (never a 5xx, contract section
 * 7, rule 2) tells the tracker to keep the payload and send it again.
 */
export function ingestFault(deps: IngestDeps, res: HttpResponse, error: unknown): void {
  log.error('ingest handler failed; not stored, answered 429', { error: String(error) })
  overloaded(deps, res, RETRY_AFTER_UNAVAILABLE_S, 'The service failed to handle this payload; nothing was stored.')
}

/**
 * A chunk refused as too large is kept in its session's record as a loss
 * (store/session-losses.ts) when its meta names the session: as a signals
 * batch that reports only that, through the same queue, so every mode and
 * store handles it as it handles a tracker's reports. Paid only on a 413;
 * the queue answer is not waited for (the client already has its 413).
 */
function noteRefusal(deps: IngestDeps, projectId: string | undefined, meta: ChunkMeta | undefined, bytes: number | undefined): void {
  if (!projectId || !meta) return
  const loss: RecordingLoss = { reason: 'refused_too_large', seq: meta.seq, pageIndex: meta.pageIndex, url: meta.url, fromTs: meta.firstTs, untilTs: meta.lastTs, bytes }
  const body = new TextEncoder().encode(JSON.stringify({ sk: meta.sk, vid: meta.vid, lost: [loss] }))
  deps.queue.enqueue({ kind: 'signals-body', projectId, receivedAt: Date.now(), body }).catch(() => undefined) // enqueue never rejects; a failure loses only this note
}

/** The project and meta of a refused chunk, when the request names them (read before any await: uWS requests live only until then). */
function refusedChunkOf(deps: IngestDeps, req: HttpRequest): [string | undefined, ChunkMeta | undefined] {
  const pk = req.getQuery('pk') ?? ''
  // While the store is closed for a compaction, the refusal goes unrecorded in the session (the client has its 413).
  const projectId = isPublicKey(pk) && !deps.whenStoreOpen?.() ? deps.store.projectIdForPublicKey(pk) : undefined
  const parsed = projectId ? parseChunkMeta(req.getHeader('x-svc-meta')) : undefined
  return [projectId, parsed?.ok ? parsed.meta : undefined]
}

export function handleChunk(deps: IngestDeps, res: HttpResponse, req: HttpRequest): Promise<void> | void {
  guard(res)
  const declared = declaredLength(req)
  if (declared !== undefined && declared > LIMITS.chunkBytes) {
    refuse(deps, res, 'payload_too_large')
    return noteRefusal(deps, ...refusedChunkOf(deps, req), declared)
  }
  const projectId = projectFor(deps, res, req.getQuery('pk') ?? '')
  if (!projectId) return
  const parsed = parseChunkMeta(req.getHeader('x-svc-meta'))
  if (!parsed.ok) return refuse(deps, res, 'invalid_request', parsed.error, 'Send X-Svc-Meta as a JSON object with sk, vid, seq and encoding.')
  const receivedAt = Date.now()
  return readBody(res, declared, LIMITS.chunkBytes, deps.bodies).then(async (read) => {
    if (!read.ok) {
      if (read.reason !== 'too_large') return
      refuse(deps, res, 'payload_too_large')
      return noteRefusal(deps, typeof projectId === 'string' ? projectId : await projectId, parsed.meta, undefined)
    }
    const known = typeof projectId === 'string' ? projectId : await projectId
    if (!known) return refuseUnknownKey(deps, res)
    BYTES_IN.chunk.inc(read.body.byteLength)
    if (!bodyMatchesEncoding(read.body, parsed.meta.encoding)) {
      deps.counters.dropped += 1
      metrics.dropped.inc()
      return sendOk(res)
    }
    return commit(deps, res, { kind: 'chunk', projectId: known, receivedAt, meta: parsed.meta, body: read.body })
  })
}

export function handleSignals(deps: IngestDeps, res: HttpResponse, req: HttpRequest): Promise<void> | void {
  guard(res)
  const declared = declaredLength(req)
  if (declared !== undefined && declared > LIMITS.signalsBytes) return refuse(deps, res, 'payload_too_large')
  const projectId = projectFor(deps, res, req.getQuery('pk') ?? '')
  if (!projectId) return
  // Any content type: sendBeacon posts text/plain to avoid a CORS preflight.
  return readBody(res, declared, LIMITS.signalsBytes, deps.bodies).then(async (read) => {
    if (!read.ok) return read.reason === 'too_large' ? refuse(deps, res, 'payload_too_large') : undefined
    const known = typeof projectId === 'string' ? projectId : await projectId
    if (!known) return refuseUnknownKey(deps, res)
    BYTES_IN.signals.inc(read.body.byteLength)
    // Parsed and validated (AJV) by the sink, which answers `invalid` for a body that is no batch.
    return commit(deps, res, { kind: 'signals-body', projectId: known, receivedAt: Date.now(), body: read.body })
  })
}

/**
 * A stylesheet's text, sent once per project and referred to by its hash from
 * recordings (src/recordings/styles.ts). Checked against the hash, and
 * inflated under its bound, by the writer (src/grouping/prepare-items.ts).
 */
export function handleStyle(deps: IngestDeps, res: HttpResponse, req: HttpRequest): Promise<void> | void {
  guard(res)
  const declared = declaredLength(req)
  if (declared !== undefined && declared > LIMITS.chunkBytes) return refuse(deps, res, 'payload_too_large')
  const projectId = projectFor(deps, res, req.getQuery('pk') ?? '')
  if (!projectId) return
  const hash = req.getQuery('hash') ?? ''
  if (!STYLE_HASH.test(hash)) return refuse(deps, res, 'invalid_request', 'The hash parameter is not a SHA-256 in lowercase hex.', STYLE_HINT)
  return readBody(res, declared, LIMITS.chunkBytes, deps.bodies).then(async (read) => {
    if (!read.ok) return read.reason === 'too_large' ? refuse(deps, res, 'payload_too_large') : undefined
    const known = typeof projectId === 'string' ? projectId : await projectId
    if (!known) return refuseUnknownKey(deps, res)
    BYTES_IN.style.inc(read.body.byteLength)
    // The body may have come in while a compaction closed the store.
    await deps.whenStoreOpen?.()
    // A quick refusal from the counters as they stand; what decides is the writer (or, in the cluster mode, the
    // sink's reservation), so uploads in flight together cannot pass the bound. A hash held already is checked
    // against its body like a new one: answering 200 to any body would tell a key holder which texts a project has.
    const held = deps.store.getStyle(known, hash) !== undefined
    if (!held) {
      const full = styleQuotaRefusal(deps.store.projectStats(known), 0)
      if (full) return refuse(deps, res, 'quota_exceeded', full, STYLE_QUOTA_HINT)
    }
    // Inflated, hashed and deflated with zlib in libuv's pool: a 4 MiB text does not hold this front's event loop.
    const checked = await checkStyle(read.body, hash, held)
    if (!checked.ok) return refuse(deps, res, 'invalid_request', checked.error, STYLE_HINT)
    return commit(deps, res, { kind: 'style', projectId: known, receivedAt: Date.now(), hash, body: checked.stored, bytes: checked.bytes, checked: true })
  })
}
