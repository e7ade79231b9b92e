/**
 * The front process's routes. It owns ingest and the public artifacts (both
 * registered from src/front/operations.ts, the list the OpenAPI document
 * is built from), answers every preflight, and forwards everything else to
 * the control worker.
 */
import { INGEST_OPERATIONS, PUBLIC_ARTIFACTS } from './operations.js'
import { apiAddresses, artifactAddresses } from '../contract/routes.js'
import type { Artifacts } from './artifacts.js'
import { handleCapture } from './capture.js'
import { handleChunk, handleSignals, handleStyle, ingestFault, type IngestDeps } from './ingest.js'
import type { Proxy } from './proxy.js'
import type { UntrustedProxyWatch } from './proxy-warning.js'
import { send, sendError, sendPreflight } from './reply.js'
import { safely } from './safe.js'
import type { HttpRequest, HttpResponse, TemplatedApp, UwsModule } from './uws.js'

export interface FrontDeps extends IngestDeps {
  artifacts: Artifacts
  proxy: Proxy
  /** Requests from a proxy on this host that TRUST_PROXY does not name: /health says so. */
  proxies: UntrustedProxyWatch
  /** GET /metrics (./metrics-route.ts). */
  metrics: (res: HttpResponse, req: HttpRequest) => Promise<void>
}

type Handler = (deps: IngestDeps, res: HttpResponse, req: HttpRequest) => Promise<void> | void

const INGEST_HANDLERS: Record<string, Handler> = {
  ingestSessionChunk: handleChunk,
  ingestSignalsBatch: handleSignals,
  ingestStylesheet: handleStyle,
  getCaptureSettings: handleCapture,
}

/** A fault outside ingest is the server's own: the one case a 500 is honest. */
const serverFault = (res: HttpResponse) => sendError(res, 'internal_error')

/** /health as built at start, with the warnings of the moment, if any. */
function healthBody(built: Buffer, proxies: UntrustedProxyWatch): Buffer {
  const warning = proxies.warning
  return warning ? Buffer.from(JSON.stringify({ ...JSON.parse(built.toString('utf8')), warnings: [warning] })) : built
}

export function createFrontApp(uws: UwsModule, deps: FrontDeps): TemplatedApp {
  const app = uws.App()
  app.options('/*', safely('preflight', (res) => sendPreflight(res), serverFault))
  for (const op of INGEST_OPERATIONS) {
    const handler = INGEST_HANDLERS[op.operationId]
    if (!handler) throw new Error(`no handler for ${op.operationId}`)
    const onFault = (res: HttpResponse, error: unknown) => ingestFault(deps, res, error)
    const register = op.method === 'GET' ? app.get.bind(app) : app.post.bind(app)
    for (const path of apiAddresses(op.route)) register(path, safely(op.operationId, (res, req) => handler(deps, res, req), onFault))
  }
  for (const op of PUBLIC_ARTIFACTS) {
    const artifact = deps.artifacts.byPath.get(op.route)
    if (!artifact) throw new Error(`no artifact for ${op.route}`)
    const serve = (res: HttpResponse) => send(res, 200, op.route === '/health' ? healthBody(artifact.body, deps.proxies) : artifact.body, artifact.contentType, [['Cache-Control', artifact.cacheControl]])
    for (const path of artifactAddresses(op.route)) app.get(path, safely(op.operationId, serve, serverFault))
  }
  app.get('/metrics', safely('metrics', deps.metrics, serverFault))
  app.any('/*', safely('proxy', (res, req) => deps.proxy.handle(res, req), serverFault))
  return app
}
