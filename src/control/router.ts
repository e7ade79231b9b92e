/**
 * The control worker's router: a table of operations, each with its method,
 * route, credential kind and body schema. Request bodies are validated by AJV
 * validators compiled from those schemas when the table is built (the OpenAPI
 * document is assembled from the same table). Handlers return a value or
 * throw ApiError; this module writes every answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { pipeline } from 'node:stream'
import type { ValidateFunction } from 'ajv'
import type { FromSchema, JSONSchema } from 'json-schema-to-ts'
import { LIMITS } from '../config.js'
import { ApiError, errorBody, statusOf, type ErrorCode } from '../errors.js'
import { log } from '../log.js'
import { StoreClosed } from '../store/reopenable.js'
import { roleAllows, type Role } from '../accounts/roles.js'
import { routePath } from '../contract/routes.js'
import { ajv, describeErrors, onFirstUse } from '../contract/validators.js'
import type { AuditEvent } from './audit-events.js'
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js'
import type { FairTurns, Turn } from './turns.js'
import type { Read, Reads } from './read-pool.js'

export type Credential = 'none' | 'apiKey' | 'setupToken'

/** The body a handler receives: the type of the schema its router validates it with; {} when the operation takes none. */
export type BodyOf<S> = 0 extends 1 & S ? Record<string, unknown> : S extends JSONSchema ? FromSchema<S> : Record<string, never>

export interface RequestContext<B = Record<string, unknown>> {
  req: IncomingMessage
  /** Parsed, validated JSON body ({} when the operation takes none). */
  body: B
  query: URLSearchParams
  /** Headers to add to the answer (Set-Cookie, for instance). */
  responseHeaders: Record<string, string[]>
  /** The caller's organisation's turn (src/control/turns.ts): a long operation passes it between budgeted steps. */
  turn: Turn
  /** A bulk read (an aggregate, the session list), off the event loop in the organisation's share of the read pool (src/control/read-pool.ts). */
  read: Read
}

/** Outside any organisation's turns (a light operation, or a caller with none): passing just lets I/O in. */
const NO_TURN: Turn = { pass: () => new Promise((resolve) => setImmediate(resolve)), away: (work) => work() }
/** The read pool's queue of callers with no organisation (no operation that reads in the pool takes such a caller today). */
const NO_ORG = '-'

/** Raw bytes or a stream with its own content type, answered as they are. */
export interface RawReply {
  raw: Buffer | string | NodeJS.ReadableStream
  contentType: string
  status?: number
  headers?: Record<string, string>
}

/** A handler's answer: JSON of its answer schema's type, or a raw reply. */
export type Reply<R = unknown> = AnswerOf<R> | RawReply

/** T without the open index signature FromSchema gives objects that allow more members: a handler answers the documented ones. */
export type Known<T> = T extends readonly (infer U)[]
  ? Known<U>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : K]: Known<T[K]> }
    : T

/** The JSON a handler answers: the type of the operation's answer schema. */
export type AnswerOf<R> = 0 extends 1 & R ? unknown : R extends JSONSchema ? Known<FromSchema<R>> : unknown

export interface Operation<C = unknown, S = any, R = any> {
  operationId: string
  method: 'GET' | 'POST'
  /** Route path without the API prefix, e.g. `/cli/whoami`. */
  route: string
  credential: Credential
  /**
   * The least role a member needs to call it (src/accounts/roles.ts), checked here before the handler runs.
   * Every operation that takes an API key (or a dashboard session) names one; the others take no member's credential.
   */
  minRole?: Role
  summary: string
  /** JSON Schema of the request body; absent for operations that take none. */
  body?: S
  /** JSON Schema of the query parameters (an object of strings). */
  query?: Record<string, unknown>
  /** JSON Schema of the 200 answer, for the OpenAPI document. */
  response?: R
  /** Media type of the 200 answer; JSON unless said. */
  responseType?: string
  /** Headers of the 200 answer worth documenting (OpenAPI `headers`), by name. */
  answerHeaders?: Record<string, { description: string; schema: Record<string, unknown> }>
  /** Error codes this operation can answer besides the ones every operation can. */
  errors?: ErrorCode[]
  /** Served at the root too (public documents). */
  atRoot?: boolean
  /**
   * Answers from a few keys (whoami, sign-in state): runs at once instead of in its organisation's turn
   * (src/control/turns.ts). Everything else a member calls takes turns, so a new operation cannot forget to.
   */
  light?: true
  /**
   * Changes something (a key, a member, a project's settings): runs in its organisation's turns among
   * writes only, so that no organisation's reads are ever queued ahead of it (src/control/turns.ts).
   */
  writes?: true
  handle(ctx: RequestContext<BodyOf<S>> & { auth: C }): Promise<Reply<R>> | Reply<R>
  /** What the audit log records of a call that succeeded (a raw reply is passed as it is); nothing when absent or undefined. */
  audit?(ctx: RequestContext<BodyOf<S>> & { auth: C }, answer: AnswerOf<R>): AuditEvent | undefined
}

/** Declares an operation: its handler's `body` typed from the schema the router validates it with, its answer from the schema that documents it. */
export function operation<C, S extends JSONSchema | undefined = undefined, R extends JSONSchema | undefined = undefined>(op: Operation<C, S, R>): Operation<C> {
  return op
}

interface Compiled {
  op: Operation<any>
  validate?: () => ValidateFunction
  validateQuery?: () => ValidateFunction
}

export type Authenticate = (req: IncomingMessage, query: URLSearchParams, credential: Credential) => unknown

/** Writes an operation's audit event (src/control/audit.ts); `auth` is what authenticate resolved, if anything. */
export type RecordAudit = (event: AuditEvent, req: IncomingMessage, auth: unknown) => Promise<void>

/** The caller's role, for the credentials that carry one (src/control/auth.ts ApiKeyAuth). */
function roleOfCaller(auth: unknown): Role | undefined {
  return typeof auth === 'object' && auth !== null && 'role' in auth ? (auth as { role: Role }).role : undefined
}

export function isRawReply(value: unknown): value is RawReply {
  return typeof value === 'object' && value !== null && 'raw' in value && 'contentType' in value
}

/** Answers a GET outside the API (the website's pages); false when it has nothing at that path. */
export type RootFallback = (req: IncomingMessage, res: ServerResponse, url: URL) => boolean

/** The operation each answered request matched, for the request metrics (src/control/index.ts). */
const routes = new WeakMap<ServerResponse, string>()

/** The metrics label of an answered request: its operation id, or what answered it outside the table. */
export function routeOf(res: ServerResponse): string | undefined {
  return routes.get(res)
}

/**
 * Organisations' turns (src/control/turns.ts), one line for reads and one for writes, their shares of the read
 * pool, and the organisation a caller's credential belongs to, if any.
 */
export interface Turns {
  turns: FairTurns
  writes: FairTurns
  reads: Reads
  orgOf(auth: unknown): string | undefined
}

export function createRouter(operations: Operation<any>[], authenticate: Authenticate, fallback?: RootFallback, recordAudit?: RecordAudit, turns?: Turns) {
  const table = new Map<string, Compiled>()
  for (const op of operations) {
    const key = `${op.method} ${op.route}`
    if (table.has(key)) throw new Error(`duplicate route ${key}`)
    // The table is the one place roles are decided: an operation a member calls that names no role would be open to every role.
    if (op.credential === 'apiKey' && !op.minRole) throw new Error(`${op.operationId} takes an API key but names no minRole`)
    // Compiled when the route is first asked; test/openapi.test.ts compiles every one, so a schema AJV refuses fails there.
    const { body, query } = op
    table.set(key, { op, validate: body ? onFirstUse(() => ajv.compile(body as object)) : undefined, validateQuery: query ? onFirstUse(() => ajv.compile(query)) : undefined })
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = requestUrl(req.url)
    if (!url) return writeError(res, 'invalid_request', { error: 'The request target is not a path.' })
    const route = routePath(url.pathname)
    const underApi = route !== url.pathname
    const entry = table.get(`${req.method} ${route}`)
    if (!entry || (!underApi && !entry.op.atRoot)) {
      if (!underApi && fallback?.(req, res, url)) return
      await drain(req)
      return writeError(res, 'not_found')
    }
    const { op } = entry
    const validate = entry.validate?.()
    const validateQuery = entry.validateQuery?.()
    routes.set(res, op.operationId)
    const auth = await authenticate(req, url.searchParams, op.credential)
    if (op.minRole) {
      const role = roleOfCaller(auth)
      if (!role || !roleAllows(role, op.minRole)) throw new ApiError('forbidden', { error: `This needs the ${op.minRole} role${op.minRole === 'owner' ? '' : ' or above'}; yours is ${role ?? 'none'}.` })
    }
    if (validateQuery && !validateQuery(Object.fromEntries(url.searchParams))) {
      throw new ApiError('invalid_request', { error: `The query did not validate: ${describeErrors(validateQuery.errors)}.` })
    }
    const raw = await readJson(req)
    let body: Record<string, unknown> = {}
    if (validate) {
      if (!validate(raw === undefined ? {} : raw)) throw new ApiError('invalid_request', { error: `The body did not validate: ${describeErrors(validate.errors)}.` })
      body = (raw ?? {}) as Record<string, unknown>
    }
    const responseHeaders: Record<string, string[]> = {}
    const org = op.light ? undefined : turns?.orgOf(auth)
    const readIn =
      (turn: Turn): Read =>
      (method, ...args) =>
        turn.away(() => turns!.reads.run(org ?? NO_ORG, method, args))
    const ctx = { req, body, query: url.searchParams, auth, responseHeaders, turn: NO_TURN, read: readIn(NO_TURN) }
    const lane = op.writes ? turns?.writes : turns?.turns
    const reply = await (org === undefined ? op.handle(ctx) : lane!.run(org, (turn) => op.handle({ ...ctx, turn, read: readIn(turn) }), op.operationId))
    const event = op.audit?.(ctx, reply)
    if (event && recordAudit) await recordAudit(event, req, auth)
    for (const [name, values] of Object.entries(responseHeaders)) res.setHeader(name, values)
    if (isRawReply(reply)) {
      res.writeHead(reply.status ?? 200, { 'Content-Type': reply.contentType, ...reply.headers })
      if (typeof reply.raw === 'string' || Buffer.isBuffer(reply.raw)) res.end(reply.raw)
      // pipeline, not pipe: a client that goes away destroys the source too (a recording stream stops reading chunks).
      else pipeline(reply.raw, res, (error) => error && error.code !== 'ERR_STREAM_PREMATURE_CLOSE' && log.error('streamed answer failed', { error: String(error) }))
      return
    }
    writeJson(res, 200, reply)
  }

  return {
    operations,
    async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
      try {
        await dispatch(req, res)
      } catch (error) {
        if (error instanceof ApiError) return writeError(res, error.code, error.options)
        // The request reached the store after an online compaction closed it (src/store/reopenable.ts): each write it
        // made before committed whole, and the store opens again within seconds.
        if (error instanceof StoreClosed) return writeError(res, 'overloaded', { error: 'The store is being compacted; try again in a moment.', retryAfterSeconds: 1 })
        log.error('control handler failed', { error: String(error), stack: (error as Error)?.stack })
        writeError(res, 'internal_error')
      }
    },
  }
}

/**
 * The target as a URL. Read as a path under a fixed origin: `new URL('//x…', base)`
 * reads a target starting with `//` as a host name, and threw (500) for one that is no host.
 */
function requestUrl(target = '/'): URL | undefined {
  try {
    return new URL(target.startsWith('/') ? `http://control${target}` : target, 'http://control')
  } catch {
    return undefined
  }
}

export function writeJson(res: ServerResponse, status: number, value: unknown): void {
  if (res.headersSent) return void res.destroy()
  const body = JSON.stringify(value)
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) })
  res.end(body)
}

export function writeError(res: ServerResponse, code: ErrorCode, options?: ConstructorParameters<typeof ApiError>[1]): void {
  if (options?.retryAfterSeconds && !res.headersSent) res.setHeader('Retry-After', String(options.retryAfterSeconds))
  writeJson(res, statusOf(code), errorBody(code, options))
}

async function drain(req: IncomingMessage): Promise<void> {
  for await (const _ of req) {
    // discard: the answer does not depend on the body
  }
}

/** Reads a JSON body (the front already enforced the byte cap; this is the backstop). */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > LIMITS.controlBodyBytes) throw new ApiError('payload_too_large')
    chunks.push(chunk as Buffer)
  }
  if (size === 0) return undefined
  const bytes = Buffer.concat(chunks)
  if (nestsDeeperThan(bytes)) throw new ApiError('invalid_request', { error: `The body nests deeper than ${MAX_JSON_DEPTH} levels.` })
  try {
    return JSON.parse(bytes.toString('utf8'))
  } catch {
    throw new ApiError('invalid_request', { error: 'The body is not JSON.' })
  }
}
