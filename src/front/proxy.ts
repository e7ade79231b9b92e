/**
 * Forwards every route the front does not own to the control worker over a
 * pooled undici connection, streaming the answer back with uWebSockets.js
 * backpressure (a large export never sits whole in the front's memory).
 */
import { Pool } from 'undici'
import { LIMITS } from '../config.js'
import { log } from '../log.js'
import { CLIENT_HOST_HEADER, CLIENT_IP_HEADER, CONTROL_SECRET_HEADER } from '../supervisor/messages.js'
import { declaredLength, readBody } from './body.js'
import { clientAddressOf, type TrustedProxies } from './client-address.js'
import type { UntrustedProxyWatch } from './proxy-warning.js'
import { CORS_HEADERS, guard, sendError, statusLine, whenLeft } from './reply.js'
import { answered } from './request-metrics.js'
import type { HttpRequest, HttpResponse } from './uws.js'

/** Headers that describe one hop, not the message (RFC 9110 §7.6.1), plus those uWebSockets.js writes itself. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'upgrade', 'proxy-connection', 'content-length', 'date', 'host'])
/** Answers up to this size are buffered and sent with a Content-Length; larger ones stream. */
const BUFFERED_ANSWER_BYTES = 256 * 1024
const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS'])
/** uWebSockets.js answers `Expect: 100-continue` itself; undici refuses to send an Expect header at all. */
const NOT_FORWARDED = new Set([...HOP_HEADERS, 'expect'])
/** What undici sends in a header value (its own check, RFC 9110 §5.5): tab, visible ASCII, obs-text. */
const UNSENDABLE_VALUE = /[^\t\x20-\x7e\x80-\xff]/
/** What undici sends in a path: no control characters or spaces, nothing past one byte. */
const UNSENDABLE_PATH = /[^\x21-\x7e]/
/** undici's codes for a request it refuses to send, as opposed to a connection that failed. */
const REFUSED_BY_UNDICI = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED'])

/**
 * A streamed answer goes to uWebSockets.js in pieces that fit its 16 KB cork buffer with their chunk header. A
 * larger write flushes the cork buffer (the header) first, and when the socket cannot take even that, uWS's
 * AsyncSocket::uncork returns without writing the data it was passed: the client reads a broken chunked stream
 * (seen once in test/control/recording-stream.test.ts, HPE_INVALID_CHUNK_SIZE). A piece that fits is copied
 * into the cork buffer, which uWS keeps whole when the socket is full.
 */
const PIECE_BYTES = 15 * 1024

/** The route whose answer is a feed that lasts (src/control/operations/live.ts). */
const FEED_ROUTE = 'sessions.follow'

export interface Proxy {
  handle(res: HttpResponse, req: HttpRequest): Promise<void> | void
  close(): Promise<void>
}

/** `stalledReaderMs`: how long a streamed answer waits for a client that reads nothing before it is dropped (STALLED_READER_MS). */
export function createProxy(controlUrl: string, controlSecret: string, trusted: TrustedProxies, proxies: UntrustedProxyWatch, stalledReaderMs = 60_000): Proxy {
  const pool = new Pool(controlUrl, { connections: 32, pipelining: 1, keepAliveTimeout: 30_000 })
  // A followed session holds its connection for minutes: such feeds get connections of their own, never the pool's 32.
  const feeds = new Pool(controlUrl, { connections: 1024, pipelining: 1, keepAliveTimeout: 5_000 })

  async function forward(res: HttpResponse, method: string, path: string, headers: Record<string, string>, bodyPromise: Promise<Uint8Array | 'too_large' | 'aborted'>): Promise<void> {
    const body = await bodyPromise
    // uWebSockets.js closes a connection on which a request arrives before the one before it is
    // answered (it refuses async pipelining), in the same turn of the event loop: wait that turn
    // out, so that a request whose answer can no longer be sent is not carried out either.
    await new Promise((resolve) => setImmediate(resolve))
    if (body === 'aborted' || res.aborted) return
    if (body === 'too_large') return sendError(res, 'payload_too_large', { hint: `Control requests are capped at ${LIMITS.controlBodyBytes} bytes.` })
    let upstream
    try {
      upstream = await (path.includes(FEED_ROUTE) ? feeds : pool).request({ method: method as 'GET', path, headers, body: BODYLESS.has(method) ? undefined : body })
    } catch (error) {
      if (REFUSED_BY_UNDICI.has((error as { code?: string })?.code ?? '')) {
        // Nothing here is the control worker's fault: this request cannot be written to it as it came.
        return sendError(res, 'invalid_request', { error: 'The request cannot be forwarded: a header or the path holds bytes HTTP does not allow there.' })
      }
      log.error('control worker unreachable', { error: String(error) })
      return sendError(res, 'internal_error', { hint: 'The control worker is restarting; retry in a moment.' })
    }
    if (res.aborted) return discard(upstream.body)
    const writeHead = () => {
      answered(res, upstream.statusCode)
      res.writeStatus(statusLine(upstream.statusCode))
      for (const [name, value] of CORS_HEADERS) res.writeHeader(name, value)
      for (const [name, value] of Object.entries(upstream.headers)) {
        if (HOP_HEADERS.has(name) || name.startsWith('access-control-') || name === 'x-content-type-options' || value === undefined) continue
        for (const v of Array.isArray(value) ? value : [value]) res.writeHeader(name, v)
      }
      return res
    }
    const length = Number(upstream.headers['content-length'])
    if (Number.isSafeInteger(length) && length <= BUFFERED_ANSWER_BYTES) {
      // Small answers (nearly all JSON) go out whole, with their Content-Length.
      const bytes = Buffer.from(await upstream.body.arrayBuffer())
      if (!res.aborted) res.cork(() => writeHead().end(bytes))
      res.aborted = true
      return
    }
    res.cork(writeHead)
    // A live feed's next piece may be 15 s away: stop reading it the moment the client leaves.
    whenLeft(res, () => discard(upstream.body))
    try {
      for await (const chunk of upstream.body) {
        const bytes = chunk as Buffer
        for (let at = 0; at < bytes.byteLength; at += PIECE_BYTES) {
          if (res.aborted) return discard(upstream.body)
          let drained = true
          res.cork(() => {
            drained = res.write(bytes.subarray(at, at + PIECE_BYTES))
          })
          if (!drained && !(await writable(res, stalledReaderMs))) {
            // A client that takes nothing for this long is gone in all but name: its answer (a live feed's watch
            // included) is let go rather than held.
            log.warn('streamed answer dropped: the client read nothing', { path, ms: stalledReaderMs })
            res.aborted = true
            res.close()
            return discard(upstream.body)
          }
        }
      }
      if (!res.aborted) res.cork(() => res.end())
    } catch (error) {
      // The client left and its source was let go (whenLeft above): nothing failed.
      if (res.aborted) return
      log.error('proxy stream failed', { error: String(error) })
      if (!res.aborted) res.cork(() => res.close())
    }
    res.aborted = true
  }

  return {
    handle(res, req) {
      guard(res)
      const method = req.getCaseSensitiveMethod().toUpperCase()
      const query = req.getQuery()
      const path = forwardablePath(req.getUrl() + (query ? `?${query}` : ''))
      const headers: Record<string, string> = {}
      let unsendable: string | undefined
      const forwardedFor: string[] = []
      const forwarded: string[] = []
      req.forEach((name, value) => {
        // Every line of each, in order: HAProxy adds its own X-Forwarded-For line after the client's.
        if (name === 'x-forwarded-for') forwardedFor.push(value)
        else if (name === 'forwarded') forwarded.push(value)
        if (NOT_FORWARDED.has(name)) return
        // uWS hands each value byte for byte (latin1), so obs-text goes on unchanged; only a DEL cannot.
        if (UNSENDABLE_VALUE.test(value)) unsendable ??= name
        else headers[name] = value
      })
      if (unsendable === 'authorization') {
        return sendError(res, 'unauthorized', { error: 'The Authorization header holds a control character.', hint: 'Send Authorization: Bearer <API key or setup token>.' })
      }
      if (unsendable) return sendError(res, 'invalid_request', { error: `The ${unsendable} header holds a control character, which HTTP does not allow in a value.` })
      const peer = Buffer.from(res.getRemoteAddressAsText()).toString()
      proxies.note(peer, forwardedFor.length + forwarded.length > 0)
      headers[CLIENT_IP_HEADER] = clientAddressOf(peer, forwardedFor, forwarded, trusted)
      headers[CLIENT_HOST_HEADER] = req.getHeader('host')
      headers[CONTROL_SECRET_HEADER] = controlSecret
      const declared = declaredLength(req)
      if (declared !== undefined && declared > LIMITS.controlBodyBytes) {
        return sendError(res, 'payload_too_large', { hint: `Control requests are capped at ${LIMITS.controlBodyBytes} bytes.` })
      }
      const bodyPromise =
        BODYLESS.has(method) && !declared
          ? Promise.resolve(new Uint8Array(0))
          : readBody(res, declared, LIMITS.controlBodyBytes).then((r) => (r.ok ? r.body : r.reason))
      return forward(res, method, path, headers, bodyPromise)
    },
    close: async () => {
      // A feed never ends by itself: its connections are cut, not waited for.
      await Promise.all([pool.close(), feeds.destroy()])
    },
  }
}

/**
 * The path as undici will send it: a byte it refuses (a space, a control
 * character, a UTF-8 sequence uWS handed over as latin1) is percent-encoded,
 * which names the same resource. One pass over the string.
 */
export function forwardablePath(path: string): string {
  if (!UNSENDABLE_PATH.test(path)) return path
  let out = ''
  for (const char of path) {
    const code = char.charCodeAt(0)
    if (code > 0x20 && code < 0x7f) out += char
    else for (const byte of Buffer.from(char, code <= 0xff ? 'latin1' : 'utf8')) out += `%${byte.toString(16).padStart(2, '0').toUpperCase()}`
  }
  return out
}

/**
 * Drops an answer nobody will read (the client went away). undici's body
 * emits RequestAbortedError when destroyed; without a listener that error was
 * uncaught and ended the front (found by test/front/fuzz.test.ts).
 */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => {
    // expected: the abort this very call causes
  })
  body.destroy()
}

/** True when uWebSockets.js has flushed the backpressure of `res` (or the client left); false after `ms` without. */
function writable(res: HttpResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      forget()
      resolve(false)
    }, ms)
    const forget = whenLeft(res, () => {
      clearTimeout(timer)
      resolve(true)
    })
    res.onWritable(() => {
      clearTimeout(timer)
      forget()
      resolve(true)
      return true
    })
  })
}
