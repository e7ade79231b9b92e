/**
 * Projects end cleanly (issue 34): renamed, and deleted with everything
 * recorded in them by the erasure path (src/store/erasure-store.ts, subject
 * `project`). A deleted project is gone at once: no list shows it, every
 * operation naming it answers 404 like a project that never was, its public
 * key records nothing more and its setup tokens authorise nothing; what it
 * recorded then leaves in the background, and the files by the compaction.
 */
import { ApiError } from '../../errors.js'
import { deleteProjectBody, projectAnswer, renameProjectBody } from '../../schemas/control.js'
import { deleteProjectAnswer } from '../../schemas/erasure.js'
import type { ApiKeyAuth } from '../auth.js'
import { operation, type Operation } from '../router.js'
import { erasureIdOf } from '../../recordings/erasure-ids.js'
import { CONFIRMATION_TTL_MS, confirmationOf, confirms } from '../../recordings/erasure-confirmation.js'
import { erasureView, type ErasureDeps } from './erasures.js'
import { ownedProject, projectView } from './projects.js'

export function projectLifecycleOperations({ store, runner, scrubbed, idKey, now = Date.now }: ErasureDeps): Operation<ApiKeyAuth>[] {
  return [
    operation({
      operationId: 'renameProject',
      method: 'POST',
      writes: true,
      route: '/cli/projects.rename',
      credential: 'apiKey',
      minRole: 'admin',
      audit: ({ body }) => ({ action: 'project.rename', target: body.projectId }),
      summary: 'Renames the project. Its id, public key and everything recorded stay.',
      body: renameProjectBody,
      response: projectAnswer,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body }) {
        ownedProject(store, auth, body.projectId)
        const updated = await store.updateProject(body.projectId, { name: body.name.trim() })
        if (!updated) throw new ApiError('not_found')
        return { project: projectView(store, updated) }
      },
    }),
    operation({
      operationId: 'deleteProject',
      method: 'POST',
      writes: true,
      route: '/cli/projects.delete',
      credential: 'apiKey',
      minRole: 'admin',
      audit: ({ body }, answer) => (answer.dryRun ? { action: 'erasure.dry_run', target: body.projectId, detail: 'project' } : { action: 'project.delete', target: body.projectId }),
      summary:
        'Deletes the project and everything recorded in it. At once it leaves every list, its public key records nothing more and its setup tokens stop working; its recordings, signals, aggregates, pages and tokens are then erased in the background (poll erasures.get with the answer\'s erasure id). ' +
        '`dryRun` deletes nothing and answers what would go with a `confirmation`: an admin sends it back to delete (403 forbidden without it); the owner needs none.',
      body: deleteProjectBody,
      response: deleteProjectAnswer,
      errors: ['invalid_request', 'forbidden', 'not_found'],
      async handle({ auth, body }) {
        const project = ownedProject(store, auth, body.projectId)
        const id = erasureIdOf(idKey, project.id, { project: true })
        if (body.dryRun) {
          const stats = store.projectStats(project.id)
          const wouldRemove = { sessions: stats.sessionCount, chunks: stats.chunkCount, bytes: stats.bytes, signalBatches: stats.signalBatches }
          return { ok: false, dryRun: true, wouldRemove, confirmation: confirmationOf(idKey, id, now()) }
        }
        if (auth.role !== 'owner' && !confirms(idKey, id, body.confirmation, now())) {
          throw new ApiError('forbidden', {
            error: 'Deleting a project needs the owner, or the confirmation of its dry run.',
            hint: `Send projects.delete with dryRun: true, check what it would remove, then send it again with the answer's \`confirmation\` within ${CONFIRMATION_TTL_MS / 60_000} minutes.`,
          })
        }
        const erasure = await runner.start({ id, projectId: project.id, orgId: project.orgId, by: { project: true } })
        return { ok: true, erasure: erasureView(erasure, erasure.state === 'done' && scrubbed(erasure)) }
      },
    }),
  ]
}
