/** Page lifecycle (extension): re-key a project's pages under its current rules, and watch it happen. */
import { ApiError } from '../../errors.js'
import type { BackfillRunner } from '../../grouping/backfill.js'
import { backfillStatusSchema, projectIdBody } from '../../schemas/control.js'
import type { BackfillStatus } from '../../schemas/types.js'
import type { BackfillState, Store } from '../../store/store.js'
import type { ApiKeyAuth } from '../auth.js'
import { operation, type Operation } from '../router.js'
import { ownedProject } from './projects.js'

function statusOf(projectId: string, state: BackfillState | undefined): BackfillStatus {
  if (!state) return { projectId, state: 'none', done: false }
  return { ...state, done: state.state === 'done' }
}

export function pageOperations(store: Store, runner: BackfillRunner): Operation<ApiKeyAuth>[] {
  return [
    operation({
      operationId: 'backfillProjectPages',
      method: 'POST',
      writes: true,
      route: '/cli/projects.backfill',
      credential: 'apiKey',
      minRole: 'admin',
      audit: ({ body }) => ({ action: 'project.backfill', target: (body as { projectId: string }).projectId }),
      summary: 'Purges the page index and re-keys every stored session and signal under the current rules. Runs in the background, resumes after a restart; a second call while it runs answers its progress.',
      body: projectIdBody,
      response: backfillStatusSchema,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body }) {
        const project = ownedProject(store, auth, (body as { projectId: string }).projectId)
        return statusOf(project.id, await runner.start(project.id, project.pathRules))
      },
    }),
    operation({
      operationId: 'getBackfillStatus',
      method: 'GET',
      route: '/cli/projects.backfill.status',
      credential: 'apiKey',
      minRole: 'viewer',
      summary: 'Progress of the project\'s latest backfill: pages before and after, sessions re-keyed, done.',
      query: { type: 'object', required: ['projectId'], properties: { projectId: { type: 'string', minLength: 1, maxLength: 64 } } },
      response: backfillStatusSchema,
      errors: ['invalid_request', 'not_found'],
      handle({ auth, query }) {
        const projectId = query.get('projectId')
        if (!projectId) throw new ApiError('invalid_request', { error: 'projectId is required.' })
        const project = ownedProject(store, auth, projectId)
        return statusOf(project.id, store.getBackfill(project.id))
      },
    }),
  ]
}
