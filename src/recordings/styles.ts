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
 */
import { createHash } from 'node:crypto'
import { gunzipSync, gzipSync } from 'node:zlib'

/** Most bytes a stylesheet's text may have: 4 MiB, over 20 times the largest of the benchmark's applications (swagger-ui.css, 188 KB). */
export const MAX_STYLE_BYTES = 4 * 1024 * 1024
/**
 * What one project may keep of stylesheet texts: a site has tens of them, and
 * anyone holding its public key can upload, so both bounds stop a stranger
 * from filling the disk. Past them an upload answers 409 quota_exceeded and
 * the tracker leaves that stylesheet inline in the recording, as before.
 */
export const MAX_STYLES_PER_PROJECT = 500
export const MAX_STYLE_STORED_BYTES_PER_PROJECT = 50 * 1024 * 1024

/** Why a project has no room for one more stylesheet of `bytes` stored bytes, or undefined when it has. */
export function styleQuotaRefusal(held: { styleCount?: number; styleBytes?: number }, bytes: number): string | undefined {
  if ((held.styleCount ?? 0) >= MAX_STYLES_PER_PROJECT) return `The project holds ${MAX_STYLES_PER_PROJECT} stylesheets, as many as it may.`
  if ((held.styleBytes ?? 0) + bytes > MAX_STYLE_STORED_BYTES_PER_PROJECT) return `The project's stylesheets would pass ${MAX_STYLE_STORED_BYTES_PER_PROJECT} stored bytes.`
  return undefined
}

export const STYLE_HASH = /^[0-9a-f]{64}$/

/** The reference the tracker leaves in a node's attributes; the JSON the read side looks for. */
export const STYLE_REF_KEY = '_svcCss'
const REF = Buffer.from(`"${STYLE_REF_KEY}":"`)
/** A reference is the key, 64 hex digits and the closing quote. */
const REF_BYTES = REF.length + 64 + 1

export type CheckedStyle = { ok: true; gzipped: Uint8Array } | { ok: false; error: string }

const isGzip = (body: Uint8Array) => body.byteLength >= 2 && body[0] === 0x1f && body[1] === 0x8b

/**
 * The stylesheet as it is stored (gzipped), if `body` (its UTF-8 text, raw or
 * gzipped) has the SHA-256 `hash`; else why not.
 */
export function checkStyle(body: Uint8Array, hash: string): CheckedStyle {
  let text: Buffer
  try {
    text = isGzip(body) ? gunzipSync(body, { maxOutputLength: MAX_STYLE_BYTES }) : Buffer.from(body.buffer, body.byteOffset, body.byteLength)
  } catch (error) {
    // zlib refuses past maxOutputLength with a RangeError: a bomb or a stylesheet over the bound.
    if (error instanceof RangeError || (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return { ok: false, error: `The stylesheet inflates past ${MAX_STYLE_BYTES} bytes.` }
    return { ok: false, error: 'The body is neither gzip nor text.' }
  }
  if (createHash('sha256').update(text).digest('hex') !== hash) return { ok: false, error: 'The body\'s SHA-256 is not the hash parameter.' }
  return { ok: true, gzipped: isGzip(body) ? body : gzipSync(text) }
}

/**
 * Puts each stylesheet back into an event's JSON: every `"_svcCss":"<hash>"`
 * whose text `lookup` finds becomes `"_cssText":"<the text>"`. An event that
 * refers to none is answered as it is (one scan of its bytes); a reference
 * with no text stays as it is, and so does any past `maxBytes` of event.
 */
export function restoreStyles(event: Buffer, lookup: (hash: string) => Buffer | undefined, maxBytes: number): Buffer {
  let at = event.indexOf(REF)
  if (at < 0) return event
  const parts: Buffer[] = []
  let from = 0
  let size = event.length
  while (at >= 0) {
    const hash = event.toString('latin1', at + REF.length, at + REF.length + 64)
    const quoted = STYLE_HASH.test(hash) && event[at + REF_BYTES - 1] === 0x22 ? lookup(hash) : undefined
    const grows = quoted ? CSS_TEXT_KEY.length + quoted.length - REF_BYTES : 0
    if (quoted && size + grows <= maxBytes) {
      parts.push(event.subarray(from, at), CSS_TEXT_KEY, quoted)
      size += grows
      from = at + REF_BYTES
    }
    at = event.indexOf(REF, at + REF.length)
  }
  if (!parts.length) return event
  parts.push(event.subarray(from))
  return Buffer.concat(parts)
}

const CSS_TEXT_KEY = Buffer.from('"_cssText":')

/**
 * A lookup for one answer: each stylesheet read from the store and inflated
 * once, kept as its JSON string literal (the bytes restoreStyles splices in).
 */
export function styleLookup(read: (hash: string) => Uint8Array | undefined): (hash: string) => Buffer | undefined {
  const known = new Map<string, Buffer | undefined>()
  return (hash) => {
    if (known.has(hash)) return known.get(hash)
    let quoted: Buffer | undefined
    try {
      const stored = read(hash)
      if (stored) quoted = Buffer.from(JSON.stringify(gunzipSync(stored, { maxOutputLength: MAX_STYLE_BYTES }).toString('utf8')))
    } catch {
      // A stored text that does not inflate (damaged storage): the reference stays, the replay lacks those styles.
      quoted = undefined
    }
    known.set(hash, quoted)
    return quoted
  }
}
