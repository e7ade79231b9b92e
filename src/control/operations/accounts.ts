/**
 * Dashboard accounts (extension): first-run set-up, sign-in, sign-out and
 * one-time invite links. A signed-in browser then calls the documented
 * operations with its session cookie and CSRF token (src/control/auth.ts).
 *
 * A wrong password costs the same whether or not the email exists (scrypt
 * runs against a dummy hash) and answers the same words; attempts are
 * throttled per account and per address before any hash is computed
 * (login-throttle.ts). The operations that set a cookie without a credential
 * refuse cross-site forms (same-origin.ts). Nothing unauthenticated hashes a
 * password before what can be checked cheaply is: set-up once an owner exists,
 * an invite link that is used, revoked or expired; and every hash waits in one
 * bounded queue (passwords.ts).
 */
import { ownerOf, refusedCreation } from '../../accounts/credentials.js'
import { roleOf } from '../../accounts/roles.js'
import { ApiError } from '../../errors.js'
import { acceptInviteBody, authStateAnswer, inviteAnswer, inviteListAnswer, inviteRevokeBody, loginBody, setupBody, signedInAnswer } from '../../schemas/accounts.js'
import { okAnswer } from '../../schemas/control.js'
import type { InviteRow } from '../../schemas/types.js'
import { mintSecret, newId, parseSecret, secretMatches } from '../../accounts/secrets.js'
import type { InviteRecord, Store, UserRecord } from '../../store/store.js'
import type { ApiKeyAuth } from '../auth.js'
import { currentSession, csrfMatches, sessionCookie, SESSION_TTL_MS, startSession } from '../dashboard-session.js'
import { clientAddress } from '../front-link.js'
import type { LoginThrottle } from '../login-throttle.js'
import { addressTurn, DUMMY_HASH, hashPassword, orgTurn, verifyPassword } from '../passwords.js'
import { operation, type Operation, type RequestContext } from '../router.js'
import { requireSameOriginJson } from '../same-origin.js'

/** An invite link lives 7 days. */
const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000

const OWNER_EXISTS = { error: 'This deployment already has its owner.', hint: 'Sign in, or ask for an invite link.' }

const SIGN_IN_FAILED = { error: 'The email or the password is wrong.', hint: 'Check both; after 5 wrong attempts at an account from one address, that address waits 15 minutes.' }

export interface AccountDeps {
  store: Store
  publicUrl: string
  directUrl: string
  now: () => number
  throttle: LoginThrottle
  /** The organisation's quota of pending invite links (Config.maxOpenInvitesPerOrg). */
  maxOpenInvites?: number
}

const LINK_GONE = { error: 'The invite link was used or has expired.', hint: 'Ask for a new invite link.' }

/** Whether a link can still be accepted: checked before any hash, and again by the store as it consumes it. */
const usable = (invite: InviteRecord, now: number) => !invite.usedAt && !invite.revokedAt && invite.expiresAt > now

export function accountOperations(deps: AccountDeps): Operation<any>[] {
  const { store, throttle } = deps
  const ownOrigins = [deps.publicUrl, deps.directUrl]

  /**
   * A sign-in link (src/accounts/credentials.ts mintSignInLink): its own user's
   * email, once, sets that user's password. It is how an operator takes an
   * account back, so the store ends every session the account had and voids
   * its other links in the same step.
   */
  async function claim(ctx: RequestContext, invite: InviteRecord, email: string, password: string) {
    const user = store.getUser(invite.forUserId!)
    if (!user || user.email !== email.toLowerCase()) {
      throw new ApiError('unauthorized', { error: 'This sign-in link is for another email.', hint: 'Type the email the link was made for, or ask the operator for a new link.' })
    }
    const passwordHash = await hashPassword(password, orgTurn(user.orgId))
    const claimed = await store.claimSignInLink(invite.id, passwordHash, deps.now())
    if (!claimed) throw new ApiError('unauthorized', { error: 'The sign-in link was used, replaced by a newer one or has expired, or its user was removed.', hint: 'Ask the operator for a new link.' })
    return signIn(ctx, claimed)
  }

  async function signIn(ctx: RequestContext, user: UserRecord) {
    const { token, record } = await startSession(store, user, deps.now())
    await store.updateUser(user.id, { lastSignInAt: record.createdAt })
    ctx.responseHeaders['Set-Cookie'] = [sessionCookie(ctx.req, deps.publicUrl, token, SESSION_TTL_MS / 1000)]
    const org = store.getOrg(user.orgId)
    return { user: { userId: user.id, email: user.email, orgId: user.orgId, orgName: org?.name ?? '', role: roleOf(store, user) }, csrfToken: record.csrfToken }
  }

  return [
    operation({
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
        return { firstRun, signedIn: true, user: { userId: user.id, email: user.email, orgId: user.orgId, orgName: store.getOrg(user.orgId)?.name ?? '', role: roleOf(store, user) }, csrfToken: session.csrfToken }
      },
    }),
    operation({
      operationId: 'createFirstOwner',
      method: 'POST',
      writes: true,
      route: '/auth/setup',
      credential: 'none',
      audit: (_ctx, answer) => ({ action: 'org.setup', target: answer.user.orgId, actor: { orgId: answer.user.orgId, userId: answer.user.userId } }),
      summary: 'First run only: creates the first organisation and its owner, and signs in.',
      body: setupBody,
      response: signedInAnswer,
      errors: ['invalid_request', 'overloaded'],
      async handle(ctx) {
        requireSameOriginJson(ctx.req, ownOrigins)
        const { orgName, email, password } = ctx.body
        // Checked before the hash, so that anyone may ask this forever at no cost; createFirstOwner decides a race.
        if (store.countUsers() > 0) throw new ApiError('invalid_request', OWNER_EXISTS)
        const now = deps.now()
        const org = { id: newId('org'), name: orgName.trim(), createdAt: now }
        const user: UserRecord = { id: newId('usr'), orgId: org.id, email: email.toLowerCase(), createdAt: now, passwordHash: await hashPassword(password, addressTurn(clientAddress(ctx.req))), role: 'owner' }
        if (!(await store.createFirstOwner(org, user))) throw new ApiError('invalid_request', OWNER_EXISTS)
        return signIn(ctx, user)
      },
    }),
    operation({
      operationId: 'signIn',
      method: 'POST',
      route: '/auth/login',
      credential: 'none',
      audit: (_ctx, answer) => ({ action: 'auth.sign_in', actor: { orgId: answer.user.orgId, userId: answer.user.userId } }),
      summary: 'Signs in with email and password; sets the session cookie.',
      body: loginBody,
      response: signedInAnswer,
      errors: ['invalid_request', 'overloaded'],
      async handle(ctx) {
        requireSameOriginJson(ctx.req, ownOrigins)
        const { email, password } = ctx.body
        const key = email.trim().toLowerCase()
        const address = clientAddress(ctx.req)
        const { knownPlace } = throttle.attempt(key, address)
        const user = store.findUserByEmail(key)
        // Known places take turns by organisation, guesses by address: no one of either can crowd out the rest.
        const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH, knownPlace && user ? { priority: true, key: orgTurn(user.orgId) } : { key: addressTurn(address) })
        if (!user || !user.passwordHash || !ok) throw new ApiError('unauthorized', SIGN_IN_FAILED)
        throttle.succeeded(key, address)
        return signIn(ctx, user)
      },
    }),
    operation({
      operationId: 'signOut',
      method: 'POST',
      writes: true,
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
    }),
    operation({
      operationId: 'createInvite',
      method: 'POST',
      writes: true,
      route: '/auth/invite',
      credential: 'apiKey',
      minRole: 'admin',
      audit: (_ctx, answer) => ({ action: 'invite.create', target: answer.inviteId }),
      summary: 'Creates a one-time link that lets one more person join the organisation (7 days). Only a signed-in member, or an API key of the organisation\'s owner, may; an organisation has at most MAX_OPEN_INVITES_PER_ORG links pending (100 unless configured).',
      response: inviteAnswer,
      errors: ['quota_exceeded'],
      async handle({ auth }: RequestContext & { auth: ApiKeyAuth }) {
        // A leaked member's key must not mint a member nobody knows about; the dashboard has the person at the keyboard.
        if (auth.keyId !== 'dashboard' && ownerOf(store.listUsers(auth.orgId))?.id !== auth.userId) {
          throw new ApiError('unauthorized', { error: 'Only a signed-in member or the owner\'s API key creates invites.', hint: 'Create the invite in the dashboard (/app/), or with an API key of the organisation\'s owner.' })
        }
        const now = deps.now()
        const secret = mintSecret('iv')
        const outcome = await store.putInvite({ id: secret.id, digestHex: secret.digestHex, orgId: auth.orgId, invitedBy: auth.userId, createdAt: now, expiresAt: now + INVITE_TTL_MS }, deps.maxOpenInvites)
        if (outcome !== 'created') throw refusedCreation(outcome, 'pending invite links')
        return { inviteId: secret.id, inviteUrl: `${deps.directUrl}/app/#/invite/${secret.token}`, expiresAt: now + INVITE_TTL_MS }
      },
    }),
    operation({
      operationId: 'listInvites',
      method: 'POST',
      route: '/auth/invites.list',
      credential: 'apiKey',
      minRole: 'admin',
      summary: 'The organisation\'s invite links, newest first, with whether each still works. The links themselves are not kept.',
      response: inviteListAnswer,
      handle({ auth }: RequestContext & { auth: ApiKeyAuth }) {
        const now = deps.now()
        return {
          invites: store
            .listInvites(auth.orgId)
            .sort((a, b) => b.createdAt - a.createdAt)
            .map((invite): InviteRow => ({
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
    }),
    operation({
      operationId: 'revokeInvite',
      method: 'POST',
      writes: true,
      route: '/auth/invites.revoke',
      credential: 'apiKey',
      minRole: 'admin',
      audit: ({ body }) => ({ action: 'invite.revoke', target: (body as { inviteId: string }).inviteId }),
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
    }),
    operation({
      operationId: 'acceptInvite',
      method: 'POST',
      writes: true,
      route: '/auth/accept-invite',
      credential: 'none',
      audit: (_ctx, answer) => ({ action: 'invite.accept', target: answer.user.userId, actor: { orgId: answer.user.orgId, userId: answer.user.userId } }),
      summary: 'Joins the organisation of an invite link (once), and signs in.',
      body: acceptInviteBody,
      response: signedInAnswer,
      errors: ['invalid_request', 'overloaded'],
      async handle(ctx) {
        requireSameOriginJson(ctx.req, ownOrigins)
        const { token, email, password } = ctx.body
        const parsed = parseSecret(token)
        const invite = parsed?.kind === 'iv' ? store.getInvite(parsed.id) : undefined
        if (!parsed || !invite || !secretMatches(parsed.token, invite.digestHex)) {
          throw new ApiError('unauthorized', { error: 'The invite link is not valid.', hint: 'Ask for a new invite link.' })
        }
        // Before any hash: a used link costs nothing however often it is sent. The same words for a taken and a free email.
        if (!usable(invite, deps.now())) throw new ApiError('unauthorized', LINK_GONE)
        if (invite.forUserId) return claim(ctx, invite, email, password)
        // The email is looked up only in the transaction that consumes the invite: a pending link never tells a taken email from a free one.
        const user: UserRecord = { id: newId('usr'), orgId: invite.orgId, email: email.toLowerCase(), createdAt: deps.now(), passwordHash: await hashPassword(password, orgTurn(invite.orgId)), role: 'member' }
        const outcome = await store.joinByInvite(invite.id, user, deps.now())
        if (outcome === 'invite_gone') throw new ApiError('unauthorized', LINK_GONE)
        if (outcome === 'email_taken') throw new ApiError('invalid_request', { error: 'That email already has an account; this invite link is now used up.', hint: 'Sign in with that email, or ask for a new link for another one.' })
        return signIn(ctx, { ...user, invitedBy: invite.invitedBy })
      },
    }),
  ]
}
