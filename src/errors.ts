/**
 * The one table of error codes (API contract, section 7) and the one factory
 * that builds error bodies. Handlers name a code; they never write a status
 * number or an error body by hand. test/errors.test.ts checks that this table,
 * the OpenAPI document and the README agree.
 */
import type { FromSchema } from 'json-schema-to-ts'
import type { errorBodySchema } from './schemas/common.js'

export const ERRORS = {
  invalid_request: { status: 400, message: 'The body or parameters did not validate.', hint: 'Check the request against /openapi.json.' },
  unauthorized: { status: 401, message: 'Missing, malformed, invalid or expired credential.', hint: 'Send Authorization: Bearer <API key or setup token>; issue a new one if it was revoked or expired.' },
  forbidden: { status: 403, message: 'Your role in the organisation does not allow this.', hint: 'Ask the organisation\'s owner (members.list shows who) for a role that does (docs/security.md, roles).' },
  not_found: { status: 404, message: 'No such endpoint, project or resource.', hint: 'Check the path and the id; endpoints are listed in /openapi.json.' },
  not_acceptable: { status: 406, message: 'No representation matches the Accept header.', hint: 'Accept text/html, text/markdown or application/json.' },
  payload_too_large: { status: 413, message: 'The body exceeded the endpoint\'s byte cap.', hint: 'Split the payload: chunks are capped at 1,000,000 bytes, signal batches at 256,000.' },
  quota_exceeded: { status: 409, message: 'The organisation holds as many of these as its quota allows.', hint: 'Revoke or delete ones you no longer use (API keys, invite links), or ask the operator to raise the quota (docs/security.md).' },
  overloaded: { status: 429, message: 'The service cannot store this payload right now; nothing was stored.', hint: 'Keep the payload and send it again after the Retry-After header\'s seconds.' },
  internal_error: { status: 500, message: 'The server failed to handle the request.', hint: 'Retry later; the server log has the details.' },
} as const

export type ErrorCode = keyof typeof ERRORS

/** An error answer, as src/schemas/common.ts documents it: a code missing from its enum does not compile in errorBody(). */
export type ErrorBody = FromSchema<typeof errorBodySchema>

export interface ErrorOptions {
  /** Replaces the table's human-readable message. */
  error?: string
  /** Replaces the table's hint. */
  hint?: string
  /** Ingest endpoints: adds `ok: false`. */
  ingest?: boolean
  invalid?: string[]
  /** Sent as the Retry-After header (seconds), not in the body. */
  retryAfterSeconds?: number
}

let documentationUrl: string | undefined

/** Set once at start-up from the configured public address. */
export function setDocumentationUrl(url: string): void {
  documentationUrl = url
}

export function errorBody(code: ErrorCode, options: ErrorOptions = {}): ErrorBody {
  const entry = ERRORS[code]
  const body: ErrorBody = { error: options.error ?? entry.message, code, hint: options.hint ?? entry.hint }
  if (documentationUrl) body.documentation_url = documentationUrl
  if (options.ingest) body.ok = false
  if (options.invalid) body.invalid = options.invalid
  return body
}

export function statusOf(code: ErrorCode): number {
  return ERRORS[code].status
}

/** Thrown by control-plane handlers; the router turns it into an error response. */
export class ApiError extends Error {
  constructor(readonly code: ErrorCode, readonly options: ErrorOptions = {}) {
    super(options.error ?? ERRORS[code].message)
  }
}

/** HTTP status lines for the statuses this service sends (uWebSockets.js wants the whole line). */
export const STATUS_LINES: Record<number, string> = {
  200: '200 OK',
  204: '204 No Content',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  403: '403 Forbidden',
  404: '404 Not Found',
  406: '406 Not Acceptable',
  409: '409 Conflict',
  413: '413 Payload Too Large',
  429: '429 Too Many Requests',
  500: '500 Internal Server Error',
}
