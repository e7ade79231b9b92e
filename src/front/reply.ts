/**
 * Writing answers with uWebSockets.js. Every answer carries the CORS headers
 * and `X-Content-Type-Options: nosniff` (CORS_HEADERS, proxied answers too);
 * every error is the JSON error body from src/errors.ts. Callers must have
 * checked `res.aborted` (set by `guard`) before answering after an await.
 */
import { STATUS_CODES } from 'node:http'
import { errorBody, statusOf, type ErrorCode, type ErrorOptions } from '../errors.js'
import { answered } from './request-metrics.js'
import type { HttpResponse } from './uws.js'

export const CORS_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Access-Control-Allow-Origin', '*'],
  // Retry-After: a tracker on another origin reads it from a 429 (not a CORS-safelisted header).
  ['Access-Control-Expose-Headers', 'X-Svc-Encoding, Content-Length, Retry-After'],
  // Not CORS, but due on every answer alike: a browser must never sniff an answer into script or HTML.
  ['X-Content-Type-Options', 'nosniff'],
]

export const PREFLIGHT_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Access-Control-Allow-Methods', 'GET, POST, OPTIONS'],
  ['Access-Control-Allow-Headers', 'Content-Type, Authorization, X-Svc-Meta, Accept'],
  // A day: browsers cap it lower anyway (Chromium at 2 h), and the answer never changes.
  ['Access-Control-Max-Age', '86400'],
]

const OK_BODY = '{"ok":true}'

export function statusLine(status: number): string {
  return `${status} ${STATUS_CODES[status] ?? 'Unknown'}`
}

/** Marks the response when the client goes away; every handler that answers later calls this first. */
export function guard(res: HttpResponse): HttpResponse {
  res.aborted = false
  // uWebSockets.js keeps one abort handler per response: whatever else must know (a body being read, a write waiting
  // to drain, a streamed answer's source) adds itself with whenLeft instead of replacing this one.
  res.leaveHooks = []
  res.onAborted(() => {
    res.aborted = true
    answered(res, 'aborted')
    for (const hook of res.leaveHooks.splice(0)) hook()
  })
  return res
}

/** Runs `hook` if the client leaves before the answer is sent; the function returned takes it back. */
export function whenLeft(res: HttpResponse, hook: () => void): () => void {
  if (!res.leaveHooks) guard(res)
  const hooks: Array<() => void> = res.leaveHooks
  hooks.push(hook)
  return () => {
    const at = hooks.indexOf(hook)
    if (at >= 0) hooks.splice(at, 1)
  }
}

export function send(
  res: HttpResponse,
  status: number,
  body: string | Uint8Array,
  contentType: string,
  headers: ReadonlyArray<readonly [string, string]> = [],
): void {
  if (res.aborted) return
  answered(res, status)
  res.cork(() => {
    res.writeStatus(statusLine(status))
    for (const [name, value] of CORS_HEADERS) res.writeHeader(name, value)
    res.writeHeader('Content-Type', contentType)
    for (const [name, value] of headers) res.writeHeader(name, value)
    res.end(body)
  })
  res.aborted = true // answered: nothing may touch res any more
}

export function sendJson(res: HttpResponse, status: number, value: unknown): void {
  send(res, status, JSON.stringify(value), 'application/json')
}

export function sendOk(res: HttpResponse): void {
  send(res, 200, OK_BODY, 'application/json')
}

export function sendError(res: HttpResponse, code: ErrorCode, options?: ErrorOptions, headers?: ReadonlyArray<readonly [string, string]>): void {
  send(res, statusOf(code), JSON.stringify(errorBody(code, options)), 'application/json', headers)
}

export function sendPreflight(res: HttpResponse): void {
  answered(res, 204)
  res.cork(() => {
    res.writeStatus(statusLine(204))
    for (const [name, value] of CORS_HEADERS) res.writeHeader(name, value)
    for (const [name, value] of PREFLIGHT_HEADERS) res.writeHeader(name, value)
    res.endWithoutBody(0)
  })
}
