/** members list, members remove, password: who belongs to the organisation, and your own dashboard password. */
import type { MemberListAnswer, MemberRemoveAnswer, SessionsEndedAnswer } from '../../../src/schemas/types.js'
import type { Context } from '../context.js'
import { CliError } from '../errors.js'
import { readSecrets } from '../prompt.js'

const day = (ms: number | null) => (ms ? new Date(ms).toISOString().slice(0, 10) : '-')

export async function list(ctx: Context): Promise<void> {
  const { members } = await ctx.api().call<MemberListAnswer>('/auth/members.list')
  if (ctx.out.json) return ctx.out.data({ members })
  ctx.out.table(
    ['ID', 'EMAIL', 'ROLE', 'JOINED', 'LAST SIGN-IN', 'INVITED BY'],
    members.map((m) => [m.userId, m.you ? `${m.email} ${ctx.out.dim('(you)')}` : m.email, m.role, day(m.joinedAt), day(m.lastSignInAt), m.invitedBy ?? ctx.out.dim('-')]),
  )
}

export async function remove(ctx: Context): Promise<void> {
  const userId = ctx.args[0]
  const answer = await ctx.api().call<MemberRemoveAnswer>('/auth/members.remove', { userId })
  if (ctx.out.json) return ctx.out.data(answer)
  ctx.out.line(`${ctx.out.green('Removed')} ${userId}: ${answer.sessionsEnded} session(s) ended, ${answer.keysRevoked} API key(s), ${answer.invitesRevoked} invite link(s) and ${answer.setupTokensRevoked} setup token(s) revoked.`)
}

export async function password(ctx: Context): Promise<void> {
  const [currentPassword, newPassword] = await readSecrets(ctx.stdin, ctx.out, ['Current password: ', 'New password (at least 10 characters): '])
  if (!currentPassword || !newPassword) throw new CliError('usage', 'Both the current and the new password are needed.', { hint: 'Type them at the prompts, or pipe them as two lines.', exit: 2 })
  const answer = await ctx.api().call<SessionsEndedAnswer>('/auth/password.change', { currentPassword, newPassword })
  if (ctx.out.json) return ctx.out.data(answer)
  ctx.out.line(`${ctx.out.green('Password changed')}; ${answer.sessionsEnded} dashboard session(s) ended.`)
}
