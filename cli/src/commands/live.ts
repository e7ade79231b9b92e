/** sessions live, sessions follow: sessions in progress, and one followed as it is recorded. */
import type { SessionsListAnswer } from '../../../src/schemas/types.js'
import { parsePositiveInt } from '../args.js'
import type { Context } from '../context.js'

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19)
const ago = (ms: number) => (ms < 1000 ? 'now' : `${Math.round(ms / 1000)} s ago`)

export async function live(ctx: Context): Promise<void> {
  const body: Record<string, unknown> = { projectId: ctx.args[0], live: true }
  if (ctx.flags.limit) body.limit = parsePositiveInt('limit', ctx.flags.limit as string)
  const answer = await ctx.api().call<SessionsListAnswer>('/cli/sessions.list', body)
  if (ctx.out.json) return ctx.out.data(answer)
  if (answer.sessions.length === 0) return ctx.out.line('No session in progress (none sent a chunk in the last 60 s).')
  ctx.out.table(
    ['SESSION', 'LAST SENT', 'STARTED', 'PAGES', 'ENTRY'],
    answer.sessions.map((s) => [s.sessionKey, s.live ? ago(s.live.agoMs) : '-', clock(s.startedAt), String(s.pageCount), s.entryUrl ?? '-']),
  )
  ctx.out.note(`Follow one: svc sessions follow ${ctx.args[0]} <session>`)
}

/** rrweb's event types and incremental sources, as a person reads them. */
const SOURCES = ['mutation', 'mouse move', 'mouse', 'scroll', 'resize', 'input', 'touch move', 'media', 'stylesheet rule', 'canvas', 'font', 'log', 'drag', 'style declaration', 'selection', 'adopted stylesheet']
const MOUSE = ['mouse up', 'mouse down', 'click', 'context menu', 'double click', 'focus', 'blur', 'touch start', 'touch move', 'touch end', 'touch cancel']

/** One line for one event; undefined for what is not worth a line of its own (mouse moves). */
export function describeEvent(event: any): string | undefined {
  const data = event?.data ?? {}
  switch (event?.type) {
    case 2:
      return 'snapshot of the page'
    case 4:
      return `page ${data.href ?? ''}`.trim()
    case 5:
      return typeof data.tag === 'string' && data.tag.startsWith('svc.') ? undefined : `custom ${data.tag}`
    case 3: {
      if (data.source === 1 || data.source === 6) return undefined
      if (data.source === 0) {
        const parts = [['added', data.adds?.length], ['removed', data.removes?.length], ['text', data.texts?.length], ['attributes', data.attributes?.length]].filter(([, n]) => n)
        return `mutation${parts.length ? ` (${parts.map(([name, n]) => `${n} ${name}`).join(', ')})` : ''}`
      }
      if (data.source === 2) return MOUSE[data.type] ?? 'mouse'
      if (data.source === 5) return 'input'
      return SOURCES[data.source] ?? `incremental ${data.source}`
    }
    default:
      return undefined
  }
}

export async function follow(ctx: Context): Promise<void> {
  const [projectId, sessionKey] = ctx.args
  const body: Record<string, unknown> = { projectId, sessionKey }
  if (ctx.flags['max-seconds']) body.maxSeconds = parsePositiveInt('max-seconds', ctx.flags['max-seconds'] as string)
  const res = await ctx.api().stream('/cli/sessions.follow', body)
  if (!ctx.out.json) ctx.out.note(`Following ${sessionKey}; Ctrl-C stops.`)
  let rest = ''
  for await (const piece of res) {
    const lines = (rest + (piece as Buffer).toString('utf8')).split('\n')
    rest = lines.pop()!
    for (const text of lines) {
      if (!text) continue
      if (ctx.out.json) {
        await ctx.out.write(Buffer.from(text + '\n'))
        continue
      }
      const event = JSON.parse(text)
      if (event.type === 5 && event.data?.tag === 'svc.live') ctx.out.note(`Live: ${event.data.payload?.lastChunkAt ? `last chunk at ${clock(event.data.payload.lastChunkAt)}` : 'no chunk yet'}.`)
      else if (event.type === 5 && event.data?.tag === 'svc.live_ended') ctx.out.note(`The follow ended: ${ENDINGS[event.data.payload?.reason as string] ?? event.data.payload?.reason}.`)
      else {
        const line = describeEvent(event)
        if (line) ctx.out.line(`${clock(event.timestamp)}  ${line}`)
      }
    }
  }
}

const ENDINGS: Record<string, string> = {
  left: 'the visitor left the site or closed the tab',
  idle: 'the visitor sent nothing for 5 minutes',
  limit: 'it reached --max-seconds (or the hour a follow lasts at most)',
  gone: 'the recording was deleted',
}
