/**
 * Stylesheets sent once per project (issue 32). rrweb inlines every
 * stylesheet's text into each full snapshot (`_cssText` on a `<link>` or
 * `<style>` node), so a 190 KB stylesheet travelled, and was stored, with every
 * page load of every session. The tracker now puts `"_svcCss":"<sha256 hex>"`
 * in place of a large `"_cssText":"…"` and uploads the text once
 * (POST /styles); the store keeps one copy per project and hash; reading a
 * recording (`restoreStyles`, used by sessions.events) puts the text back, so
 * what a client reads are ordinary rrweb events. sessions.chunk answers the
 * bytes as stored, references and all.
 *
 * The hash is checked here against the text: a stylesheet stored under a
 * hash is the text with that hash, whoever uploaded it, so one visitor cannot
 * change what another session's replay shows.
 *
 * Anyone with a project's public key can upload, so what a text costs is
 * bounded where it is taken: it is stored as the JSON string literal a replay
 * splices in (a control character is 6 bytes there), gzipped by the service,
 * and the literal's size is what the per-text cap and the project's quota
 * count. Reading knows that size from the gzip trailer before inflating
 * anything, and one answer restores at most MAX_RESTORED_BYTES_PER_ANSWER.
 */
import { createHash } from 'node:crypto'
import { promisify } from 'node:util'
import { gunzip, gzip, type ZlibOptions } from 'node:zlib'

/** Most bytes a stylesheet may have, as its text and as the JSON string a replay restores: 4 MiB, over 20 times the largest of the benchmark's applications (swagger-ui.css, 188 KB). */
export const MAX_STYLE_BYTES = 4 * 1024 * 1024
/**
 * What one project may keep of stylesheet texts: a site has tens of them, and
 * anyone holding its public key can upload, so both bounds stop a stranger
 * from filling the disk or a replay. Bytes are counted as restored (the JSON
 * string), not as stored: 4 MiB of one character gzips to 4 KB. Past either,
 * an upload answers 409 quota_exceeded and the tracker leaves that stylesheet
 * inline in the recording, as before.
 */
export const MAX_STYLES_PER_PROJECT = 500
export const MAX_STYLE_BYTES_PER_PROJECT = 50 * 1024 * 1024
/**
 * Stylesheet bytes one sessions.events answer puts back, all references
 * together: every page load repeats its stylesheets, so a long multi-page
 * session restores many times what the project holds (200 loads of 300 KB is
 * 60 MB). Past it references stay as stored and a marker says so.
 */
export const MAX_RESTORED_BYTES_PER_ANSWER = 128 * 1024 * 1024
/** Restored texts one answer keeps for its next references; past it a text is inflated again for each. */
const CACHED_BYTES_PER_ANSWER = 8 * 1024 * 1024

/** Why a project has no room for one more stylesheet of `bytes` restored bytes, or undefined when it has. */
export function styleQuotaRefusal(held: { styleCount?: number; styleBytes?: number }, bytes: number): string | undefined {
  if ((held.styleCount ?? 0) >= MAX_STYLES_PER_PROJECT) return `The project holds ${MAX_STYLES_PER_PROJECT} stylesheets, as many as it may.`
  if ((held.styleBytes ?? 0) + bytes > MAX_STYLE_BYTES_PER_PROJECT) return `The project's stylesheets would pass ${MAX_STYLE_BYTES_PER_PROJECT} bytes as restored into recordings.`
  return undefined
}

/**
 * Counts a stylesheet into its project's `held` counters, in the transaction
 * that stores it; false, counting nothing, when the project has no room and
 * the upload was not acknowledged already (the cluster mode's fronts reserve
 * before they acknowledge: what a front acknowledged is stored).
 */
export function admitStyle(held: { styleCount?: number; styleBytes?: number }, item: { body: Uint8Array; bytes?: number; acknowledged?: true }): boolean {
  const bytes = item.bytes ?? item.body.byteLength
  if (!item.acknowledged && styleQuotaRefusal(held, bytes)) return false
  held.styleCount = (held.styleCount ?? 0) + 1
  held.styleBytes = (held.styleBytes ?? 0) + bytes
  return true
}

export const STYLE_HASH = /^[0-9a-f]{64}$/

/** The reference the tracker leaves in a node's attributes; the JSON the read side looks for. */
export const STYLE_REF_KEY = '_svcCss'
const REF = Buffer.from(`"${STYLE_REF_KEY}":"`)
/** A reference is the key, 64 hex digits and the closing quote. */
const REF_BYTES = REF.length + 64 + 1
const CSS_TEXT_KEY = Buffer.from('"_cssText":')

/**
 * The first byte of a stylesheet stored as its gzipped JSON string literal.
 * Texts stored before (gzip of the text itself) start with gzip's own 0x1f.
 */
const LITERAL_FORMAT = 0x01

export type CheckedStyle = { ok: true; stored: Uint8Array; bytes: number } | { ok: false; error: string }

const isGzip = (body: Uint8Array) => body.byteLength >= 2 && body[0] === 0x1f && body[1] === 0x8b

/**
 * The bytes JSON.stringify writes for a text of these UTF-8 bytes, within a
 * few: a quote or backslash is 2, a control character 2 or 6. Counted
 * before the string is built, so a text of control characters that would
 * quote to 24 MiB is refused without building it.
 */
function quotedBytes(text: Uint8Array): number {
  let extra = 0
  for (let i = 0; i < text.length; i++) {
    const byte = text[i]
    if (byte === 0x22 || byte === 0x5c) extra += 1
    else if (byte < 0x20) extra += byte === 0x08 || byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d ? 1 : 5
  }
  return text.length + 2 + extra
}

const INFLATES_PAST = `The stylesheet inflates past ${MAX_STYLE_BYTES} bytes.`
const QUOTES_PAST = `The stylesheet is past ${MAX_STYLE_BYTES} bytes as a JSON string (quotes and control characters escaped), as a replay restores it.`

const gunzipPooled = promisify(gunzip) as (body: Uint8Array, options: ZlibOptions) => Promise<Buffer>
const gzipPooled = promisify(gzip) as (body: Buffer) => Promise<Buffer>

/**
 * The stylesheet as it is stored (its JSON string literal, gzipped here) and
 * that literal's size, if `body` (its UTF-8 text, raw or gzipped) has the
 * SHA-256 `hash` and fits the bound; else why not. With `held` (the project
 * has that hash already) only the hash is checked: a copy is never stored.
 * Inflating and deflating run in libuv's pool: what is left on the calling
 * thread is the hash and the quoting, a few milliseconds for 4 MiB, so the
 * front that checks an upload serves other requests meanwhile.
 */
export async function checkStyle(body: Uint8Array, hash: string, held = false): Promise<CheckedStyle> {
  let text: Buffer
  if (isGzip(body)) {
    try {
      text = await gunzipPooled(body, { maxOutputLength: MAX_STYLE_BYTES })
    } catch (error) {
      // zlib refuses past maxOutputLength with a RangeError: a bomb or a stylesheet over the bound.
      if (error instanceof RangeError || (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return { ok: false, error: INFLATES_PAST }
      return { ok: false, error: 'The body is neither gzip nor text.' }
    }
  } else text = Buffer.from(body.buffer, body.byteOffset, body.byteLength)
  if (text.length > MAX_STYLE_BYTES) return { ok: false, error: INFLATES_PAST }
  if (createHash('sha256').update(text).digest('hex') !== hash) return { ok: false, error: 'The body\'s SHA-256 is not the hash parameter.' }
  if (held) return { ok: true, stored: body, bytes: 0 }
  if (quotedBytes(text) > MAX_STYLE_BYTES + 64) return { ok: false, error: QUOTES_PAST }
  const literal = Buffer.from(JSON.stringify(text.toString('utf8')))
  if (literal.length > MAX_STYLE_BYTES) return { ok: false, error: QUOTES_PAST }
  const gzipped = await gzipPooled(literal)
  // Its own memory, never a slice of Node's shared pool: a front's body pool takes committed bodies back for reuse.
  const stored = new Uint8Array(1 + gzipped.length)
  stored[0] = LITERAL_FORMAT
  stored.set(gzipped, 1)
  return { ok: true, stored, bytes: literal.length }
}

/** A stored stylesheet: its restored size, known before anything is inflated, and the literal itself. */
export interface StyleText {
  bytes: number
  /** Inflated in libuv's pool: a replay restoring 16 MiB of text does not hold the control worker's loop. */
  literal(): Promise<Buffer | undefined>
}

/** What one answer may still restore; shared by all its events. */
export class RestoreBudget {
  /** A reference was left as stored because the budget ran out. */
  spent = false
  constructor(public left = MAX_RESTORED_BYTES_PER_ANSWER) {}
}

/**
 * Puts each stylesheet back into an event's JSON: every `"_svcCss":"<hash>"`
 * whose text `lookup` finds becomes `"_cssText":"<the text>"`. Answered as
 * pieces to write in order, never joined: the event alone when it refers to
 * none (one scan of its bytes). A reference with no text stays as it is, and
 * so does any past `maxBytes` of event or past the answer's `budget`; sizes
 * are checked before a text is inflated.
 */
export async function restoreStyles(event: Buffer, lookup: (hash: string) => StyleText | undefined, maxBytes: number, budget = new RestoreBudget()): Promise<Buffer[]> {
  let at = event.indexOf(REF)
  if (at < 0) return [event]
  const parts: Buffer[] = []
  let from = 0
  let size = event.length
  while (at >= 0) {
    const hash = event.toString('latin1', at + REF.length, at + REF.length + 64)
    const text = STYLE_HASH.test(hash) && event[at + REF_BYTES - 1] === 0x22 ? lookup(hash) : undefined
    const grows = text ? CSS_TEXT_KEY.length + text.bytes - REF_BYTES : 0
    if (text && size + grows <= maxBytes) {
      const literal = text.bytes <= budget.left ? await text.literal() : undefined
      // A text stored before literals tells its size only once inflated: checked again against both bounds.
      const fits = literal !== undefined && literal.length <= budget.left && size + CSS_TEXT_KEY.length + literal.length - REF_BYTES <= maxBytes
      if (!fits) budget.spent ||= (literal?.length ?? text.bytes) > budget.left
      else {
        budget.left -= literal!.length
        parts.push(event.subarray(from, at), CSS_TEXT_KEY, literal!)
        size += CSS_TEXT_KEY.length + literal!.length - REF_BYTES
        from = at + REF_BYTES
      }
    }
    at = event.indexOf(REF, at + REF.length)
  }
  parts.push(event.subarray(from))
  return parts
}

/** The literal's size from the gzip trailer (ISIZE); the service wrote the gzip, one member, under 4 GiB. */
function literalBytes(stored: Uint8Array): number {
  return stored.byteLength >= 1 + 18 ? Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).readUInt32LE(stored.byteLength - 4) : 0
}

/** A text stored before texts were stored as literals: inflated and quoted here, under the same bounds. */
async function legacyLiteral(stored: Uint8Array): Promise<Buffer | undefined> {
  try {
    const text = await gunzipPooled(stored, { maxOutputLength: MAX_STYLE_BYTES })
    if (quotedBytes(text) > MAX_STYLE_BYTES + 64) return undefined
    const literal = Buffer.from(JSON.stringify(text.toString('utf8')))
    return literal.length <= MAX_STYLE_BYTES ? literal : undefined
  } catch {
    // Damaged storage, or past the bound: the reference stays, the replay lacks those styles.
    return undefined
  }
}

/**
 * A lookup for one answer: sizes read from what is stored, each literal
 * inflated when a reference that fits asks for it and kept, up to
 * CACHED_BYTES_PER_ANSWER, for the references after it.
 */
export function styleLookup(read: (hash: string) => Uint8Array | undefined): (hash: string) => StyleText | undefined {
  const known = new Map<string, StyleText | undefined>()
  let cached = 0
  const inflate = async (stored: Uint8Array, bytes: number): Promise<Buffer | undefined> => {
    try {
      const literal = await gunzipPooled(stored.subarray(1), { maxOutputLength: Math.min(bytes, MAX_STYLE_BYTES) })
      return literal.length === bytes ? literal : undefined
    } catch {
      // A stored text that does not inflate to its size (damaged storage): the reference stays, the replay lacks those styles.
      return undefined
    }
  }
  const keep = (literal: Buffer | undefined): Buffer | undefined => {
    if (!literal || cached + literal.length > CACHED_BYTES_PER_ANSWER) return undefined
    cached += literal.length
    return literal
  }
  const textOf = (stored: Uint8Array): StyleText => {
    // A text stored before literals: its size is known once inflated and quoted, so the first reference does that.
    const legacy = stored[0] !== LITERAL_FORMAT
    let bytes = legacy ? 0 : literalBytes(stored)
    let kept: Buffer | undefined
    return {
      get bytes() {
        return bytes
      },
      async literal() {
        if (kept) return kept
        const literal = legacy ? await legacyLiteral(stored) : await inflate(stored, bytes)
        if (legacy) bytes = literal?.length ?? 0
        kept = keep(literal)
        return literal
      },
    }
  }
  return (hash) => {
    if (!known.has(hash)) {
      const stored = read(hash)
      known.set(hash, stored && stored.byteLength ? textOf(stored) : undefined)
    }
    return known.get(hash)
  }
}
