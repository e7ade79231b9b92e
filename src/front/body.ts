/**
 * Reads a request body with a byte cap, while it arrives.
 *
 * A declared Content-Length over the cap is refused before a byte is read.
 * A body without one (chunked) is counted in onData and refused the moment
 * the count passes the cap; the rest is drained unread, so the 413 is not
 * destroyed by a reset (closing a socket with unread bytes makes the kernel
 * send RST). uWebSockets.js reuses each onData buffer, so chunks are copied,
 * into a buffer from `pool` when the caller gives the body back after use.
 */
import type { BodyPool } from './body-pool.js'
import { whenLeft } from './reply.js'
import type { HttpRequest, HttpResponse } from './uws.js'

export type BodyResult = { ok: true; body: Uint8Array } | { ok: false; reason: 'too_large' | 'aborted' }

/** `content-length` as a number, or undefined when absent or unparsable. */
export function declaredLength(req: HttpRequest): number | undefined {
  const raw = req.getHeader('content-length')
  if (raw === '') return undefined
  const value = Number(raw)
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined
}

/**
 * Starts reading; must be called inside the request handler (before any await),
 * after `guard(res)`. Resolves when the body is complete, the cap is passed, or
 * the client goes away.
 */
export function readBody(res: HttpResponse, declared: number | undefined, cap: number, pool?: BodyPool): Promise<BodyResult> {
  if (declared === 0) return Promise.resolve({ ok: true, body: new Uint8Array(0) })
  return new Promise((resolve) => {
    let buffer = declared === undefined ? new Uint8Array(Math.min(cap, 16 * 1024)) : pool ? pool.take(declared) : new Uint8Array(declared)
    let length = 0
    let settled = false
    const finish = (result: BodyResult) => {
      if (!settled) {
        settled = true
        resolve(result)
      }
    }
    res.onData((chunk, isLast) => {
      if (settled) return // draining after a refusal, or a client that sends more than it declared
      if (res.aborted) return finish({ ok: false, reason: 'aborted' })
      const size = chunk.byteLength
      if (length + size > cap) return finish({ ok: false, reason: 'too_large' })
      if (length + size > buffer.byteLength) {
        const grown = new Uint8Array(Math.min(cap, Math.max(buffer.byteLength * 2, length + size)))
        grown.set(buffer.subarray(0, length))
        buffer = grown
      }
      buffer.set(new Uint8Array(chunk), length)
      length += size
      if (isLast) finish({ ok: true, body: length === buffer.byteLength ? buffer : buffer.slice(0, length) })
    })
    whenLeft(res, () => finish({ ok: false, reason: 'aborted' }))
  })
}
