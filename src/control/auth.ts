/**
 * Bearer credentials (API contract, section 5). Each operation takes exactly
 * one kind; the kinds are never interchangeable. Every failure is 401
 * `unauthorized` with a hint that says what to send — and never echoes the
 * credential. Nothing is cached: a revoke is seen by the very next request.
 * Every credential is also checked against its user, who must still belong to
 * the organisation: a removed member's credential that a removal did not
 * sweep is refused all the same.
 */
import type { IncomingMessage } from 'node:http'
import { ApiError } from '../errors.js'
import { log } from '../log.js'
import { roleOf, type Role } from '../accounts/roles.js'
import { parseSecret, secretMatches, type SecretKind } from '../accounts/secrets.js'
import type { Store } from '../store/store.js'
import { csrfMatches, currentSession, readCookie, SESSION_COOKIE } from './dashboard-session.js'
import type { Credential } from './router.js'

export interface ApiKeyAuth {
  kind: 'apiKey'
  /** The API key's id, or `dashboard` when a signed-in dashboard session calls. */
  keyId: string
  orgId: string
  userId: string
  /** The member's role as it is now (not when the key was made): a key acts with its member's role. */
  role: Role
  label?: string
  /** The dashboard session's id when a signed-in browser calls. */
  sessionId?: string
}

export interface SetupAuth {
  kind: 'setupToken'
  tokenId: string
  projectId: string
}

const EXPECTED: Record<Exclude<Credential, 'none'>, { kind: SecretKind; name: string }> = {
  apiKey: { kind: 'sk', name: 'an API key (Authorization: Bearer svc_sk_…), issued in the dashboard or with `npm run admin -- create-key`' },
  setupToken: { kind: 'st', name: 'a setup token (Authorization: Bearer svc_st_…), minted from the project\'s settings' },
}

/** lastUsedAt is written at most once a minute per key: a write per request would cost more than it tells. */
const TOUCH_INTERVAL_MS = 60_000

/** Compared against when no record exists, so that an unknown id costs the same digest work as a known one. */
const DUMMY_DIGEST = '0'.repeat(64)

function refuse(error: string, hint: string): never {
  throw new ApiError('unauthorized', { error, hint })
}

export function createAuthenticator(store: Store, now: () => number = Date.now) {
  function dashboardAuth(req: IncomingMessage): ApiKeyAuth {
    const session = currentSession(store, req, now())
    if (!session) refuse('The dashboard session has expired or was ended.', 'Sign in again.')
    if (req.method !== 'GET' && !csrfMatches(req, session)) {
      refuse('The CSRF token is missing or wrong.', 'Reload the dashboard; it sends X-CSRF-Token with every change.')
    }
    const user = store.getUser(session.userId)
    if (!user || user.orgId !== session.orgId) refuse('The member this session belongs to was removed.', 'Ask the organisation\'s owner for a new invite.')
    return { kind: 'apiKey', keyId: 'dashboard', orgId: session.orgId, userId: session.userId, role: roleOf(store, user), sessionId: session.id }
  }

  return async function authenticate(req: IncomingMessage, query: URLSearchParams, credential: Credential): Promise<ApiKeyAuth | SetupAuth | undefined> {
    if (credential === 'none') return undefined
    const expected = EXPECTED[credential]
    for (const value of query.values()) {
      if (/svc_(sk|st)_/.test(value)) {
        refuse('Secrets are refused in query strings.', `Send ${expected.name} in the Authorization header, and rotate the secret you sent: URLs are logged.`)
      }
    }
    const header = req.headers.authorization
    // The dashboard calls the same operations as an API key would, with its sign-in cookie and CSRF token.
    if (!header && credential === 'apiKey' && readCookie(req, SESSION_COOKIE)) return dashboardAuth(req)
    if (!header) refuse('The Authorization header is missing.', `Send ${expected.name}.`)
    const match = /^Bearer +(\S+) *$/i.exec(header)
    if (!match) refuse('The Authorization header is not "Bearer <credential>".', `Send ${expected.name}.`)
    const parsed = parseSecret(match[1])
    if (!parsed) refuse('The bearer credential is malformed.', `Send ${expected.name}.`)
    if (parsed.kind !== expected.kind) refuse('This endpoint does not take that kind of credential.', `It takes ${expected.name}.`)

    const at = now()
    if (parsed.kind === 'sk') {
      const record = store.getApiKey(parsed.id)
      const matches = secretMatches(parsed.token, record?.digestHex ?? DUMMY_DIGEST)
      if (!record || !matches) refuse('The API key is not valid.', 'Check the key, or issue a new one.')
      if (record.revokedAt) refuse('The API key was revoked.', 'Issue a new API key.')
      const user = store.getUser(record.userId)
      if (!user || user.orgId !== record.orgId) refuse('The member this API key belongs to was removed.', 'Ask the organisation\'s owner for a new invite.')
      // Awaited, so that the request that used the key already sees its lastUsedAt (keys.list, for one).
      // Bookkeeping, not the request: a cluster node whose log is unreachable still answers reads made with the key.
      if (!record.lastUsedAt || at - record.lastUsedAt > TOUCH_INTERVAL_MS) {
        await store.updateApiKey(record.id, { lastUsedAt: at }).catch((error: unknown) => log.warn('API key last use not recorded', { keyId: record.id, error: String(error) }))
      }
      return { kind: 'apiKey', keyId: record.id, orgId: record.orgId, userId: record.userId, role: roleOf(store, user), label: record.label }
    }
    const record = store.getSetupToken(parsed.id)
    const matches = secretMatches(parsed.token, record?.digestHex ?? DUMMY_DIGEST)
    if (!record || !matches) refuse('The setup token is not valid.', 'Ask the project owner for a fresh install prompt.')
    if (record.revokedAt) refuse('The setup token was revoked.', 'Ask the project owner for a fresh install prompt.')
    if (record.expiresAt <= at) refuse('The setup token has expired.', 'Setup tokens last 30 days; ask the project owner for a fresh install prompt.')
    // A deleted project's tokens are erased in the background; until then they authorise nothing.
    if (!store.getProject(record.projectId)) refuse('The project was deleted.', 'Ask the organisation for the project that replaced it.')
    // A token a member minted dies with their membership (tokens an operator minted have no creator).
    if (record.createdBy !== undefined && store.getUser(record.createdBy)?.orgId !== store.getProject(record.projectId)?.orgId) {
      refuse('The member who minted this setup token was removed.', 'Ask the project owner for a fresh install prompt.')
    }
    return { kind: 'setupToken', tokenId: record.id, projectId: record.projectId }
  }
}
