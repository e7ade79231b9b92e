/**
 * POST /ingest and POST /signals: the hot path. Each handler is a straight
 * chain: check the declared length → check the key → check the meta (chunks)
 * → read the body under its cap → hand to the writer pool (which parses and
 * validates a signals body in its thread) → answer.
 *
 * Ingest never answers 5xx to a tracker (API contract, section 7, rule 2):
 * an unusable payload is dropped, counted and answered 200 {ok:true}.
 */
import { LIMITS } from '../config.js'
import type { ErrorCode } from '../errors.js'
import { bodyMatchesEncoding, isPublicKey, parseChunkMeta } from '../ingest/chunk.js'
import { log } from '../log.js'
import type { WriteItem } from '../messages.js'
import type { Store } from '../store/store.js'
import { declaredLength, readBody } from './body.js'
import { guard, sendError, sendOk } from './reply.js'
import type { HttpRequest, HttpResponse } from './uws.js'
import type { WriteQueue } from './write-queue.js'

export interface IngestCounters {
  stored: number
  duplicates: number
  /** Answered 200 but not stored: empty or mislabelled bodies, storage failures. */
  dropped: number
  refused: Partial<Record<ErrorCode, number>>
}

export interface IngestDeps {
  store: Store
  queue: WriteQueue
  counters: IngestCounters
}

const KEY_HINT_MISSING = 'Add ?pk=<public key> (svc_pk_…) from the project\'s settings.'
const KEY_HINT_UNKNOWN = 'No project has this public key: copy the snippet again from the project\'s settings, or create the project.'

export function newCounters(): IngestCounters {
  return { stored: 0, duplicates: 0, dropped: 0, refused: {} }
}

function refuse(deps: IngestDeps, res: HttpResponse, code: ErrorCode, error?: string, hint?: string): void {
  deps.counters.refused[code] = (deps.counters.refused[code] ?? 0) + 1
  sendError(res, code, { ingest: true, error, hint })
}

/** Validates the public key; answers and returns undefined when it does not name a project. */
function projectFor(deps: IngestDeps, res: HttpResponse, pk: string): string | undefined {
  if (!isPublicKey(pk)) {
    refuse(deps, res, 'invalid_request', pk ? 'The pk parameter is not a public key.' : 'The pk parameter is missing.', KEY_HINT_MISSING)
    return undefined
  }
  const projectId = deps.store.projectIdForPublicKey(pk)
  if (!projectId) refuse(deps, res, 'not_found', 'No project matches the public key.', KEY_HINT_UNKNOWN)
  return projectId
}

const SIGNALS_HINT = 'Send a JSON signals batch with sk and vid; see /openapi.json.'

async function commit(deps: IngestDeps, res: HttpResponse, item: WriteItem): Promise<void> {
  try {
    const outcome = await deps.queue.enqueue(item)
    // A signals body the writer thread found to be no batch: the one refusal decided there.
    if (typeof outcome === 'object') return refuse(deps, res, 'invalid_request', outcome.invalid, SIGNALS_HINT)
    if (outcome === 'duplicate') deps.counters.duplicates += 1
    // The writer logged why; the rest of the batch was stored.
    else if (outcome === 'failed') deps.counters.dropped += 1
    else deps.counters.stored += 1
  } catch (error) {
    // The contract forbids a 5xx here; the loss is logged and counted instead.
    deps.counters.dropped += 1
    log.error('ingest write failed; payload dropped', { error: String(error), kind: item.kind })
  }
  sendOk(res)
}

/**
 * A fault inside an ingest handler (a bug, not the client's doing): ingest
 * never answers 5xx (contract, section 7, rule 2), so the payload is counted
 * as dropped, as a failed write is, and the process lives on.
 */
export function ingestFault(deps: IngestDeps, res: HttpResponse, error: unknown): void {
  deps.counters.dropped += 1
  log.error('ingest handler failed; payload dropped', { error: String(error) })
  sendOk(res)
}

export function handleChunk(deps: IngestDeps, res: HttpResponse, req: HttpRequest): Promise<void> | void {
  guard(res)
  const declared = declaredLength(req)
  if (declared !== undefined && declared > LIMITS.chunkBytes) return refuse(deps, res, 'payload_too_large')
  const projectId = projectFor(deps, res, req.getQuery('pk') ?? '')
  if (!projectId) return
  const parsed = parseChunkMeta(req.getHeader('x-svc-meta'))
  if (!parsed.ok) return refuse(deps, res, 'invalid_request', parsed.error, 'Send X-Svc-Meta as a JSON object with sk, vid, seq and encoding.')
  const receivedAt = Date.now()
  return readBody(res, declared, LIMITS.chunkBytes).then((read) => {
    if (!read.ok) return read.reason === 'too_large' ? refuse(deps, res, 'payload_too_large') : undefined
    if (!bodyMatchesEncoding(read.body, parsed.meta.encoding)) {
      deps.counters.dropped += 1
      return sendOk(res)
    }
    return commit(deps, res, { kind: 'chunk', projectId, receivedAt, meta: parsed.meta, body: read.body })
  })
}

export function handleSignals(deps: IngestDeps, res: HttpResponse, req: HttpRequest): Promise<void> | void {
  guard(res)
  const declared = declaredLength(req)
  if (declared !== undefined && declared > LIMITS.signalsBytes) return refuse(deps, res, 'payload_too_large')
  const projectId = projectFor(deps, res, req.getQuery('pk') ?? '')
  if (!projectId) return
  // Any content type: sendBeacon posts text/plain to avoid a CORS preflight.
  return readBody(res, declared, LIMITS.signalsBytes).then((read) => {
    if (!read.ok) return read.reason === 'too_large' ? refuse(deps, res, 'payload_too_large') : undefined
    // Parsed and validated (AJV) in the writer thread, which answers `invalid` for a body that is no batch.
    return commit(deps, res, { kind: 'signals-body', projectId, receivedAt: Date.now(), body: read.body })
  })
}
