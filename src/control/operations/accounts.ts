/**
 * Dashboard accounts (extension): first-run set-up, sign-in, sign-out and
 * one-time invite links. A signed-in browser then calls the documented
 * operations with its session cookie and CSRF token (src/control/auth.ts).
 *
 * A wrong password costs the same whether or not the email exists (scrypt
 * runs against a dummy hash), answers the same words, and is slowed down:
 * each consecutive failure for an email doubles a delay, up to 5 s.
 */
import { ApiError } from '../../errors.js'
import { acceptInviteBody, authStateAnswer, inviteAnswer, inviteListAnswer, inviteRevokeBody, loginBody, setupBody, signedInAnswer } from '../../schemas/accounts.js'
import { okAnswer } from '../../schemas/control.js'
import { mintSecret, newId, parseSecret, secretMatches } from '../../secrets.js'
import type { Store, UserRecord } from '../../store/store.js'
import type { ApiKeyAuth } from '../auth.js'
import { currentSession, csrfMatches, sessionCookie, SESSION_TTL_MS, startSession } from '../dashboard-session.js'
import { DUMMY_HASH, hashPassword, verifyPassword } from '../passwords.js'
import type { Operation, RequestContext } from '../router.js'

/** An invite link lives 7 days. */
const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000
const BASE_DELAY_MS = 250
const MAX_DELAY_MS = 5_000
/** Failures are forgotten after 15 minutes without one. */
const FAILURE_MEMORY_MS = 15 * 60 * 1000

const SIGN_IN_FAILED = { error: 'The email or the password is wrong.', hint: 'Check both; after several failures each attempt waits longer.' }

export interface AccountDeps {
  store: Store
  publicUrl: string
  directUrl: string
  now: () => number
}

type Body = Record<string, string>

export function accountOperations(deps: AccountDeps): Operation<any>[] {
  const { store } = deps
  const failures = new Map<string, { count: number; last: number }>()

  async function slowDown(email: string): Promise<void> {
    const now = deps.now()
    const entry = failures.get(email)
    const count = entry && now - entry.last < FAILURE_MEMORY_MS ? entry.count + 1 : 1
    failures.set(email, { count, last: now })
    if (failures.size > 100_000) failures.clear() // bounded memory under a spray of emails
    await new Promise((r) => setTimeout(r, Math.min(BASE_DELAY_MS * 2 ** (count - 1), MAX_DELAY_MS)))
  }

  async function signIn(ctx: RequestContext, user: UserRecord) {
    const { token, record } = await startSession(store, user, deps.now())
    ctx.responseHeaders['Set-Cookie'] = [sessionCookie(ctx.req, deps.publicUrl, token, SESSION_TTL_MS / 1000)]
    const org = store.getOrg(user.orgId)
    return { user: { userId: user.id, email: user.email, orgId: user.orgId, orgName: org?.name ?? '' }, csrfToken: record.csrfToken }
  }

  return [
    {
      operationId: 'getAuthState',
      method: 'GET',
      route: '/auth/state',
      credential: 'none',
      summary: 'Whether the deployment awaits its first owner, and who is signed in.',
      response: authStateAnswer,
      handle(ctx) {
        const firstRun = store.countUsers() === 0
        const session = currentSession(store, ctx.req, deps.now())
        const user = session ? store.getUser(session.userId) : undefined
        if (!session || !user) return { firstRun, signedIn: false }
        return { firstRun, signedIn: true, user: { userId: user.id, email: user.email, orgId: user.orgId, orgName: store.getOrg(user.orgId)?.name ?? '' }, csrfToken: session.csrfToken }
      },
    },
    {
      operationId: 'createFirstOwner',
      method: 'POST',
      route: '/auth/setup',
      credential: 'none',
      summary: 'First run only: creates the first organisation and its owner, and signs in.',
      body: setupBody,
      response: signedInAnswer,
      errors: ['invalid_request'],
      async handle(ctx) {
        const { orgName, email, password } = ctx.body as Body
        const now = deps.now()
        const org = { id: newId('org'), name: orgName.trim(), createdAt: now }
        const user: UserRecord = { id: newId('usr'), orgId: org.id, email: email.toLowerCase(), createdAt: now, passwordHash: await hashPassword(password) }
        if (!(await store.createFirstOwner(org, user))) {
          throw new ApiError('invalid_request', { error: 'This deployment already has its owner.', hint: 'Sign in, or ask for an invite link.' })
        }
        return signIn(ctx, user)
      },
    },
    {
      operationId: 'signIn',
      method: 'POST',
      route: '/auth/login',
      credential: 'none',
      summary: 'Signs in with email and password; sets the session cookie.',
      body: loginBody,
      response: signedInAnswer,
      errors: ['invalid_request'],
      async handle(ctx) {
        const { email, password } = ctx.body as Body
        const key = email.trim().toLowerCase()
        const user = store.findUserByEmail(key)
        const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH)
        if (!user || !user.passwordHash || !ok) {
          await slowDown(key)
          throw new ApiError('unauthorized', SIGN_IN_FAILED)
        }
        failures.delete(key)
        return signIn(ctx, user)
      },
    },
    {
      operationId: 'signOut',
      method: 'POST',
      route: '/auth/logout',
      credential: 'none',
      summary: 'Ends the dashboard session on the server and clears its cookie.',
      response: okAnswer,
      async handle(ctx) {
        const session = currentSession(store, ctx.req, deps.now())
        if (!session || !csrfMatches(ctx.req, session)) throw new ApiError('unauthorized', { error: 'No session to end, or the CSRF token is wrong.', hint: 'Reload the dashboard.' })
        await store.deleteDashboardSession(session.id)
        ctx.responseHeaders['Set-Cookie'] = [sessionCookie(ctx.req, deps.publicUrl, '', 0)]
        return { ok: true }
      },
    },
    {
      operationId: 'createInvite',
      method: 'POST',
      route: '/auth/invite',
      credential: 'apiKey',
      summary: 'Creates a one-time link that lets one more person join the organisation (7 days).',
      response: inviteAnswer,
      async handle({ auth }: RequestContext & { auth: ApiKeyAuth }) {
        const now = deps.now()
        const secret = mintSecret('iv')
        await store.putInvite({ id: secret.id, digestHex: secret.digestHex, orgId: auth.orgId, invitedBy: auth.userId, createdAt: now, expiresAt: now + INVITE_TTL_MS })
        return { inviteId: secret.id, inviteUrl: `${deps.directUrl}/app/#/invite/${secret.token}`, expiresAt: now + INVITE_TTL_MS }
      },
    },
    {
      operationId: 'listInvites',
      method: 'POST',
      route: '/auth/invites.list',
      credential: 'apiKey',
      summary: 'The organisation\'s invite links, newest first, with whether each still works. The links themselves are not kept.',
      response: inviteListAnswer,
      handle({ auth }: RequestContext & { auth: ApiKeyAuth }) {
        const now = deps.now()
        return {
          invites: store
            .listInvites(auth.orgId)
            .sort((a, b) => b.createdAt - a.createdAt)
            .map((invite) => ({
              inviteId: invite.id,
              status: invite.usedAt ? 'used' : invite.revokedAt ? 'revoked' : invite.expiresAt <= now ? 'expired' : 'pending',
              createdAt: invite.createdAt,
              expiresAt: invite.expiresAt,
              invitedBy: store.getUser(invite.invitedBy)?.email ?? null,
              ...(invite.usedAt ? { usedAt: invite.usedAt } : {}),
              ...(invite.revokedAt ? { revokedAt: invite.revokedAt } : {}),
            })),
        }
      },
    },
    {
      operationId: 'revokeInvite',
      method: 'POST',
      route: '/auth/invites.revoke',
      credential: 'apiKey',
      summary: 'Revokes an unused invite link: from the next request on, it lets no one in. Revoking a revoked or expired link is not an error.',
      body: inviteRevokeBody,
      response: okAnswer,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body }: RequestContext & { auth: ApiKeyAuth }) {
        const { inviteId } = body as { inviteId: string }
        const invite = store.getInvite(inviteId)
        if (!invite || invite.orgId !== auth.orgId) throw new ApiError('not_found', { error: 'No such invite.', hint: 'List invites with POST /auth/invites.list.' })
        const after = await store.revokeInvite(inviteId, deps.now())
        if (after?.usedAt) throw new ApiError('invalid_request', { error: 'This invite was already used: its person has joined.', hint: 'Nothing to revoke; the link works only once.' })
        return { ok: true }
      },
    },
    {
      operationId: 'acceptInvite',
      method: 'POST',
      route: '/auth/accept-invite',
      credential: 'none',
      summary: 'Joins the organisation of an invite link (once), and signs in.',
      body: acceptInviteBody,
      response: signedInAnswer,
      errors: ['invalid_request'],
      async handle(ctx) {
        const { token, email, password } = ctx.body as Body
        const parsed = parseSecret(token)
        const invite = parsed?.kind === 'iv' ? store.getInvite(parsed.id) : undefined
        if (!parsed || !invite || !secretMatches(parsed.token, invite.digestHex)) {
          throw new ApiError('unauthorized', { error: 'The invite link is not valid.', hint: 'Ask for a new invite link.' })
        }
        if (store.findUserByEmail(email)) throw new ApiError('invalid_request', { error: 'That email already has an account.', hint: 'Sign in instead.' })
        const used = await store.consumeInvite(invite.id, deps.now())
        if (!used) throw new ApiError('unauthorized', { error: 'The invite link was used or has expired.', hint: 'Ask for a new invite link.' })
        const user: UserRecord = { id: newId('usr'), orgId: used.orgId, email: email.toLowerCase(), createdAt: deps.now(), passwordHash: await hashPassword(password) }
        await store.putUser(user)
        return signIn(ctx, user)
      },
    },
  ]
}
