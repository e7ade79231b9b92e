/**
 * GET /capture?pk=: the project's capture settings, which the tracker reads
 * once per page load at most (it caches them for 5 minutes) and never on the
 * page's critical path: it records meanwhile and holds the recording until it
 * knows. A read of the memory-mapped project record; nothing is written.
 */
import { isPublicKey } from '../contract/chunk-checks.js'
import { captureOf } from '../recordings/capture.js'
import type { IngestDeps } from './ingest.js'
import { guard, send, sendError } from './reply.js'
import type { HttpRequest, HttpResponse } from './uws.js'

export function handleCapture(deps: IngestDeps, res: HttpResponse, req: HttpRequest): Promise<void> | void {
  guard(res)
  const pk = req.getQuery('pk') ?? ''
  if (!isPublicKey(pk)) return sendError(res, 'invalid_request', { ingest: true, error: 'The pk parameter is not a public key.' })
  // An online compaction has the store closed for a second or two: the answer waits for it.
  const closed = deps.whenStoreOpen?.()
  if (closed) return closed.then(() => answerCapture(deps, res, pk))
  answerCapture(deps, res, pk)
}

function answerCapture(deps: IngestDeps, res: HttpResponse, pk: string): void {
  const projectId = deps.store.projectIdForPublicKey(pk)
  const project = projectId ? deps.store.getProject(projectId) : undefined
  if (!project) return sendError(res, 'not_found', { ingest: true, error: 'No project matches the public key.' })
  // Not cached by the browser: the tracker keeps its own copy, and a change must reach it within its 5 minutes.
  send(res, 200, JSON.stringify(captureOf(project)), 'application/json', [['Cache-Control', 'no-store']])
}
