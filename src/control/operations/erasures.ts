/**
 * Erasure requests (issue 34): delete everything recorded about a person, a
 * session or a query's sessions. Admins and the owner only; each request is
 * audited by its id, never by what it names (a user id is recorded content),
 * and recorded with its session, visitor or user by keyed hash (issue 42), so
 * that neither the erasure's record nor the cluster's log holds the id.
 * The work runs in the background (src/recordings/erasure-runner.ts); the
 * answer is the request's state, polled with erasures.get.
 */
import { createHash } from 'node:crypto'
import { ApiError } from '../../errors.js'
import { createErasureAnswer, createErasureBody, erasureAnswer, erasureIdBody, erasureListAnswer, listErasuresBody } from '../../schemas/erasure.js'
import { addCounts, subjectKind, type ErasureCountCursor, type ErasureCounts } from '../../store/erasure-store.js'
import type { ErasureRecord, ErasureSubject, Store } from '../../store/store.js'
import type { ErasureRunner } from '../../recordings/erasure-runner.js'
import { erasureIdOf } from '../../recordings/erasure-ids.js'
import { hashSubject } from '../../store/erasure-subjects.js'
import { CONFIRMATION_TTL_MS, confirmationOf, confirms, ERASURE_CONFIRM_SESSIONS } from '../../recordings/erasure-confirmation.js'
import type { Turn } from '../turns.js'
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

/** `scrubbed`: whether the files no longer hold the bytes of a finished erasure (src/store/lmdb/compaction.ts). */
/**
 * Erasures an organisation may start in an hour. Each one that removes
 * something is followed by a compaction of the files; a bound keeps one
 * organisation's admin from having them run back to back.
 */
export const ERASURES_PER_HOUR = 30

/** Starts per organisation in the last hour, kept by this worker (a node's own in the cluster mode). */
class HourlyStarts {
  private readonly starts = new Map<string, number[]>()

  constructor(private readonly perHour: number, private readonly now: () => number = Date.now) {}

  /** Counts a start, or throws 429 overloaded with the seconds until one is free. */
  take(org: string): void {
    const now = this.now()
    const recent = (this.starts.get(org) ?? []).filter((at) => at > now - HOUR_MS)
    if (recent.length >= this.perHour) {
      throw new ApiError('overloaded', {
        error: `The organisation started ${this.perHour} erasures in the last hour, as many as it may.`,
        hint: 'Send it again after Retry-After; an erasure by visitor id or by a time range removes many sessions in one request.',
        retryAfterSeconds: Math.ceil((recent[0] + HOUR_MS - now) / 1000),
      })
    }
    recent.push(now)
    this.starts.set(org, recent)
  }
}

const HOUR_MS = 60 * 60 * 1000

/**
 * What erasing `by` would remove: a whole project's sessions and batches, a
 * budget's worth per turn, so the organisation's other calls and everyone
 * else's go between the steps. With `past`, it stops once more sessions than
 * that are counted.
 */
async function countStepwise(store: Store, projectId: string, by: ErasureSubject, turn: Turn, past = Infinity): Promise<ErasureCounts> {
  const counts = { sessions: 0, chunks: 0, bytes: 0, signalBatches: 0 }
  let next: ErasureCountCursor | undefined
  do {
    const step = store.countErasure(projectId, by, next)
    addCounts(counts, step.counts)
    next = step.next
    if (next && counts.sessions <= past) await turn.pass()
  } while (next && counts.sessions <= past)
  return counts
}

export interface ErasureDeps {
  store: Store
  now?: () => number
  runner: ErasureRunner
  /** What erasure ids are made with (src/recordings/erasure-ids.ts). */
  idKey: Buffer
  scrubbed: (erasure: ErasureRecord) => boolean
}

/** An erasure as the API answers it: a query's subject; for any other, only its kind (the record holds a session, visitor or user by keyed hash). */
export function erasureView(erasure: ErasureRecord, scrubbed: boolean) {
  const { by, orgId: _orgId, ...rest } = erasure
  const subject = by && 'query' in by ? { by } : {}
  return { ...rest, ...subject, finishedAt: erasure.finishedAt ?? null, scrubbed }
}

/** The organisation an erasure belongs to: its project's, or, for a project's deletion, the one recorded with it. */
function orgOf(store: Store, erasure: ErasureRecord): string | undefined {
  return erasure.orgId ?? store.getProject(erasure.projectId)?.orgId
}

export function erasureOperations({ store, runner, scrubbed, idKey, now = Date.now }: ErasureDeps): Operation<ApiKeyAuth>[] {
  const view = (erasure: ErasureRecord) => erasureView(erasure, erasure.state === 'done' && scrubbed(erasure))
  const starts = new HourlyStarts(ERASURES_PER_HOUR)
  return [
    operation({
      operationId: 'createErasure',
      method: 'POST',
      writes: true,
      route: '/cli/erasures.create',
      credential: 'apiKey',
      minRole: 'admin',
      // A dry run tells whether a user id has data: recorded too, with the project and the kind of subject, never its value.
      audit: ({ body }, answer) =>
        answer.erasure ? { action: 'erasure.create', target: answer.erasure.id } : { action: 'erasure.dry_run', target: body.projectId, detail: subjectKind(body.by as ErasureSubject) },
      summary:
        'Deletes everything recorded about one session (`sessionKey`), a visitor (`visitorId`), a user (`userId`, as given to `identify`) or the sessions that started in a time range, optionally on one page (`query`): recordings, signals, and every aggregate entry that names those sessions. Runs in the background: poll erasures.get. The same request again answers the same id. `dryRun` answers what would go and removes nothing; it is recorded in the audit log (the kind of subject, not its value). ' +
        `An admin's erasure of more than ${ERASURE_CONFIRM_SESSIONS} sessions needs the \`confirmation\` its dry run answers (403 forbidden without it); the owner's does not. ` +
        `An organisation starts at most ${ERASURES_PER_HOUR} erasures an hour (the same request again while it runs does not count); past it, 429 overloaded with Retry-After.`,
      body: createErasureBody,
      response: createErasureAnswer,
      errors: ['invalid_request', 'forbidden', 'not_found', 'overloaded'],
      async handle({ auth, body, turn }) {
        const project = ownedProject(store, auth, body.projectId)
        const by = body.by as ErasureSubject
        if ('query' in by && by.query.until <= by.query.from) throw new ApiError('invalid_request', { error: '`until` must be after `from`.', hint: 'Times are milliseconds since the epoch; `until` is exclusive.' })
        const id = erasureIdOf(idKey, project.id, by)
        if (body.dryRun) {
          const wouldRemove = await countStepwise(store, project.id, by, turn)
          return { dryRun: true, wouldRemove, confirmation: confirmationOf(idKey, id, now()) }
        }
        if (auth.role !== 'owner' && !confirms(idKey, id, body.confirmation, now()) && (await countStepwise(store, project.id, by, turn, ERASURE_CONFIRM_SESSIONS)).sessions > ERASURE_CONFIRM_SESSIONS) {
          throw new ApiError('forbidden', {
            error: `This erasure removes more than ${ERASURE_CONFIRM_SESSIONS} sessions: an admin needs the confirmation of its dry run, or the owner can send it.`,
            hint: `Send the same request with dryRun: true, check what it would remove, then send it again with the answer's \`confirmation\` within ${CONFIRMATION_TTL_MS / 60_000} minutes.`,
          })
        }
        const held = store.getErasure(id)
        if (!held || held.state === 'done') starts.take(auth.orgId)
        // The dry run above and the count read by the id in the clear, on this node; what is recorded (and logged) holds its keyed hash.
        const erasure = await runner.start({ id, projectId: project.id, by: hashSubject(idKey, project.id, by) })
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
