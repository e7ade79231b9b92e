/**
 * The front process's routes. It owns ingest and the public artifacts, answers
 * every preflight, and forwards everything else to the control worker.
 */
import { apiAddresses, artifactAddresses } from '../routes.js'
import type { Artifacts } from './artifacts.js'
import { handleChunk, handleSignals, type IngestDeps } from './ingest.js'
import type { Proxy } from './proxy.js'
import { send, sendPreflight } from './reply.js'
import type { TemplatedApp, UwsModule } from './uws.js'

export interface FrontDeps extends IngestDeps {
  artifacts: Artifacts
  proxy: Proxy
}

export function createFrontApp(uws: UwsModule, deps: FrontDeps): TemplatedApp {
  const app = uws.App()
  app.options('/*', (res) => sendPreflight(res))
  for (const path of apiAddresses('/ingest')) app.post(path, (res, req) => handleChunk(deps, res, req))
  for (const path of apiAddresses('/signals')) app.post(path, (res, req) => handleSignals(deps, res, req))
  for (const [route, artifact] of deps.artifacts.byPath) {
    for (const path of artifactAddresses(route)) {
      app.get(path, (res) => send(res, 200, artifact.body, artifact.contentType, [['Cache-Control', artifact.cacheControl]]))
    }
  }
  app.any('/*', (res, req) => deps.proxy.handle(res, req))
  return app
}
