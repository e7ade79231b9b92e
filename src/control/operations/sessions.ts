/**
 * Sessions and recordings, read back (documented extensions of
 * section 4.3, API-key bearer, POST with JSON bodies): the session list, a
 * session's chunks, one chunk's bytes exactly as received, and the whole
 * recording as one stream of rrweb events.
 *
 * A session whose recording retention purged keeps its metadata and signals:
 * it is listed with `purged: true`, its chunk list is empty, and its chunk and
 * events endpoints answer 404 not_found with a hint that says why.
 */
import { completenessOf } from '../../recordings/completeness.js'
import { chunksInWindow } from '../../recordings/window.js'
import { storedChunkBytes, type ChunkBytes } from '../../recordings/chunk-bytes.js'
import { ApiError } from '../../errors.js'
import { MAX_CHUNK_INFLATED_BYTES, MAX_EVENT_BYTES, recordingEvents } from '../../recordings/events.js'
import { styleLookup } from '../../recordings/styles.js'
import { sessionBody, sessionChunkBody, sessionEventsBody, sessionsListBody } from '../../schemas/read.js'
import { sessionChunksAnswer, sessionEventsAnswer, sessionsListAnswer } from '../../schemas/read-answers.js'
import type { FindQuery, SessionSignals } from '../../store/insights.js'
import { compileRule } from '../../grouping/rules.js'
import type { ChunkInfo, ProjectRecord, SessionRecord, Store } from '../../store/store.js'
import type { ApiKeyAuth } from '../auth.js'
import { decodeCursor, encodeCursor, foldBeforeRead, resolvePages } from '../reading.js'
import { operation, type Operation } from '../router.js'
import { ownedProject } from './projects.js'
import { liveSessionKeys } from './live.js'
import type { LiveBoard } from '../../live/board.js'

/** Response header carrying a chunk's encoding (`gzip` or `json`); the front exposes it to browsers through CORS. */
export const ENCODING_HEADER = 'X-Svc-Encoding'

const DEFAULT_LIMIT = 50

/** `chunks`: the session's chunk list, read only when its record says a seq is missing (recordings/completeness.ts). */
export function sessionView(session: SessionRecord, signals: SessionSignals, chunks: () => ChunkInfo[]) {
  return {
    sessionKey: session.sk,
    visitorId: session.vid,
    ...(session.identity ? { identity: session.identity } : {}),
    startedAt: session.startedAt,
    lastActivityAt: session.lastTs,
    durationMs: Math.max(0, session.lastTs - Math.min(session.startedAt, session.firstTs)),
    activeMs: Math.max(0, signals.activeMs),
    pageCount: session.pages.length,
    pages: session.pages,
    chunkCount: session.chunkCount,
    bytes: session.bytes,
    eventCount: session.eventCount,
    entryUrl: session.pages[0]?.url ?? null,
    ...(session.viewport ? { viewport: session.viewport } : {}),
    clicks: signals.clicks,
    rage: signals.rage,
    dead: signals.dead,
    errorClicks: signals.errorClicks,
    errors: signals.errors,
    consoleErrors: session.consoleErrors ?? 0,
    failedRequests: session.failedRequests ?? 0,
    purged: session.purgedAt !== undefined,
    purgedAt: session.purgedAt ?? null,
    completeness: completenessOf(session, chunks),
  }
}

/** The search by what happened of a sessions.list body, prepared once; undefined when it asks none. */
function findQueryOf(b: { visited?: string; clicked?: string; error?: string; console?: string; request?: string; referrer?: string }): FindQuery | undefined {
  if ([b.visited, b.clicked, b.error, b.console, b.request, b.referrer].every((member) => member === undefined)) return undefined
  let visited: FindQuery['visited']
  if (b.visited !== undefined) {
    const compiled = compileRule(b.visited)
    if (!compiled.ok) throw new ApiError('invalid_request', { error: `visited is not a path pattern: ${compiled.reason}.`, hint: 'Write it as a path rule: /settings/{id}/* (literal segments, {name} for one segment, a trailing *).' })
    visited = compiled.rule
  }
  // Only an origin is kept (the tracker strips the rest, for privacy): a text with a path, query or fragment would match nothing, silently.
  if (b.referrer !== undefined && /[/?#]/.test(b.referrer.replace(/^[a-z][a-z0-9+.-]*:\/\//i, ''))) {
    throw new ApiError('invalid_request', { error: 'referrer is matched against an origin: it can hold a scheme and a host, not a path, query or fragment.', hint: 'Send the site alone: google, or https://news.example.' })
  }
  const lower = (text?: string) => text?.toLowerCase()
  return { visited, clicked: lower(b.clicked), error: lower(b.error), console: lower(b.console), request: lower(b.request), referrer: lower(b.referrer) }
}

function sessionOf(store: Store, project: ProjectRecord, sk: string): SessionRecord {
  const session = store.getSession(project.id, sk)
  if (!session) throw new ApiError('not_found', { error: 'No such session.', hint: 'List the project\'s sessions with POST /cli/sessions.list.' })
  return session
}

function refusePurged(session: SessionRecord): void {
  if (session.purgedAt === undefined) return
  throw new ApiError('not_found', {
    error: 'This session\'s recording was deleted by retention.',
    hint: 'Recordings are kept RETENTION_DAYS after their last activity; the session\'s metadata and signals remain (sessions.list reports it with purged: true).',
  })
}

export function sessionOperations(store: Store, chunkBytes: ChunkBytes = storedChunkBytes(store), board?: LiveBoard): Operation<ApiKeyAuth>[] {
  /** sessions.list with `live: true`: the board's sessions in progress, most recent first. */
  function liveList(project: ProjectRecord, b: Record<string, unknown> & { limit?: number; cursor?: string }) {
    const others = Object.keys(b).filter((name) => !['projectId', 'live', 'limit'].includes(name))
    if (others.length) throw new ApiError('invalid_request', { error: `live lists the sessions in progress and takes limit alone; drop ${others.join(', ')}.` })
    const now = Date.now()
    const sessions = []
    for (const { sessionKey, lastSeenAt } of liveSessionKeys(board, project.id, b.limit ?? DEFAULT_LIMIT)) {
      const session = store.getSession(project.id, sessionKey)
      if (!session || session.purgedAt !== undefined) continue
      const view = sessionView(session, store.sessionSignals(project.id, sessionKey), () => store.listChunks(project.id, sessionKey))
      sessions.push({ ...view, live: { lastChunkAt: lastSeenAt, agoMs: Math.max(0, now - lastSeenAt) } })
    }
    return { sessions, nextCursor: null }
  }

  return [
    operation({
      operationId: 'listSessions',
      method: 'POST',
      route: '/cli/sessions.list',
      credential: 'apiKey',
      minRole: 'viewer',
      // Whether a user id has sessions is what an erasure's dry run tells: audited like one, by kind, never the value
      // (once per search: the pages after its first are not).
      audit: ({ body }) =>
        (body.userId !== undefined || body.accountId !== undefined) && body.cursor === undefined
          ? { action: 'session.search_user', target: body.projectId, detail: body.userId !== undefined ? 'userId' : 'accountId' }
          : undefined,
      summary: 'Sessions newest first, filtered, `limit` at a time: follow nextCursor. The order is by start time, which never changes, so following it neither skips nor repeats a session while new ones arrive. A search by what happened (`visited`, `clicked`, `error`, `console`, `request`, `referrer`) answers each session\'s first matching moment (`match`) and every match (`matches`).',
      body: sessionsListBody,
      response: sessionsListAnswer,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body, read }) {
        const b = body
        const project = ownedProject(store, auth, b.projectId)
        if (b.live) return liveList(project, b)
        await foldBeforeRead(read)
        if (b.since !== undefined && b.until !== undefined && b.since >= b.until) throw new ApiError('invalid_request', { error: 'since must be before until.' })
        if (b.selector !== undefined && b.page === undefined) {
          throw new ApiError('invalid_request', { error: 'selector needs page: an element is a selector on a page.', hint: 'Send the page of the elements.list row with its selector.' })
        }
        const find = findQueryOf(b)
        const after = b.cursor ? decodeCursor(b.cursor, { s: 'number', k: 'string' }) : undefined
        const slice = await read('listSessionPage', project.id, {
          since: b.since,
          until: b.until,
          pages: b.page === undefined ? undefined : resolvePages(store, project, b.page),
          selector: b.selector,
          userId: b.userId,
          accountId: b.accountId,
          minDurationMs: b.minDurationMs,
          hasErrors: b.hasErrors,
          hasRage: b.hasRage,
          hasConsoleErrors: b.hasConsoleErrors,
          hasFailedRequests: b.hasFailedRequests,
          device: b.device,
          find,
          limit: b.limit ?? DEFAULT_LIMIT,
          after: after && { startedAt: after.s, sk: after.k },
        })
        return {
          sessions: slice.sessions.map(({ session, signals, moments }) => ({
            ...sessionView(session, signals, () => store.listChunks(project.id, session.sk)),
            ...(moments?.length ? { match: moments[0], matches: moments } : {}),
          })),
          nextCursor: slice.next ? encodeCursor({ s: slice.next.startedAt, k: slice.next.sk }) : null,
        }
      },
    }),
    operation({
      operationId: 'listSessionChunks',
      method: 'POST',
      route: '/cli/sessions.chunks',
      credential: 'apiKey',
      minRole: 'viewer',
      summary: 'The recording\'s chunks in seq order, with what each holds, and what the recording is missing and why (`completeness`, as in sessions.list). Empty (purged: true) once retention deleted the recording.',
      body: sessionBody,
      response: sessionChunksAnswer,
      errors: ['invalid_request', 'not_found'],
      handle({ auth, body }) {
        const b = body
        const project = ownedProject(store, auth, b.projectId)
        const session = sessionOf(store, project, b.sessionKey)
        const chunks = store.listChunks(project.id, session.sk)
        const completeness = completenessOf(session, () => chunks)
        if (session.purgedAt !== undefined) return { chunks: [], purged: true, completeness }
        // Where the bytes are (cluster mode) is this deployment's business, not the answer's.
        return { chunks: chunks.map(({ journal: _, ...info }) => info), purged: false, completeness }
      },
    }),
    operation({
      operationId: 'getSessionChunk',
      method: 'POST',
      route: '/cli/sessions.chunk',
      credential: 'apiKey',
      minRole: 'viewer',
      audit: ({ body }) => ({ action: 'session.replay', target: `${body.projectId}/${body.sessionKey}` }),
      summary: `One chunk's bytes exactly as the tracker sent them (application/octet-stream, never decompressed); its encoding, gzip or json, is in the ${ENCODING_HEADER} header. A stylesheet the tracker sent once per project stays a reference here (\`"_svcCss":"<sha256>"\` in place of a node's \`_cssText\`), and a mutation event whose added nodes, texts and attribute values the tracker wrote once per page view carries \`a\`, \`t\` and \`at\` in place of \`adds\`, \`texts\` and \`attributes\` (its format: /docs/api, "Added nodes written once per page view"); sessions.events puts back all of them.`,
      body: sessionChunkBody,
      response: { type: 'string', format: 'binary' },
      responseType: 'application/octet-stream',
      answerHeaders: { [ENCODING_HEADER]: { description: 'The chunk\'s encoding: `gzip` or `json`.', schema: { type: 'string', enum: ['gzip', 'json'] } } },
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body }) {
        const b = body
        const project = ownedProject(store, auth, b.projectId)
        const session = sessionOf(store, project, b.sessionKey)
        refusePurged(session)
        const info = store.listChunks(project.id, session.sk).find((c) => c.seq === b.seq)
        const bytes = info && (await chunkBytes(project.id, session.sk, info))
        if (!info || !bytes) throw new ApiError('not_found', { error: 'No such chunk.', hint: 'List the session\'s chunks with POST /cli/sessions.chunks.' })
        const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
        return {
          raw,
          contentType: 'application/octet-stream',
          headers: { [ENCODING_HEADER]: info.encoding, 'Content-Length': String(raw.byteLength), 'Cache-Control': 'private, max-age=86400, immutable' },
        }
      },
    }),
    operation({
      operationId: 'getSessionEvents',
      method: 'POST',
      route: '/cli/sessions.events',
      credential: 'apiKey',
      minRole: 'viewer',
      audit: ({ body }) => ({ action: 'session.replay', target: `${body.projectId}/${body.sessionKey}` }),
      summary:
        `The recording as one JSON array of rrweb events in order, gzip chunks decompressed and stylesheets sent once per project put back (\`_cssText\`); streamed, so a large recording is not built in memory. With \`from\`/\`until\`, only that part, starting at the checkpoint (full snapshot) before \`from\`. An event over ${MAX_EVENT_BYTES / 2 ** 20} MiB or a gzip chunk past ${MAX_CHUNK_INFLATED_BYTES / 2 ** 20} MiB inflated is left out and marked by a small custom event; \`maxBytes\` caps the answer.`,
      body: sessionEventsBody,
      response: sessionEventsAnswer,
      errors: ['invalid_request', 'not_found'],
      handle({ auth, body }) {
        const b = body
        const project = ownedProject(store, auth, b.projectId)
        const session = sessionOf(store, project, b.sessionKey)
        refusePurged(session)
        const chunks = chunksInWindow(store.listChunks(project.id, session.sk), b.from, b.until).map((info) => ({
          seq: info.seq,
          encoding: info.encoding,
          pageIndex: info.pageIndex,
          load: () => chunkBytes(project.id, session.sk, info),
        }))
        const styles = styleLookup((hash) => store.getStyle(project.id, hash))
        return { raw: recordingEvents(chunks, { maxAnswerBytes: b.maxBytes, styles }), contentType: 'application/json' }
      },
    }),
  ]
}
