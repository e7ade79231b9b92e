/**
 * Assembles the OpenAPI 3.0.3 document from the operation tables (the
 * front's and the control worker's) and the JSON Schemas AJV compiles:
 * nothing in it is written by hand a second time.
 */
import { INGEST_OPERATIONS, INGEST_REQUESTS, PUBLIC_ARTIFACTS, type FrontOperation } from '../front/operations.js'
import type { Operation } from '../control/router.js'
import { ERRORS, type ErrorCode } from '../errors.js'
import { errorBodySchema } from '../schemas/common.js'
import { PUBLIC_KEY_MAX_CHARS } from './chunk-checks.js'

type Schema = Record<string, unknown>

/** Codes every authenticated operation may answer. */
const BEARER_ERRORS: ErrorCode[] = ['unauthorized']

/**
 * Moves every sub-schema that carries an `$id` into components and leaves a
 * `$ref` in its place (OpenAPI 3.0 has no `$id`).
 */
function componentize(schema: unknown, components: Record<string, Schema>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => componentize(s, components))
  if (!schema || typeof schema !== 'object') return schema
  const { $id, ...rest } = schema as Schema
  const out: Schema = {}
  for (const [key, value] of Object.entries(rest)) out[key] = componentize(value, components)
  if (typeof $id === 'string') {
    components[$id] = out
    return { $ref: `#/components/schemas/${$id}` }
  }
  return out
}

const RETRY_AFTER_HEADER = { description: 'Seconds to wait before sending the same payload again.', schema: { type: 'integer', minimum: 1 } }

function errorResponses(codes: ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>()
  for (const code of new Set<ErrorCode>([...codes, 'not_found'])) {
    const status = ERRORS[code].status
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  const responses: Record<string, unknown> = {}
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: statusCodes.map((c) => `\`${c}\`: ${ERRORS[c].message}`).join(' '),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
      ...(status === ERRORS.overloaded.status ? { headers: { 'Retry-After': RETRY_AFTER_HEADER } } : {}),
    }
  }
  return responses
}

export interface OpenApiOptions {
  publicUrl: string
  directUrl: string
  version?: string
}

export function buildOpenApi(controlOperations: Operation<any>[], options: OpenApiOptions): Schema {
  const components: Record<string, Schema> = {}
  componentize(errorBodySchema, components)
  const paths: Record<string, Record<string, unknown>> = {}
  const add = (route: string, method: string, operation: Schema) => {
    paths[route] = { ...paths[route], [method.toLowerCase()]: operation }
  }
  const okResponse = (type: string, schema?: Schema) => ({
    description: 'Success.',
    content: { [type]: { schema: schema ? componentize(schema, components) : { type: 'string' } } },
  })

  for (const op of PUBLIC_ARTIFACTS) {
    add(op.route, op.method, { operationId: op.operationId, summary: op.summary, tags: ['public'], security: [], responses: { '200': okResponse(op.responseType, op.response), ...errorResponses(op.errors ?? []) } })
  }
  for (const op of INGEST_OPERATIONS) add(op.route, op.method, ingestOperation(op, components, okResponse))

  for (const op of controlOperations) {
    // Operations that take an API key also take a signed-in dashboard session (cookie plus X-CSRF-Token).
    const security = op.credential === 'apiKey' ? [{ apiKey: [] }, { dashboardSession: [] }] : op.credential === 'setupToken' ? [{ setupToken: [] }] : []
    const entry: Schema = {
      operationId: op.operationId,
      summary: op.summary,
      tags: [op.route.startsWith('/auth/') ? 'accounts' : op.credential === 'setupToken' ? 'install' : op.credential === 'apiKey' ? 'projects' : 'public'],
      security,
      // Who may call it (docs/security.md, roles); a caller below it is answered 403 forbidden.
      ...(op.minRole ? { 'x-min-role': op.minRole } : {}),
      responses: {
        '200': okResponse(op.responseType ?? 'application/json', op.response),
        ...errorResponses([...(op.errors ?? []), ...(op.credential === 'none' ? [] : BEARER_ERRORS), ...(op.minRole ? ['forbidden' as const] : [])]),
      },
    }
    if (op.answerHeaders) (entry.responses as Record<string, Schema>)['200'].headers = op.answerHeaders
    if (op.body) entry.requestBody = { required: true, content: { 'application/json': { schema: componentize(op.body, components) } } }
    if (op.query) entry.parameters = queryParameters(op.query)
    add(op.route, op.method, entry)
  }

  return {
    openapi: '3.0.3',
    info: {
      title: 'Session-Recording Service HTTP API',
      version: options.version ?? '1.0.0',
      description: 'Session recordings and page-analysis signals in; projects, setup and read APIs out. Every error is JSON with a stable `code`.',
      // The same statement as package.json's `license`: the service is not published under an open licence (yet).
      license: { name: 'UNLICENSED' },
    },
    servers: [
      { url: options.publicUrl, description: 'Branded, versioned base.' },
      { url: `${options.directUrl}/api`, description: 'Direct address (installed trackers and CLIs).' },
    ],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        publicKey: { type: 'apiKey', in: 'query', name: 'pk', description: 'Project public key `svc_pk_…`: ingest only, reads nothing, not a secret.' },
        apiKey: { type: 'http', scheme: 'bearer', description: 'API key `svc_sk_…`: every project of the organisation.' },
        setupToken: { type: 'http', scheme: 'bearer', description: 'Setup token `svc_st_…`: one project\'s path rules; expires 30 days after minting.' },
        dashboardSession: { type: 'apiKey', in: 'cookie', name: 'svc_session', description: 'The dashboard\'s sign-in cookie (POST /auth/login); every POST made with it also sends the session\'s X-CSRF-Token.' },
      },
    },
  }
}

function ingestOperation(op: FrontOperation, components: Record<string, Schema>, okResponse: (type: string, schema?: Schema) => unknown): Schema {
  const pk = { name: 'pk', in: 'query', required: true, schema: { type: 'string', pattern: '^svc_pk_[0-9a-f]+$', maxLength: PUBLIC_KEY_MAX_CHARS }, description: 'Project public key.' }
  const base = {
    operationId: op.operationId,
    summary: op.summary,
    tags: ['ingest'],
    security: [{ publicKey: [] }],
    responses: { '200': okResponse(op.responseType, op.response), ...errorResponses(op.errors ?? []) },
  }
  if (op.operationId === 'ingestSessionChunk') {
    componentize(INGEST_REQUESTS.ingestSessionChunk.metaSchema, components)
    return {
      ...base,
      parameters: [
        pk,
        {
          name: 'X-Svc-Meta',
          in: 'header',
          required: true,
          description: 'A JSON object serialised as a string; its members are described by the ChunkMeta schema.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ChunkMeta' } } },
        },
      ],
      requestBody: { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary', maxLength: 1_000_000 } } } },
    }
  }
  if (op.method === 'GET') return { ...base, parameters: [pk] }
  if (op.operationId === 'ingestStylesheet') {
    return {
      ...base,
      parameters: [pk, { name: 'hash', in: 'query', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{64}$' }, description: 'SHA-256 of the stylesheet\'s UTF-8 text, lowercase hex.' }],
      requestBody: { required: true, content: { 'text/css': { schema: { type: 'string', maxLength: 1_000_000 } }, 'application/octet-stream': { schema: { type: 'string', format: 'binary', maxLength: 1_000_000, description: 'The text gzipped.' } } } },
    }
  }
  return {
    ...base,
    parameters: [pk],
    requestBody: { required: true, content: { 'application/json': { schema: componentize(INGEST_REQUESTS.ingestSignalsBatch.bodySchema, components) } } },
  }
}

function queryParameters(schema: Schema): Schema[] {
  const properties = (schema.properties ?? {}) as Record<string, Schema>
  const required = new Set((schema.required ?? []) as string[])
  return Object.entries(properties).map(([name, property]) => ({ name, in: 'query', required: required.has(name), schema: property }))
}
