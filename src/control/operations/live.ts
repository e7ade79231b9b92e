/**
 * Sessions followed as they are recorded (sessions.follow) and the list of
 * sessions in progress (sessions.list with `live`). A follow registers a
 * watch on the live board (src/live/board.ts), renewed while the feed is
 * open, which the fronts turn into `watched: true` in the tracker's chunk
 * answers: the tracker then sends every 1-2 s instead of every 10 s.
 *
 * Bounds: at most WATCHERS_PER_ORG feeds per organisation at once (429
 * overloaded past it), each feed at most an hour; a reader that stops reading
 * holds one batch in memory (the router's pipeline waits for it to drain).
 */
import { Readable } from 'node:stream'
import { randomUUID } from 'node:crypto'
import { ApiError } from '../../errors.js'
import type { LiveBoard } from '../../live/board.js'
import type { ChunkBytes } from '../../recordings/chunk-bytes.js'
import { followEvents, type FollowOptions } from '../../recordings/follow.js'
import { styleLookup } from '../../recordings/styles.js'
import { sessionFollowBody } from '../../schemas/read.js'
import { sessionFollowAnswer } from '../../schemas/read-answers.js'
import type { Store } from '../../store/store.js'
import { StoreClosed } from '../../store/reopenable.js'
import type { ApiKeyAuth } from '../auth.js'
import { auditRecorder } from '../audit.js'
import { operation, type Operation } from '../router.js'
import { ownedProject } from './projects.js'

export const WATCHERS_PER_ORG = 20
const RENEW_MS = 10_000
/** A watch outlives a missed renewal, not a process gone. */
const WATCH_MS = 3 * RENEW_MS
const FEED = { pollMs: 500, heartbeatMs: 15_000, idleMs: 5 * 60_000 }

/** Only a build of the operations without a running service (the API document's) has no board. */
const NOT_HERE = new ApiError('invalid_request', { error: 'Live sessions need a running service.' })

export function liveOperations(store: Store, board: LiveBoard | undefined, chunkBytes: ChunkBytes, feed: Partial<Pick<FollowOptions, 'pollMs' | 'heartbeatMs' | 'idleMs'>> = {}): Operation<ApiKeyAuth>[] {
  const watching = new Map<string, number>()
  // A follow's end, with how long it lasted: written when it ends, after the router recorded its start.
  const recordAudit = auditRecorder(store)
  return [
    operation({
      operationId: 'followSession',
      method: 'POST',
      route: '/cli/sessions.follow',
      credential: 'apiKey',
      minRole: 'viewer',
      audit: ({ body }) => ({ action: 'session.watch', target: `${body.projectId}/${body.sessionKey}` }),
      summary: `Follows a session as it is recorded: its events from the last checkpoint, then each new one a second or two after the visitor's page made it, as newline-delimited JSON until the visit goes idle, \`maxSeconds\` pass or the caller leaves. Any member may follow; each follow is in the audit log (\`session.watch\` as it starts, \`session.watch_end\` with its length); at most ${WATCHERS_PER_ORG} follows per organisation at once (429 past it).`,
      body: sessionFollowBody,
      response: sessionFollowAnswer,
      responseType: 'application/x-ndjson',
      errors: ['invalid_request', 'not_found', 'overloaded'],
      handle({ auth, body, req }) {
        if (!board) throw NOT_HERE
        const project = ownedProject(store, auth, body.projectId)
        const session = store.getSession(project.id, body.sessionKey)
        if (!session) throw new ApiError('not_found', { error: 'No such session.', hint: 'List the sessions in progress with POST /cli/sessions.list and live: true.' })
        if (session.purgedAt !== undefined) throw new ApiError('not_found', { error: 'This session\'s recording was deleted by retention.' })
        const open = watching.get(auth.orgId) ?? 0
        if (open >= WATCHERS_PER_ORG) {
          throw new ApiError('overloaded', { error: `Your organisation follows ${WATCHERS_PER_ORG} sessions already, the most at once.`, hint: 'Close a follow (or a live wall) and try again.', retryAfterSeconds: 10 })
        }
        watching.set(auth.orgId, open + 1)
        const watcher = randomUUID()
        const startedAt = Date.now()
        const sk = session.sk
        const renew = () => void board.watch(project.id, sk, watcher, Date.now() + WATCH_MS).catch(() => {})
        renew()
        const timer = setInterval(renew, RENEW_MS)
        const stop = new AbortController()
        const source = {
          chunks: (fromSeq?: number) => {
            try {
              const now = store.getSession(project.id, sk)
              return now && now.purgedAt === undefined ? store.listChunks(project.id, sk, fromSeq) : undefined
            } catch (error) {
              // An online compaction has the store closed for a moment: nothing new at this look; the next finds it.
              if (error instanceof StoreClosed) return []
              throw error
            }
          },
          load: (info: Parameters<ChunkBytes>[2]) => () => chunkBytes(project.id, sk, info),
          styles: styleLookup((hash) => store.getStyle(project.id, hash)),
        }
        const maxMs = (body.maxSeconds ?? 3600) * 1000
        let ended = false
        const end = () => {
          if (ended) return
          ended = true
          clearInterval(timer)
          stop.abort()
          watching.set(auth.orgId, (watching.get(auth.orgId) ?? 1) - 1)
          void board.unwatch(project.id, sk, watcher).catch(() => {})
          const seconds = Math.round((Date.now() - startedAt) / 1000)
          void recordAudit({ action: 'session.watch_end', target: `${project.id}/${sk}`, detail: `followed ${seconds} s` }, req, auth)
        }
        async function* feedLines() {
          try {
            yield* followEvents(source, { ...FEED, ...feed, maxMs, signal: stop.signal })
          } finally {
            end()
          }
        }
        const raw = Readable.from(feedLines(), { objectMode: false })
        // The reader left (perhaps before the feed began): end the watch and the feed's wait now. Readable.from only
        // finishes destroying once the generator yields again, which an idle feed does every 15 s.
        const destroy = raw._destroy.bind(raw)
        raw._destroy = (error, callback) => {
          end()
          destroy(error, callback)
        }
        return { raw, contentType: 'application/x-ndjson', headers: { 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' } }
      },
    }),
  ]
}

/** sessions.list with `live`: the project's sessions in progress (the board's), newest first. */
export function liveSessionKeys(board: LiveBoard | undefined, projectId: string, limit: number) {
  if (!board) throw NOT_HERE
  return board.liveSessions(projectId, limit)
}
