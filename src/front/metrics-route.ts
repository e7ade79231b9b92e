/**
 * GET /metrics on the main port: the cluster's metrics in the Prometheus text
 * format, summed over every process by the primary (src/supervisor/metrics-hub.ts).
 * Without METRICS_TOKEN only loopback clients are answered (a scraper on the
 * same machine); with it, every client that presents it as a bearer token.
 * Behind a trusted proxy (TRUST_PROXY) the client is the one the proxy names,
 * so a proxy on the same host does not make every client a local one.
 */
import { timingSafeEqual } from 'node:crypto'
import { prometheusContentType } from 'prom-client'
import type { MetricsAnswer, MetricsRequest } from '../supervisor/messages.js'
import { isLoopback, requestClient, type TrustedProxies } from './client-address.js'
import type { UntrustedProxyWatch } from './proxy-warning.js'
import { guard, send, sendError } from './reply.js'
import type { HttpRequest, HttpResponse } from './uws.js'

/** How long the front waits for the primary's sum (the primary waits 2 s per child). */
const ANSWER_TIMEOUT_MS = 5_000

export type MetricsAccess = 'allowed' | 'no_token' | 'not_loopback'

/** Who may read /metrics: the one decision, tested on its own (a test cannot connect from off the machine). */
export function metricsAccess(token: string, remoteAddress: string, authorization: string): MetricsAccess {
  if (token) {
    const expected = Buffer.from(`Bearer ${token}`)
    const given = Buffer.from(authorization)
    return given.length === expected.length && timingSafeEqual(given, expected) ? 'allowed' : 'no_token'
  }
  return isLoopback(remoteAddress) ? 'allowed' : 'not_loopback'
}

/**
 * The route; `proxies` notes requests a proxy on this host forwarded without
 * being trusted: their client is somewhere else, never a local one.
 */
export function createMetricsRoute(token: string, trusted: TrustedProxies, proxies: UntrustedProxyWatch) {
  let nextId = 0
  const waiting = new Map<number, (text: string) => void>()
  process.on('message', (message: MetricsAnswer) => {
    if (message?.type === 'metrics-answer') waiting.get(message.id)?.(message.text)
  })

  function ask(): Promise<string | undefined> {
    const id = ++nextId
    return new Promise((resolve) => {
      const timer = setTimeout(() => (waiting.delete(id), resolve(undefined)), ANSWER_TIMEOUT_MS)
      waiting.set(id, (text) => (clearTimeout(timer), waiting.delete(id), resolve(text)))
      process.send?.({ type: 'metrics-request', id } satisfies MetricsRequest)
    })
  }

  return async (res: HttpResponse, req: HttpRequest): Promise<void> => {
    guard(res)
    const peer = Buffer.from(res.getRemoteAddressAsText()).toString()
    const { client, forwarding } = requestClient(peer, req, trusted)
    const access = proxies.note(peer, forwarding) && !token ? 'not_loopback' : metricsAccess(token, client, req.getHeader('authorization'))
    if (access === 'no_token') return sendError(res, 'unauthorized', { error: 'GET /metrics needs the METRICS_TOKEN as a bearer token.', hint: 'Send Authorization: Bearer <METRICS_TOKEN>.' })
    if (access === 'not_loopback') {
      return sendError(res, 'unauthorized', {
        error: 'GET /metrics answers loopback clients only, and a request a proxy forwarded is not one unless TRUST_PROXY names the proxy and the client it names is local.',
        hint: 'Scrape from the same machine, or start the service with METRICS_TOKEN and send it as a bearer token.',
      })
    }
    const text = await ask()
    if (text === undefined) return sendError(res, 'internal_error', { error: 'The metrics were not gathered in time.', hint: 'Retry in a moment.' })
    send(res, 200, text, prometheusContentType)
  }
}
