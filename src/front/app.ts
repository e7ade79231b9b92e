/**
 * The front process's routes. It owns ingest and the public artifacts (both
 * registered from src/api/front-operations.ts, the list the OpenAPI document
 * is built from), answers every preflight, and forwards everything else to
 * the control worker.
 */
import { INGEST_OPERATIONS, PUBLIC_ARTIFACTS } from '../api/front-operations.js'
import { apiAddresses, artifactAddresses } from '../routes.js'
import type { Artifacts } from './artifacts.js'
import { handleChunk, handleSignals, type IngestDeps } from './ingest.js'
import type { Proxy } from './proxy.js'
import { send, sendPreflight } from './reply.js'
import type { HttpRequest, HttpResponse, TemplatedApp, UwsModule } from './uws.js'

export interface FrontDeps extends IngestDeps {
  artifacts: Artifacts
  proxy: Proxy
}

type Handler = (deps: IngestDeps, res: HttpResponse, req: HttpRequest) => void

const INGEST_HANDLERS: Record<string, Handler> = {
  ingestSessionChunk: handleChunk,
  ingestSignalsBatch: handleSignals,
}

export function createFrontApp(uws: UwsModule, deps: FrontDeps): TemplatedApp {
  const app = uws.App()
  app.options('/*', (res) => sendPreflight(res))
  for (const op of INGEST_OPERATIONS) {
    const handler = INGEST_HANDLERS[op.operationId]
    if (!handler) throw new Error(`no handler for ${op.operationId}`)
    for (const path of apiAddresses(op.route)) app.post(path, (res, req) => handler(deps, res, req))
  }
  for (const op of PUBLIC_ARTIFACTS) {
    const artifact = deps.artifacts.byPath.get(op.route)
    if (!artifact) throw new Error(`no artifact for ${op.route}`)
    for (const path of artifactAddresses(op.route)) {
      app.get(path, (res) => send(res, 200, artifact.body, artifact.contentType, [['Cache-Control', artifact.cacheControl]]))
    }
  }
  app.any('/*', (res, req) => deps.proxy.handle(res, req))
  return app
}
