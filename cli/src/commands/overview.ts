/** overview: a project's figures over a period against the period before, and the pages that drive its friction. */
import type { OverviewAnswer } from '../../../src/schemas/types.js'
import { parseDuration, parsePositiveInt } from '../args.js'
import type { Context } from '../context.js'

type FrictionKind = 'rage' | 'dead' | 'errorClick' | 'quickBack' | 'jsError'
type MetricId = 'sessions' | 'visitors' | 'pagesPerSession' | 'activeMs' | 'scrollPct' | FrictionKind

const LABELS: [id: MetricId, label: string, kind: 'count' | 'ms' | 'pct' | 'share' | 'ratio'][] = [
  ['sessions', 'Sessions', 'count'],
  ['visitors', 'Visitors', 'count'],
  ['pagesPerSession', 'Pages per session', 'ratio'],
  ['activeMs', 'Active time per session', 'ms'],
  ['scrollPct', 'Scroll depth', 'pct'],
  ['rage', 'Rage clicks', 'share'],
  ['dead', 'Dead clicks', 'share'],
  ['errorClick', 'Error clicks', 'share'],
  ['quickBack', 'Quick backs', 'share'],
  ['jsError', 'JavaScript errors', 'share'],
]

const FRICTION: [kind: FrictionKind, label: string][] = [
  ['rage', 'rage clicks'],
  ['dead', 'dead clicks'],
  ['errorClick', 'error clicks'],
  ['quickBack', 'quick backs'],
  ['jsError', 'JavaScript errors'],
]

function format(value: number | null, kind: (typeof LABELS)[number][2]): string {
  if (value === null) return '-'
  if (kind === 'count') return value.toLocaleString('en')
  if (kind === 'ms') return `${Math.round(value / 1000)} s`
  if (kind === 'pct') return `${value.toFixed(1)}%`
  if (kind === 'share') return `${(value * 100).toFixed(1)}% of sessions`
  return value.toFixed(2)
}

/** Counts and averages change by a percentage of themselves; shares by points. */
function formatChange(change: number | null, kind: (typeof LABELS)[number][2]): string {
  if (change === null) return ''
  const sign = change > 0 ? '+' : ''
  return kind === 'share' ? `${sign}${(change * 100).toFixed(1)} pts` : `${sign}${(change * 100).toFixed(0)}%`
}

const DAY_MS = 24 * 60 * 60_000

/** `30d` (days, which parseDuration does not take), else a duration like 12h. */
function periodOf(value: string): number {
  const days = /^(\d+)d$/.exec(value.trim())
  return days ? Number(days[1]) * DAY_MS : parseDuration('period', value)
}

export async function overview(ctx: Context): Promise<void> {
  const until = Date.now()
  const period = ctx.flags.period ? periodOf(ctx.flags.period as string) : 7 * DAY_MS
  const body: Record<string, unknown> = { projectId: ctx.args[0], since: Math.max(0, until - period), until }
  if (ctx.flags.bucket) body.bucket = ctx.flags.bucket
  if (ctx.flags.device) body.device = ctx.flags.device
  if (ctx.flags.page) body.page = ctx.flags.page
  if (ctx.flags.top) body.top = parsePositiveInt('top', ctx.flags.top as string)
  const answer = await ctx.api().call<OverviewAnswer>('/cli/overview.get', body)
  if (ctx.out.json) return ctx.out.data(answer)
  const day = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16)
  ctx.out.line(ctx.out.dim(`${day(answer.since)} to ${day(answer.until)} UTC, against the ${Math.round((answer.previous.until - answer.previous.since) / 3_600_000)} hours before`))
  ctx.out.table(
    ['FIGURE', 'NOW', 'BEFORE', 'CHANGE'],
    LABELS.map(([id, label, kind]) => {
      const m = answer.metrics[id]
      return [label, format(m.value, kind), format(m.previous, kind), formatChange(m.change, kind)]
    }),
  )
  for (const [kind, label] of FRICTION) {
    const rows = answer.topPages[kind]
    if (rows.length === 0) continue
    ctx.out.line()
    ctx.out.line(ctx.out.bold(`Pages with the most ${label}`))
    ctx.out.table(['PAGE', 'SESSIONS', `WITH ${label.toUpperCase()}`, 'SHARE'], rows.map((r) => [r.page, String(r.sessions), String(r.withFriction), `${(r.share * 100).toFixed(1)}%`]))
  }
}
