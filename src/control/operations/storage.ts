/**
 * A project's storage (issue 32): its own retention, shorter than the
 * deployment's RETENTION_DAYS, and what it holds and what a recorded minute
 * costs. The retention job (src/recordings/retention.ts) and the disk budget
 * (src/recordings/budget.ts) do the deleting.
 */
import { ApiError } from '../../errors.js'
import { projectStorage } from '../../recordings/project-storage.js'
import { projectAnswer, projectIdBody, projectRetentionBody, projectStorageAnswer } from '../../schemas/control.js'
import type { Store } from '../../store/store.js'
import type { ApiKeyAuth } from '../auth.js'
import { operation, type Operation } from '../router.js'
import { ownedProject, projectView } from './projects.js'

/** `retentionDays`: the deployment's RETENTION_DAYS, which a project's own retention may not exceed. */
export function storageOperations(store: Store, retentionDays: number): Operation<ApiKeyAuth>[] {
  return [
    operation({
      operationId: 'setProjectRetention',
      method: 'POST',
      writes: true,
      route: '/cli/projects.retention',
      credential: 'apiKey',
      minRole: 'admin',
      audit: ({ body }) => ({ action: 'project.retention', target: body.projectId, detail: body.retentionDays === null ? 'default' : String(body.retentionDays) }),
      summary: `Keeps the project's recordings fewer days than the deployment's RETENTION_DAYS (${retentionDays} here), or (null) as many. The next retention pass deletes what is older; metadata and signals stay.`,
      body: projectRetentionBody,
      response: projectAnswer,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body }) {
        const { projectId, retentionDays: days } = body
        ownedProject(store, auth, projectId)
        if (days !== null && days > retentionDays) {
          throw new ApiError('invalid_request', { error: `retentionDays may be at most the deployment's RETENTION_DAYS (${retentionDays}).`, hint: 'A project keeps its recordings as long as the deployment at most; set RETENTION_DAYS higher to keep them longer.' })
        }
        const updated = await store.updateProject(projectId, { retentionDays: days })
        if (!updated) throw new ApiError('not_found')
        return { project: projectView(store, updated) }
      },
    }),
    operation({
      operationId: 'getProjectStorage',
      method: 'POST',
      route: '/cli/projects.storage',
      credential: 'apiKey',
      minRole: 'viewer',
      summary: 'What the project holds: recording bytes exactly, its share of the signals and aggregates, the minutes of recording held, and what a recorded minute costs.',
      body: projectIdBody,
      response: projectStorageAnswer,
      errors: ['invalid_request', 'not_found'],
      handle({ auth, body }) {
        const project = ownedProject(store, auth, body.projectId)
        return { projectId: project.id, ...projectStorage(store.storageUse(), project.id), retentionDays: project.retentionDays ?? retentionDays }
      },
    }),
  ]
}
