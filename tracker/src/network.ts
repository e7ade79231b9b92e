/**
 * Network capture (capture.js): each `fetch` and `XMLHttpRequest` as one event
 * when it ends: method, URL (origin and path; the query string only where the
 * project allows it; masked values starred), status (0: failed or opaque),
 * duration, request and response sizes where known without reading a body
 * (the body's own size; the response's Content-Length, else its resource
 * timing entry where one is ready when the request ends), initiator. Never
 * headers, never bodies; never the service's own requests.
 *
 * The wrappers change nothing the page sees: `fetch` calls the page's fetch
 * (whatever it was when capture started, the page's own wrapper included) with
 * the same `this` and arguments and returns the very promise it returned;
 * `open` and `send` call the originals and return their results. What the
 * wrappers add runs inside try/catch or the guard, so it cannot throw into
 * the page; they add no await, so the page's callbacks keep their order.
 */
import { NETWORK_PLUGIN, type CaptureHost } from './capture-host.js'
import { firstTime } from './first-time.js'
import type { Off } from './guard.js'
import { collectSecrets, scrub } from './secrets.js'

interface Pending {
  method: string
  url: string
  /** The whole address, for the resource timing lookup; never recorded. */
  href?: string
  at: number
  started: number
  requestSize?: number
  initiator: 'fetch' | 'xhr'
}

function sizeOf(body: unknown): number | undefined {
  if (body == null) return 0
  if (typeof body === 'string') return new Blob([body]).size
  if (body instanceof Blob) return body.size
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return body.byteLength
  if (body instanceof URLSearchParams) return body.toString().length
  return undefined // FormData, streams: not measured (measuring a stream would read it)
}

const header = (value: string | null) => (value && /^\d+$/.test(value) ? Number(value) : undefined)

export function captureNetwork(host: CaptureHost): Off {
  const { guard, settings } = host
  let stopped = false
  const fresh = firstTime()

  /** What to record of a request to `raw`, or undefined for the service's own requests and unparseable URLs. */
  const begin = (method: unknown, raw: unknown, body: unknown, initiator: Pending['initiator']): Pending | undefined => {
    if (stopped) return undefined
    const url = new URL(String(raw), location.href)
    if (url.href.startsWith(host.origin + '/')) return undefined
    const shown = settings.networkQuery ? url.origin + url.pathname + url.search : url.origin + url.pathname
    return { method: String(method || 'GET').toUpperCase().slice(0, 16), url: shown, href: url.href, at: Date.now(), started: performance.now(), requestSize: sizeOf(body), initiator }
  }

  const finish = guard.wrap((pending: Pending, status: number, responseSize?: number) => {
    if (stopped) return
    // Without Content-Length, the resource timing entry (same-origin, or Timing-Allow-Origin) knows the size.
    const entry = responseSize === undefined && pending.href ? (performance.getEntriesByName(pending.href).pop() as PerformanceResourceTiming | undefined) : undefined
    const payload: Partial<Pending> & Record<string, unknown> = {
      ...pending,
      url: scrub(pending.url, collectSecrets()).slice(0, 2000),
      status,
      duration: Math.round(performance.now() - pending.started),
      responseSize: responseSize ?? (entry && entry.encodedBodySize ? entry.encodedBodySize : undefined),
    }
    delete payload.started
    delete payload.href
    const at = Date.now()
    const failed = status === 0 || status >= 500
    // A failed request is searchable by what the event holds (its method, its URL as shown above, its status), the first time.
    const found = failed ? { ts: at, method: pending.method, url: payload.url!.slice(0, 256), status } : undefined
    host.emit({ type: 6, timestamp: at, data: { plugin: NETWORK_PLUGIN, payload } }, failed ? 2 : undefined, found && fresh(found.method + found.url + status) ? found : undefined)
  })

  const offs: Off[] = []
  const originalFetch = window.fetch
  if (typeof originalFetch === 'function') {
    const wrapper = function (this: unknown, input: RequestInfo | URL, init?: RequestInit) {
      let pending: Pending | undefined
      try {
        const request = typeof Request === 'function' && input instanceof Request ? input : undefined
        pending = begin(init?.method ?? request?.method, request ? request.url : input, init?.body, 'fetch')
      } catch {
        guard.fault()
      }
      // eslint-disable-next-line prefer-rest-params
      const result = originalFetch.apply(this, arguments as unknown as [RequestInfo | URL, RequestInit?])
      if (pending && result && typeof result.then === 'function') {
        const done = pending
        result.then(
          (response) => finish(done, response.status, header(response.headers.get('content-length'))),
          () => finish(done, 0),
        )
      }
      return result
    }
    window.fetch = wrapper as typeof fetch
    offs.push(() => {
      if (window.fetch === wrapper) window.fetch = originalFetch
    })
  }

  const proto = typeof XMLHttpRequest === 'function' ? XMLHttpRequest.prototype : undefined
  if (proto) {
    const requests = new WeakMap<XMLHttpRequest, [unknown, unknown]>()
    const { open, send } = proto
    const openWrapper = function (this: XMLHttpRequest, method: string, url: string | URL) {
      try {
        requests.set(this, [method, url])
      } catch {
        guard.fault()
      }
      // eslint-disable-next-line prefer-rest-params
      return (open as (...args: unknown[]) => void).apply(this, arguments as unknown as unknown[])
    }
    const sendWrapper = function (this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null) {
      try {
        const opened = requests.get(this)
        const pending = opened && begin(opened[0], opened[1], body, 'xhr')
        if (pending) {
          const xhr = this
          xhr.addEventListener('loadend', () => finish(pending, xhr.status, header(xhr.getResponseHeader('content-length'))))
        }
      } catch {
        guard.fault()
      }
      // eslint-disable-next-line prefer-rest-params
      return send.apply(this, arguments as unknown as [XMLHttpRequestBodyInit | null])
    }
    proto.open = openWrapper as typeof proto.open
    proto.send = sendWrapper
    offs.push(() => {
      if (proto.open === openWrapper) proto.open = open
      if (proto.send === sendWrapper) proto.send = send
    })
  }

  return () => {
    stopped = true
    for (const off of offs) guard.run(off)
  }
}
