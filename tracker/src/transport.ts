/**
 * Uploads to the ingest endpoints (chunks, signals, stylesheets). One attempt is one request with a
 * timeout; a failure is retried with capped exponential backoff and jitter,
 * except for a 4xx (other than 408 and 429), which no retry can fix; after a
 * 429 it waits at least the server's Retry-After (capped like the backoff):
 * the server stored nothing and wants the same body again. A 404 means the
 * project key is unknown: the transport then stops for good and tells the
 * tracker, which stops recording. Keepalive requests (the ones that must
 * outlive the page) are kept inside the browser's in-flight quota.
 */
import { BACKOFF_BASE_MS, BACKOFF_CAP_MS, KEEPALIVE_BUDGET_BYTES, REQUEST_TIMEOUT_MS, RETRIES } from './config.js'
import type { Guard } from './guard.js'

export type Outcome = 'ok' | 'refused' | 'failed'

/** The byte length of `{"ok":true}`, the answer to a chunk nobody follows. */
const PLAIN_OK_LENGTH = '11'

export interface SendOptions {
  headers?: Record<string, string>
  /** The page is going away: one attempt, keepalive when the quota allows. */
  unloading?: boolean
}

export interface Transport {
  /** `path` may carry a query of its own (`styles?hash=…`). */
  send(path: 'ingest' | 'signals' | `styles?${string}`, body: Uint8Array | string, options?: SendOptions): Promise<Outcome>
  /** sendBeacon for signals at unload (text/plain: no CORS preflight). False when the browser refused it. */
  beacon(body: string): boolean
  readonly stopped: boolean
  counters: { sent: number; retries: number; failed: number; refused: number }
}

export interface TransportOptions {
  origin: string
  publicKey: string
  guard: Guard
  /** Called once when the server says the key is unknown (404). */
  onGone: () => void
  /** After each acknowledged chunk: whether someone follows this session live (the answer's `watched`), and how often to send then. */
  onWatched?: (watched: boolean, flushMs?: number) => void
  random?: () => number
}

export const backoff = (attempt: number, random: () => number) => {
  const base = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt)
  return base + base * 0.5 * random()
}

const sizeOf = (body: Uint8Array | string) => (typeof body === 'string' ? body.length * 3 : body.byteLength)

export function createTransport(options: TransportOptions): Transport {
  const random = options.random ?? Math.random
  const url = (path: string) => `${options.origin}/api/${path}${path.includes('?') ? '&' : '?'}pk=${encodeURIComponent(options.publicKey)}`
  let keepaliveInFlight = 0
  let stopped = false
  const counters = { sent: 0, retries: 0, failed: 0, refused: 0 }

  /** The status (or `failed`) and how long the server asked to wait before the next try, ms. */
  const attempt = async (path: string, body: Uint8Array | string, sendOptions: SendOptions): Promise<[Outcome | number, number]> => {
    const bytes = sizeOf(body)
    const keepalive = !!sendOptions.unloading && keepaliveInFlight + bytes <= KEEPALIVE_BUDGET_BYTES
    if (keepalive) keepaliveInFlight += bytes
    const controller = typeof AbortController === 'function' ? new AbortController() : undefined
    const timer = setTimeout(options.guard.wrap(() => controller?.abort()), REQUEST_TIMEOUT_MS)
    try {
      const res = await fetch(url(path), {
        method: 'POST',
        body: body as BodyInit,
        headers: sendOptions.headers,
        keepalive,
        credentials: 'omit',
        mode: 'cors',
        signal: controller?.signal,
      })
      const onWatched = options.onWatched
      if (path === 'ingest' && res.ok && onWatched) {
        // Only an answer longer than {"ok":true} is read: a visitor nobody follows pays no parse.
        if (res.headers.get('Content-Length') === PLAIN_OK_LENGTH) options.guard.run(() => onWatched(false))
        else res.json().then(options.guard.wrap((answer: { watched?: unknown; flushMs?: unknown }) => onWatched(answer?.watched === true, typeof answer?.flushMs === 'number' ? answer.flushMs : undefined)), () => {})
      }
      return [res.status, Math.min(BACKOFF_CAP_MS, 1000 * Number(res.headers.get('Retry-After')) || 0)]
    } catch {
      return ['failed', 0] // network error, CORS failure, timeout abort: worth a retry
    } finally {
      clearTimeout(timer)
      if (keepalive) keepaliveInFlight -= bytes
    }
  }

  const send: Transport['send'] = async (path, body, sendOptions = {}) => {
    const tries = sendOptions.unloading ? 1 : RETRIES + 1
    let wait = 0
    for (let i = 0; i < tries && !stopped; i++) {
      if (i > 0) {
        counters.retries++
        await new Promise((resolve) => setTimeout(resolve, Math.max(wait, backoff(i - 1, random))))
      }
      const [status, retryAfter] = await attempt(path, body, sendOptions)
      wait = retryAfter
      if (typeof status === 'number' && status >= 200 && status < 300) {
        counters.sent++
        return 'ok'
      }
      if (typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429) {
        counters.refused++
        if (status === 404 && !stopped) {
          stopped = true
          options.guard.run(options.onGone)
        }
        return 'refused'
      }
    }
    counters.failed++
    return 'failed'
  }

  return {
    send,
    beacon(body) {
      if (stopped || typeof navigator.sendBeacon !== 'function') return false
      try {
        const queued = navigator.sendBeacon(url('signals'), body)
        if (queued) counters.sent++
        return queued
      } catch {
        return false // the browser refused the beacon (quota); the caller counts the loss
      }
    },
    get stopped() {
      return stopped
    },
    counters,
  }
}
