/**
 * Forwards every route the front does not own to the control worker over a
 * pooled undici connection, streaming the answer back with uWebSockets.js
 * backpressure (a large export never sits whole in the front's memory).
 */
import { Pool } from 'undici'
import { LIMITS } from '../config.js'
import { log } from '../log.js'
import { CLIENT_HOST_HEADER, CLIENT_IP_HEADER, CONTROL_SECRET_HEADER } from '../messages.js'
import { declaredLength, readBody } from './body.js'
import { CORS_HEADERS, guard, sendError, statusLine } from './reply.js'
import type { HttpRequest, HttpResponse } from './uws.js'

/** Headers that describe one hop, not the message (RFC 9110 §7.6.1), plus those uWebSockets.js writes itself. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'upgrade', 'proxy-connection', 'content-length', 'date', 'host'])
/** Answers up to this size are buffered and sent with a Content-Length; larger ones stream. */
const BUFFERED_ANSWER_BYTES = 256 * 1024
const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS'])

export interface Proxy {
  handle(res: HttpResponse, req: HttpRequest): void
  close(): Promise<void>
}

export function createProxy(controlUrl: string, controlSecret: string): Proxy {
  const pool = new Pool(controlUrl, { connections: 32, pipelining: 1, keepAliveTimeout: 30_000 })

  async function forward(res: HttpResponse, method: string, path: string, headers: Record<string, string>, bodyPromise: Promise<Uint8Array | 'too_large' | 'aborted'>) {
    const body = await bodyPromise
    if (body === 'aborted' || res.aborted) return
    if (body === 'too_large') return sendError(res, 'payload_too_large', { hint: `Control requests are capped at ${LIMITS.controlBodyBytes} bytes.` })
    let upstream
    try {
      upstream = await pool.request({ method: method as 'GET', path, headers, body: BODYLESS.has(method) ? undefined : body })
    } catch (error) {
      log.error('control worker unreachable', { error: String(error) })
      return sendError(res, 'internal_error', { hint: 'The control worker is restarting; retry in a moment.' })
    }
    if (res.aborted) return upstream.body.destroy()
    const writeHead = () => {
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
    try {
      for await (const chunk of upstream.body) {
        if (res.aborted) return upstream.body.destroy()
        let drained = true
        res.cork(() => {
          drained = res.write(chunk as Buffer)
        })
        if (!drained) await writable(res)
      }
      if (!res.aborted) res.cork(() => res.end())
    } catch (error) {
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
      const path = req.getUrl() + (query ? `?${query}` : '')
      const headers: Record<string, string> = {}
      req.forEach((name, value) => {
        if (!HOP_HEADERS.has(name)) headers[name] = value
      })
      headers[CLIENT_IP_HEADER] = Buffer.from(res.getRemoteAddressAsText()).toString()
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
      void forward(res, method, path, headers, bodyPromise)
    },
    close: () => pool.close(),
  }
}

/** Resolves when uWebSockets.js has flushed the backpressure of `res` (or the client left). */
function writable(res: HttpResponse): Promise<void> {
  return new Promise((resolve) => {
    res.onWritable(() => {
      resolve()
      return true
    })
    res.onAborted(() => {
      res.aborted = true
      resolve()
    })
  })
}
