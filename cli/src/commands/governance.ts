/** members role, audit: the owner sets what each member may do, and reads who did what (issue 34). */
import type { AuditListAnswer, MemberRoleAnswer } from '../../../src/schemas/types.js'
import type { Context } from '../context.js'
import { CliError } from '../errors.js'

const ROLES = ['admin', 'viewer'] as const

export async function role(ctx: Context): Promise<void> {
  const [userId, wanted] = ctx.args
  if (!(ROLES as readonly string[]).includes(wanted)) {
    throw new CliError('usage', `The role is admin or viewer, not ${JSON.stringify(wanted)}.`, { hint: 'svc members role usr_123 viewer', exit: 2 })
  }
  const answer = await ctx.api().call<MemberRoleAnswer>('/auth/members.role', { userId, role: wanted })
  if (ctx.out.json) return ctx.out.data(answer)
  ctx.out.line(`${ctx.out.green('Role set')}: ${userId} is now ${answer.role}, from their next request on.`)
}

export async function audit(ctx: Context): Promise<void> {
  const limit = ctx.flags.limit === undefined ? undefined : Number(ctx.flags.limit)
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 500)) {
    throw new CliError('usage', '--limit is a whole number from 1 to 500.', { hint: 'svc audit --limit 50', exit: 2 })
  }
  const cursor = typeof ctx.flags.before === 'string' ? ctx.flags.before : undefined
  const answer = await ctx.api().call<AuditListAnswer>('/auth/audit.list', { ...(limit ? { limit } : {}), ...(cursor ? { cursor } : {}) })
  if (ctx.out.json) return ctx.out.data(answer)
  ctx.out.table(
    ['WHEN (UTC)', 'WHO', 'ACTION', 'TARGET', 'DETAIL', 'VIA', 'FROM'],
    answer.entries.map((e) => [new Date(e.at).toISOString().slice(0, 19).replace('T', ' '), e.actorEmail ?? ctx.out.dim('-'), e.action, e.target ?? '', e.detail ?? '', e.via, e.ip ?? '']),
  )
  if (answer.nextCursor) ctx.out.line(ctx.out.dim(`Older entries: svc audit --before ${answer.nextCursor}`))
}
