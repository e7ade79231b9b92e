/** Pure checks of a recording chunk, run by the front before anything is queued. */
import { chunkMetaSchema } from '../schemas/tracker-payloads.js'
import type { ChunkMeta } from '../store/store.js'
import { flattenDeeperThan, schemaDepth } from './json-nesting.js'
import { validators } from './payload-validators.js'
import { describeErrors } from './validators.js'

export const PUBLIC_KEY_RE = /^svc_pk_[0-9a-f]+$/
/**
 * Longest public key accepted: minted keys are 39 characters (src/accounts/secrets.ts);
 * a longer one names no project, and an unbounded one once reached an LMDB
 * key past its 1,978-byte limit and took the front down.
 */
export const PUBLIC_KEY_MAX_CHARS = 128

/** Whether `pk` has the contract's public-key form, checked before it reaches the store. */
export function isPublicKey(pk: string): boolean {
  return pk.length <= PUBLIC_KEY_MAX_CHARS && PUBLIC_KEY_RE.test(pk)
}

/** The meta nests 2 deep (meta → viewport, screen or identity); anything deeper is flattened before parsing. */
const META_DEPTH = schemaDepth(chunkMetaSchema)
/** Objects a meta holds (itself and its three), with room for brackets inside strings. */
const META_CONTAINER_BUDGET = 16

export type MetaResult = { ok: true; meta: ChunkMeta } | { ok: false; error: string }

/** Parses and validates the X-Svc-Meta header. */
export function parseChunkMeta(header: string): MetaResult {
  if (!header) return { ok: false, error: 'The X-Svc-Meta header is missing.' }
  let meta: unknown
  try {
    // V8 parses a 16 KB header of nested arrays some 100 × slower than a valid meta: flattened first (./json-nesting.ts).
    const text = flattenDeeperThan(header, META_DEPTH, META_CONTAINER_BUDGET)
    if (text === undefined) return { ok: false, error: 'The X-Svc-Meta header is not JSON.' }
    meta = JSON.parse(text)
  } catch {
    return { ok: false, error: 'The X-Svc-Meta header is not JSON.' }
  }
  if (!validators.chunkMeta(meta)) {
    return { ok: false, error: `The X-Svc-Meta header is malformed: ${describeErrors(validators.chunkMeta.errors)}.` }
  }
  return { ok: true, meta: meta as ChunkMeta }
}

/**
 * Whether the body can be what its meta says, from its first bytes only (the
 * ingest path never decompresses): gzip starts with 1f 8b; raw JSON events
 * with `[` or `{` after optional white space.
 */
export function bodyMatchesEncoding(body: Uint8Array, encoding: ChunkMeta['encoding']): boolean {
  if (body.byteLength === 0) return false
  if (encoding === 'gzip') return body.byteLength >= 18 && body[0] === 0x1f && body[1] === 0x8b
  for (const byte of body) {
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue
    return byte === 0x5b || byte === 0x7b
  }
  return false
}
