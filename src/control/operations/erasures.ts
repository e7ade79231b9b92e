/**
 * Erasure requests (issue 34): delete everything recorded about a person, a
 * session or a query's sessions. Admins and the owner only; each request is
 * audited by its id, never by what it names (a user id is recorded content).
 * The work runs in the background (src/recordings/erasure-runner.ts); the
 * answer is the request's state, polled with erasures.get.
 */
import { createHash } from 'node:crypto'
import { ApiError } from '../../errors.js'
import { createErasureAnswer, createErasureBody, erasureAnswer, erasureIdBody, erasureListAnswer, listErasuresBody } from '../../schemas/erasure.js'
import { addCounts, type ErasureCountCursor } from '../../store/erasure-store.js'
import type { ErasureRecord, ErasureSubject, Store } from '../../store/store.js'
import type { ErasureRunner } from '../../recordings/erasure-runner.js'
import type { ApiKeyAuth } from '../auth.js'
import { operation, type Operation } from '../router.js'
import { ownedProject } from './projects.js'

/** Erasures erasures.list answers at most: the newest. */
const LIST_LIMIT = 100

const NO_SUCH_ERASURE = { error: 'No such erasure.', hint: 'List a project\'s erasures with POST /cli/erasures.list.' }

/**
 * The same request (project and subject) always has the same id: made again,
 * it answers the erasure already running, or runs the finished one again,
 * which removes nothing more unless something new was recorded since.
 */
export function erasureIdOf(projectId: string, by: ErasureSubject): string {
  const subject = 'query' in by ? { query: { from: by.query.from, until: by.query.until, page: by.query.page ?? null } } : by
  return `er_${createHash('sha256').update(JSON.stringify([projectId, subject])).digest('hex').slice(0, 24)}`
}

/** `scrubbed`: whether the files no longer hold the bytes of a finished erasure (src/store/lmdb/compaction.ts). */
export interface ErasureDeps {
  store: Store
  runner: ErasureRunner
  scrubbed: (erasure: ErasureRecord) => boolean
}

/** An erasure as the API answers it: a project's deletion names no subject beyond its kind. */
export function erasureView(erasure: ErasureRecord, scrubbed: boolean) {
  const { by, orgId: _orgId, ...rest } = erasure
  const subject = by && !('project' in by) ? { by } : {}
  return { ...rest, ...subject, finishedAt: erasure.finishedAt ?? null, scrubbed }
}

/** The organisation an erasure belongs to: its project's, or, for a project's deletion, the one recorded with it. */
function orgOf(store: Store, erasure: ErasureRecord): string | undefined {
  return erasure.orgId ?? store.getProject(erasure.projectId)?.orgId
}

export function erasureOperations({ store, runner, scrubbed }: ErasureDeps): Operation<ApiKeyAuth>[] {
  const view = (erasure: ErasureRecord) => erasureView(erasure, erasure.state === 'done' && scrubbed(erasure))
  return [
    operation({
      operationId: 'createErasure',
      method: 'POST',
      route: '/cli/erasures.create',
      credential: 'apiKey',
      minRole: 'admin',
      audit: (_ctx, answer) => (answer.erasure ? { action: 'erasure.create', target: answer.erasure.id } : undefined),
      summary:
        'Deletes everything recorded about one session (`sessionKey`), a visitor (`visitorId`), a user (`userId`, as given to `identify`) or the sessions that started in a time range, optionally on one page (`query`): recordings, signals, and every aggregate entry that names those sessions. Runs in the background: poll erasures.get. The same request again answers the same id. `dryRun` answers what would go and removes nothing.',
      body: createErasureBody,
      response: createErasureAnswer,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body, turn }) {
        const project = ownedProject(store, auth, body.projectId)
        const by = body.by as ErasureSubject
        if ('query' in by && by.query.until <= by.query.from) throw new ApiError('invalid_request', { error: '`until` must be after `from`.', hint: 'Times are milliseconds since the epoch; `until` is exclusive.' })
        if (body.dryRun) {
          // A whole project's sessions and batches, a budget's worth per turn: the organisation's other calls and
          // everyone else's go between the steps.
          const wouldRemove = { sessions: 0, chunks: 0, bytes: 0, signalBatches: 0 }
          let next: ErasureCountCursor | undefined
          do {
            const step = store.countErasure(project.id, by, next)
            addCounts(wouldRemove, step.counts)
            next = step.next
            if (next) await turn.pass()
          } while (next)
          return { dryRun: true, wouldRemove }
        }
        const erasure = await runner.start({ id: erasureIdOf(project.id, by), projectId: project.id, by })
        return { dryRun: false, erasure: view(erasure) }
      },
    }),
    operation({
      operationId: 'getErasure',
      method: 'POST',
      route: '/cli/erasures.get',
      credential: 'apiKey',
      minRole: 'admin',
      summary: 'An erasure\'s state (queued, running, done), its progress (sessions examined) and what it removed so far.',
      body: erasureIdBody,
      response: erasureAnswer,
      errors: ['invalid_request', 'not_found'],
      handle({ auth, body }) {
        const erasure = store.getErasure(body.erasureId)
        // Another organisation's erasure is answered like one that does not exist.
        if (!erasure || orgOf(store, erasure) !== auth.orgId) throw new ApiError('not_found', NO_SUCH_ERASURE)
        return { erasure: view(erasure) }
      },
    }),
    operation({
      operationId: 'listErasures',
      method: 'POST',
      route: '/cli/erasures.list',
      credential: 'apiKey',
      minRole: 'admin',
      summary: `The project's erasures, newest first (at most ${LIST_LIMIT}).`,
      body: listErasuresBody,
      response: erasureListAnswer,
      errors: ['invalid_request', 'not_found'],
      handle({ auth, body }) {
        const project = ownedProject(store, auth, body.projectId)
        return { erasures: store.listErasures(project.id).slice(0, LIST_LIMIT).map(view) }
      },
    }),
  ]
}
