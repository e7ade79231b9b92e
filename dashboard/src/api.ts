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

async function request<T>(method: 'GET' | 'POST', route: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (csrfToken) headers['x-csrf-token'] = csrfToken
  if (body !== undefined) headers['content-type'] = 'application/json'
  let res: Response
  try {
    res = await fetch(BASE + route, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) })
  } catch {
    throw new ApiFailure(0, 'network', 'The server could not be reached.', 'Check your connection and try again.')
  }
  const text = await res.text()
  let value: any
  try {
    value = text ? JSON.parse(text) : undefined
  } catch {
    throw new ApiFailure(res.status, 'bad_answer', `The server answered ${res.status} with something that is not JSON.`)
  }
  if (!res.ok) {
    const failure = new ApiFailure(res.status, value?.code ?? 'unknown', value?.error ?? `The server answered ${res.status}.`, value?.hint, value?.invalid)
    // Not the sign-in forms nor a password change: their 401 is a wrong password, not an ended session.
    if (res.status === 401 && (route.startsWith('/cli/') || route.startsWith('/auth/members.') || route.startsWith('/auth/invite'))) onSignedOut()
    throw failure
  }
  return value as T
}

export const api = {
  post: <T>(route: string, body?: unknown) => request<T>('POST', route, body ?? {}),
  get: <T>(route: string) => request<T>('GET', route),
  authState: () => request<AuthState>('GET', '/auth/state'),
}
