/**
 * Dashboard sign-in sessions: an HttpOnly, SameSite=Strict cookie holding a
 * 256-bit secret (only its digest is stored), expiring after 7 days, plus a
 * CSRF token the page sends back in `X-CSRF-Token` on every state-changing
 * request. SameSite already stops cross-site posts in current browsers; the
 * token covers older ones and same-site subdomains.
 */
import type { IncomingMessage } from 'node:http'
import { timingSafeEqual } from 'node:crypto'
import { mintSecret, parseSecret, randomHex, secretMatches } from '../accounts/secrets.js'
import { ApiError } from '../errors.js'
import type { DashboardSessionRecord, Store, UserRecord } from '../store/store.js'

export const SESSION_COOKIE = 'svc_session'
/** Seven days: a working week without signing in again, short enough that a lost laptop's session dies. */
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000

export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie
  if (!header) return undefined
  for (const part of header.split(';')) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) return value.join('=')
  }
  return undefined
}

/** Secure when the deployment is served over https (directly or behind a proxy that says so). */
function secure(req: IncomingMessage, publicUrl: string): boolean {
  return publicUrl.startsWith('https:') || req.headers['x-forwarded-proto'] === 'https'
}

export function sessionCookie(req: IncomingMessage, publicUrl: string, token: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure(req, publicUrl) ? '; Secure' : ''}`
}

/**
 * Starts a session for `user` as the caller read it: refused (401) when, by the
 * time it is written, the user was removed or their password changed (a
 * removal or a recovery committed while this sign-in checked the old one).
 */
export async function startSession(store: Store, user: UserRecord, now: number): Promise<{ token: string; record: DashboardSessionRecord }> {
  const secret = mintSecret('ds')
  const record: DashboardSessionRecord = {
    id: secret.id,
    digestHex: secret.digestHex,
    userId: user.id,
    orgId: user.orgId,
    csrfToken: randomHex(32),
    createdAt: now,
    expiresAt: now + SESSION_TTL_MS,
  }
  if (!user.passwordHash || (await store.putDashboardSession(record, user.passwordHash)) !== 'created') {
    throw new ApiError('unauthorized', { error: 'The account was removed or its password changed during this sign-in.', hint: 'Sign in again.' })
  }
  return { token: secret.token, record }
}

/** The live session the request's cookie names, or undefined. */
export function currentSession(store: Store, req: IncomingMessage, now: number): DashboardSessionRecord | undefined {
  const token = readCookie(req, SESSION_COOKIE)
  const parsed = token ? parseSecret(token) : undefined
  if (!parsed || parsed.kind !== 'ds') return undefined
  const record = store.getDashboardSession(parsed.id)
  if (!record || !secretMatches(parsed.token, record.digestHex) || record.expiresAt <= now) return undefined
  // Removal ends a member's sessions; this also refuses one that a sweep could have missed.
  if (store.getUser(record.userId)?.orgId !== record.orgId) return undefined
  return record
}

export function csrfMatches(req: IncomingMessage, session: DashboardSessionRecord): boolean {
  const sent = req.headers['x-csrf-token']
  if (typeof sent !== 'string' || sent.length !== session.csrfToken.length) return false
  return timingSafeEqual(Buffer.from(sent), Buffer.from(session.csrfToken))
}
