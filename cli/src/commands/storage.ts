/** projects storage and projects retention: what a project holds on disk, and how long it keeps recordings. */
import type { Context } from '../context.js'
import { CliError } from '../errors.js'
import type { ProjectAnswer, ProjectStorageAnswer } from '../../../src/schemas/types.js'

/** 1536 → "1.5 KB": powers of 1024, as STORAGE_BUDGET reads them. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit += 1
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`
}

export async function storage(ctx: Context): Promise<void> {
  const answer = await ctx.api().call<ProjectStorageAnswer>('/cli/projects.storage', { projectId: ctx.args[0] })
  if (ctx.out.json) return ctx.out.data(answer)
  ctx.out.pairs([
    ['Recordings', formatBytes(answer.chunkBytes)],
    ['Signals', formatBytes(answer.signalsBytes)],
    ['Aggregates', formatBytes(answer.aggregatesBytes)],
    ['Recorded', `${answer.recordedMinutes} minutes`],
    ['Per recorded minute', answer.bytesPerRecordedMinute === null ? ctx.out.dim('nothing recorded yet') : formatBytes(answer.bytesPerRecordedMinute)],
    ['Kept for', `${answer.retentionDays} days after a session's last activity`],
  ])
}

export async function retention(ctx: Context): Promise<void> {
  const [projectId, given] = ctx.args
  if (given === undefined) {
    const answer = await ctx.api().call<ProjectStorageAnswer>('/cli/projects.storage', { projectId })
    if (ctx.out.json) return ctx.out.data({ projectId, retentionDays: answer.retentionDays })
    return ctx.out.line(`${answer.retentionDays} days`)
  }
  const days = given === 'default' ? null : Number(given)
  if (days !== null && (!Number.isInteger(days) || days < 1)) {
    throw new CliError('usage', `The retention is a whole number of days, or default; got ${JSON.stringify(given)}.`, { hint: 'Run `svc help projects retention`.', exit: 2 })
  }
  const { project } = await ctx.api().call<ProjectAnswer>('/cli/projects.retention', { projectId, retentionDays: days })
  if (ctx.out.json) return ctx.out.data({ projectId, retentionDays: project.retentionDays ?? null })
  ctx.out.line(`${ctx.out.green('Saved')}: ${project.name} keeps recordings ${project.retentionDays ? `${project.retentionDays} days` : 'as long as the deployment (RETENTION_DAYS)'}; the next retention pass deletes older ones.`)
}
