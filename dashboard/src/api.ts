/**
 * The dashboard's only way to the server: the documented API (no private
 * endpoints), called with the sign-in cookie and, on every call, the session's
 * CSRF token in X-CSRF-Token (src/control/auth.ts). Failures arrive as
 * ApiFailure carrying the error body's `code` and `hint`.
 */

import type { AuthStateAnswer, SignedInAnswer } from '../../src/schemas/types.js'

const BASE = '/api/v1'

export type AuthState = AuthStateAnswer
export type SignedIn = SignedInAnswer
export type User = SignedInAnswer['user']

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint?: string,
    readonly invalid?: string[],
  ) {
    super(message)
  }
}

let csrfToken: string | undefined
let onSignedOut: () => void = () => {}

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token
}

/** Called when a call answers 401 on a signed-in route: the session ended (expired, signed out elsewhere). */
export function onSessionEnded(listener: () => void): void {
  onSignedOut = listener
}

function headersFor(body: unknown, accept: string): Record<string, string> {
  const headers: Record<string, string> = { accept }
  if (csrfToken) headers['x-csrf-token'] = csrfToken
  if (body !== undefined) headers['content-type'] = 'application/json'
  return headers
}

async function send(method: 'GET' | 'POST', route: string, body: unknown, accept: string, signal?: AbortSignal): Promise<Response> {
  try {
    return await fetch(BASE + route, { method, headers: headersFor(body, accept), credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body), signal })
  } catch (error) {
    if (signal?.aborted) throw error
    throw new ApiFailure(0, 'network', 'The server could not be reached.', 'Check your connection and try again.')
  }
}

function failureOf(res: Response, route: string, value: any): ApiFailure {
  const failure = new ApiFailure(res.status, value?.code ?? 'unknown', value?.error ?? `The server answered ${res.status}.`, value?.hint, value?.invalid)
  // Not the sign-in forms nor a password change: their 401 is a wrong password, not an ended session.
  if (res.status === 401 && (route.startsWith('/cli/') || route.startsWith('/auth/members.') || route.startsWith('/auth/invite'))) onSignedOut()
  return failure
}

async function request<T>(method: 'GET' | 'POST', route: string, body?: unknown): Promise<T> {
  const res = await send(method, route, body, 'application/json')
  const text = await res.text()
  let value: any
  try {
    value = text ? JSON.parse(text) : undefined
  } catch {
    throw new ApiFailure(res.status, 'bad_answer', `The server answered ${res.status} with something that is not JSON.`)
  }
  if (!res.ok) throw failureOf(res, route, value)
  return value as T
}

/**
 * A POST whose answer lasts (sessions.follow, newline-delimited JSON): the
 * body's reader once the server said yes, or the ApiFailure `request` would
 * throw. Aborting `signal` closes the answer, which ends it on the server too.
 */
async function stream(route: string, body: unknown, signal: AbortSignal): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const res = await send('POST', route, body, 'application/x-ndjson', signal)
  if (!res.ok || !res.body) throw failureOf(res, route, await res.json().catch(() => undefined))
  return res.body.getReader()
}

export const api = {
  post: <T>(route: string, body?: unknown) => request<T>('POST', route, body ?? {}),
  get: <T>(route: string) => request<T>('GET', route),
  authState: () => request<AuthState>('GET', '/auth/state'),
  stream,
}
