/**
 * erase, erasures, projects rename and projects delete (issue 34): delete everything recorded about a session,
 * a visitor, a user or a time range's sessions, with a dry run that counts
 * what would go; the erasure runs on the server, and this command follows it
 * until it is done, printing its progress to stderr.
 */
import type { CreateErasureAnswer, CreateErasureBody, Erasure, ErasureAnswer, ErasureListAnswer, ProjectAnswer } from '../../../src/schemas/types.js'
import { sleep, type Context } from '../context.js'
import { CliError } from '../errors.js'
import { formatBytes } from './storage.js'

/** How often `svc erase` asks for the erasure's state while it follows it. */
const POLL_MS = 500

/** The one subject the flags name; exactly one of --session, --visitor, --user or --from with --until. */
function subjectOf(ctx: Context): CreateErasureBody['by'] {
  const text = (name: string) => (typeof ctx.flags[name] === 'string' ? (ctx.flags[name] as string) : undefined)
  const given = [['session', 'sessionKey'], ['visitor', 'visitorId'], ['user', 'userId']].filter(([flag]) => text(flag) !== undefined)
  const query = text('from') !== undefined || text('until') !== undefined
  if (given.length + (query ? 1 : 0) !== 1) {
    throw new CliError('usage', 'Name exactly one of --session, --visitor, --user, or --from with --until.', { hint: 'svc erase <projectId> --user u_42 --dry-run', exit: 2 })
  }
  if (!query) {
    const [flag, field] = given[0]
    return { [field]: text(flag)! } as CreateErasureBody['by']
  }
  const from = Date.parse(text('from') ?? '')
  const until = Date.parse(text('until') ?? '')
  if (Number.isNaN(from) || Number.isNaN(until)) {
    throw new CliError('usage', '--from and --until are dates or times, both given (2026-01-31 or 2026-01-31T12:00:00Z).', { hint: 'svc erase <projectId> --from 2026-01-01 --until 2026-02-01', exit: 2 })
  }
  const page = text('page')
  return { query: { from, until, ...(page ? { page } : {}) } }
}

const removedLine = (ctx: Context, e: Erasure) =>
  `${e.removed.sessions} sessions, ${e.removed.chunks} chunks (${formatBytes(e.removed.bytes)}), ${e.removed.signalBatches} signal batches, ${e.removed.aggregateEntries} aggregate entries`

export async function erase(ctx: Context): Promise<void> {
  const projectId = ctx.args[0]
  const by = subjectOf(ctx)
  const dryRun = ctx.flags['dry-run'] === true
  // The dry run first, always: its confirmation lets an admin erase more than the server's threshold of sessions.
  const counted = await ctx.api().call<CreateErasureAnswer>('/cli/erasures.create', { projectId, by, dryRun: true })
  const w = counted.wouldRemove!
  const what = `${w.sessions} sessions, ${w.chunks} chunks (${formatBytes(w.bytes)}) and ${w.signalBatches} signal batches`
  if (dryRun) {
    if (ctx.out.json) return ctx.out.data(counted)
    return ctx.out.line(`Would erase ${what}. Nothing was removed.`)
  }
  ctx.out.note(`Erasing ${what}.`)
  const answer = await ctx.api().call<CreateErasureAnswer>('/cli/erasures.create', { projectId, by, confirmation: counted.confirmation })
  let erasure = answer.erasure!
  ctx.out.note(`Erasure ${erasure.id} ${erasure.state}.`)
  if (ctx.flags['no-wait'] !== true) {
    while (erasure.state !== 'done') {
      await sleep(POLL_MS)
      erasure = (await ctx.api().call<ErasureAnswer>('/cli/erasures.get', { erasureId: erasure.id })).erasure
      ctx.out.note(`${erasure.state}, ${erasure.phase}: ${erasure.sessionsExamined} sessions examined, ${erasure.removed.sessions} erased`)
    }
  }
  if (ctx.out.json) return ctx.out.data({ erasure })
  if (erasure.state !== 'done') return ctx.out.line(`Erasure ${erasure.id} is ${erasure.state}: follow it with svc erasures ${projectId}.`)
  ctx.out.line(`${ctx.out.green('Erased')}: ${removedLine(ctx, erasure)}.`)
  ctx.out.line(erasure.scrubbed ? 'The data files no longer hold it.' : ctx.out.dim('The data files are compacted within a minute (COMPACTION_INTERVAL_MS); svc erasures shows when.'))
}

export async function erasures(ctx: Context): Promise<void> {
  const answer = await ctx.api().call<ErasureListAnswer>('/cli/erasures.list', { projectId: ctx.args[0] })
  if (ctx.out.json) return ctx.out.data(answer)
  ctx.out.table(
    ['ID', 'REQUESTED (UTC)', 'BY', 'STATE', 'EXAMINED', 'ERASED', 'BYTES', 'SCRUBBED'],
    answer.erasures.map((e) => [
      e.id,
      new Date(e.createdAt).toISOString().slice(0, 19).replace('T', ' '),
      e.subject,
      e.state === 'done' ? e.state : `${e.state} (${e.phase})`,
      String(e.sessionsExamined),
      String(e.removed.sessions),
      formatBytes(e.removed.bytes),
      e.scrubbed ? 'yes' : 'not yet',
    ]),
  )
}

export async function rename(ctx: Context): Promise<void> {
  const [projectId, name] = ctx.args
  const { project } = await ctx.api().call<ProjectAnswer>('/cli/projects.rename', { projectId, name })
  if (ctx.out.json) return ctx.out.data({ project })
  ctx.out.line(`${ctx.out.green('Renamed')}: ${project.id} is now ${project.name}.`)
}

/** Asks for --yes: a deletion takes every recording of the project with it, and cannot be undone. */
export async function remove(ctx: Context): Promise<void> {
  const projectId = ctx.args[0]
  if (ctx.flags.yes !== true) {
    throw new CliError('usage', `Deleting ${projectId} erases everything recorded in it, for good. Add --yes to go ahead.`, { hint: `svc projects delete ${projectId} --yes`, exit: 2 })
  }
  // --yes was the confirming; the dry run's confirmation lets an admin delete (the owner needs none).
  const { confirmation } = await ctx.api().call<{ confirmation?: string }>('/cli/projects.delete', { projectId, dryRun: true })
  const answer = await ctx.api().call<{ ok: boolean; erasure: Erasure }>('/cli/projects.delete', { projectId, confirmation })
  let erasure = answer.erasure
  ctx.out.note(`Project ${projectId} deleted; erasing what it recorded (${erasure.id}).`)
  while (erasure.state !== 'done' && ctx.flags['no-wait'] !== true) {
    await sleep(POLL_MS)
    erasure = (await ctx.api().call<ErasureAnswer>('/cli/erasures.get', { erasureId: erasure.id })).erasure
    ctx.out.note(`${erasure.state}, ${erasure.phase}: ${erasure.sessionsExamined} sessions examined, ${erasure.removed.sessions} erased`)
  }
  if (ctx.out.json) return ctx.out.data({ ok: true, erasure })
  ctx.out.line(erasure.state === 'done' ? `${ctx.out.green('Deleted')}: ${removedLine(ctx, erasure)}.` : `Deleted; erasure ${erasure.id} is ${erasure.state}.`)
}
