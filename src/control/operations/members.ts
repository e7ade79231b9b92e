/**
 * Members of an organisation (extension): who they are, removing one, and
 * each member's own password and sessions. Removal is the owner's alone
 * (minRole, checked by the router) and
 * undoes everything the member could still use (store `removeUser`): their
 * sessions end at once, their API keys are revoked rather than handed over
 * (a key someone removed made is not one to trust), their unused invites and
 * the setup tokens they minted die. A credential being created while the
 * removal commits is refused by the store (AccountStore), so none outlives it.
 */
import { roleOf } from '../../accounts/roles.js'
import { ApiError } from '../../errors.js'
import { memberListAnswer, memberRemoveAnswer, memberRemoveBody, passwordChangeBody, sessionsEndedAnswer } from '../../schemas/members.js'
import type { MemberRow } from '../../schemas/types.js'
import type { Store, UserRecord } from '../../store/store.js'
import type { ApiKeyAuth } from '../auth.js'
import { sessionCookie } from '../dashboard-session.js'
import { clientAddress } from '../front-link.js'
import type { LoginThrottle } from '../login-throttle.js'
import { hashPassword, orgTurn, verifyPassword } from '../passwords.js'
import { operation, type Operation, type RequestContext } from '../router.js'

export interface MemberDeps {
  store: Store
  publicUrl: string
  now: () => number
  throttle: LoginThrottle
}

type Ctx = RequestContext & { auth: ApiKeyAuth }

export function memberOperations(deps: MemberDeps): Operation<any>[] {
  const { store, throttle } = deps

  function caller(auth: ApiKeyAuth): UserRecord {
    const user = store.getUser(auth.userId)
    if (!user) throw new ApiError('unauthorized', { error: 'The member this credential belongs to was removed.', hint: 'Ask the organisation\'s owner for a new invite.' })
    return user
  }

  return [
    operation({
      operationId: 'listMembers',
      method: 'POST',
      route: '/auth/members.list',
      credential: 'apiKey',
      minRole: 'viewer',
      summary: 'The organisation\'s members: who, when they joined, their last sign-in, and whose invite they joined by.',
      response: memberListAnswer,
      handle({ auth }: Ctx) {
        const users = store.listUsers(auth.orgId)
        return {
          members: users.map((user): MemberRow => ({
            userId: user.id,
            email: user.email,
            role: roleOf(store, user),
            joinedAt: user.createdAt,
            lastSignInAt: user.lastSignInAt ?? null,
            invitedBy: (user.invitedBy && store.getUser(user.invitedBy)?.email) || null,
            you: user.id === auth.userId,
          })),
        }
      },
    }),
    operation({
      operationId: 'removeMember',
      method: 'POST',
      writes: true,
      route: '/auth/members.remove',
      credential: 'apiKey',
      minRole: 'owner',
      audit: ({ body }) => ({ action: 'member.remove', target: (body as { userId: string }).userId }),
      summary: 'Owner only: removes a member. Their dashboard sessions end at once, the API keys they hold are revoked (not handed over), and their unused invite links and the setup tokens they minted are revoked.',
      body: memberRemoveBody,
      response: memberRemoveAnswer,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body }: Ctx) {
        const { userId } = body as { userId: string }
        const target = store.getUser(userId)
        if (!target || target.orgId !== auth.orgId) throw new ApiError('not_found', { error: 'No such member.', hint: 'List members with POST /auth/members.list.' })
        if (target.id === auth.userId) throw new ApiError('invalid_request', { error: 'The owner cannot be removed.', hint: 'Remove the other members instead.' })
        const removed = await store.removeUser(userId, deps.now())
        if (!removed) throw new ApiError('not_found', { error: 'No such member.', hint: 'List members with POST /auth/members.list.' })
        return { ok: true, sessionsEnded: removed.sessionsEnded, keysRevoked: removed.keysRevoked, invitesRevoked: removed.invitesRevoked, setupTokensRevoked: removed.setupTokensRevoked }
      },
    }),
    operation({
      operationId: 'changePassword',
      method: 'POST',
      writes: true,
      route: '/auth/password.change',
      credential: 'apiKey',
      minRole: 'viewer',
      audit: () => ({ action: 'auth.password_change' }),
      summary: 'Changes your own dashboard password, given the current one, and ends your other dashboard sessions (the calling one stays signed in). Throttled like sign-in.',
      body: passwordChangeBody,
      response: sessionsEndedAnswer,
      errors: ['invalid_request', 'overloaded'],
      async handle({ auth, body, req }: Ctx) {
        const { currentPassword, newPassword } = body as { currentPassword: string; newPassword: string }
        const user = caller(auth)
        if (!user.passwordHash) throw new ApiError('invalid_request', { error: 'This account has no dashboard password to change.', hint: 'Accounts made with `npm run admin -- create-key` sign in with API keys only.' })
        const address = clientAddress(req)
        throttle.attempt(user.email, address)
        // A signed-in caller is no anonymous guesser: its check goes in the priority line (hash-queue.ts).
        if (!(await verifyPassword(currentPassword, user.passwordHash, { priority: true, key: orgTurn(user.orgId) }))) throw new ApiError('unauthorized', { error: 'The current password is wrong.', hint: 'Check it; after 5 wrong attempts from one address, that address waits 15 minutes.' })
        throttle.succeeded(user.email, address)
        await store.updateUser(user.id, { passwordHash: await hashPassword(newPassword, orgTurn(user.orgId)) })
        return { ok: true, sessionsEnded: await store.endDashboardSessions(user.id, auth.sessionId) }
      },
    }),
    operation({
      operationId: 'signOutEverywhere',
      method: 'POST',
      writes: true,
      route: '/auth/sessions.end',
      credential: 'apiKey',
      minRole: 'viewer',
      audit: () => ({ action: 'auth.sign_out_everywhere' }),
      summary: 'Ends every dashboard session of the caller, the calling one included (a lost laptop, a shared computer).',
      response: sessionsEndedAnswer,
      async handle({ auth, req, responseHeaders }: Ctx) {
        const user = caller(auth)
        const sessionsEnded = await store.endDashboardSessions(user.id)
        if (auth.sessionId) responseHeaders['Set-Cookie'] = [sessionCookie(req, deps.publicUrl, '', 0)]
        return { ok: true, sessionsEnded }
      },
    }),
  ]
}
