/** sessions count [--watch], sessions list, export. */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { CountAnswer, SessionSummary, SessionsListAnswer } from '../../../src/schemas/types.js'
import { describeMissing } from '../../../src/recordings/missing-words.js'
import { parseDuration, parsePositiveInt } from '../args.js'
import { sleep, type Context } from '../context.js'
import { CliError } from '../errors.js'

/** --watch gives up after 5 minutes unless told otherwise: long enough to open the site and click around. */
const WATCH_TIMEOUT_MS = 5 * 60_000
/** Polls every 3 s: sessions.count is one LMDB read, and a person waiting notices little more. */
const WATCH_INTERVAL_MS = 3_000

export async function count(ctx: Context): Promise<void> {
  const projectId = ctx.args[0]
  const api = ctx.api()
  const read = async () => (await api.call<CountAnswer>('/cli/sessions.count', { projectId })).count
  if (!ctx.flags.watch) {
    const n = await read()
    if (ctx.out.json) return ctx.out.data({ projectId, count: n })
    ctx.out.line(String(n))
    return
  }
  const timeout = ctx.flags.timeout ? parseDuration('timeout', ctx.flags.timeout as string) : WATCH_TIMEOUT_MS
  const interval = ctx.flags.interval ? parseDuration('interval', ctx.flags.interval as string) : WATCH_INTERVAL_MS
  const deadline = Date.now() + timeout
  let n = await read()
  if (n === 0) ctx.out.note(`Waiting for the first session of ${projectId} (up to ${formatDuration(timeout)}): open the site and move the mouse…`)
  while (n === 0) {
    const left = deadline - Date.now()
    if (left <= 0) {
      throw new CliError('timeout', `No session recorded within ${formatDuration(timeout)}.`, {
        hint: 'Check that the snippet is in the page\'s <head> with this project\'s public key, that the page was interacted with (the tracker loads on the first interaction or when the browser is idle), and that the browser reaches the tracker URL.',
      })
    }
    await sleep(Math.min(interval, left))
    try {
      n = await read()
    } catch (error) {
      // A server restarting mid-watch is not an answer; anything it actually refuses is.
      if (!(error instanceof CliError) || error.code !== 'network_error') throw error
      ctx.out.note(`(${error.message} Retrying.)`)
    }
  }
  if (ctx.out.json) return ctx.out.data({ projectId, count: n })
  ctx.out.line(`${ctx.out.green('Recording:')} ${n} session${n === 1 ? '' : 's'} so far.`)
}

function formatDuration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`
  return `${Math.round(ms / 100) / 10} s`
}


const time = (v: unknown) => (typeof v === 'number' ? new Date(v).toISOString().replace('T', ' ').slice(0, 19) : String(v))

/** Columns of `sessions list`, each shown when the server sends its field. */
const SESSION_COLUMNS: [title: string, value: (s: SessionSummary) => unknown, format: (v: unknown) => string][] = [
  ['STARTED', (s) => s.startedAt, time],
  ['DURATION', (s) => s.durationMs, (v) => (typeof v === 'number' ? `${Math.round(v / 1000)} s` : String(v))],
  ['PAGES', (s) => s.pageCount, String],
  ['EVENTS', (s) => s.eventCount, String],
  ['ERRORS', (s) => s.errors, String],
  ['USER', (s) => s.identity?.userId, String],
  ['RECORDING', (s) => s.completeness && recordingState(s.completeness), String],
  // A search's first matching moment: where `svc export` or the replay would start looking.
  ['MATCH', (s) => s.match && `${time(s.match.ts)} ${s.match.kind} ${clip(s.match.label, 60)}`, String],
  ['ENTRY', (s) => s.entryUrl, String],
]

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/** "complete", or how much is missing: the sentences follow the table. */
function recordingState(c: SessionSummary['completeness']): string {
  if (c.complete) return c.excludedPages ? `complete, ${c.excludedPages} page(s) left out` : 'complete'
  return `${c.missingChunks} chunk${c.missingChunks === 1 ? '' : 's'} missing`
}

/** A value as one shell word: as it is when it is plain, else single-quoted. */
const shellWord = (value: string) => (/^[\w./:@%+=,{}-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`)

/** `sessions list` flags that filter, as sessions.list members; they are repeated in the command for the sessions that follow. */
const FILTERS: [flag: string, member: string][] = [
  ['page', 'page'],
  ['element', 'selector'],
  ['user', 'userId'],
  ['account', 'accountId'],
  ['visited', 'visited'],
  ['clicked', 'clicked'],
  ['error', 'error'],
  ['console', 'console'],
  ['request', 'request'],
  ['referrer', 'referrer'],
  ['device', 'device'],
]

export async function list(ctx: Context): Promise<void> {
  const body: Record<string, unknown> = { projectId: ctx.args[0] }
  const again: string[] = []
  for (const [flag, member] of FILTERS) {
    if (typeof ctx.flags[flag] !== 'string') continue
    body[member] = ctx.flags[flag]
    again.push(`--${flag} ${shellWord(ctx.flags[flag] as string)}`)
  }
  if (ctx.flags['min-duration']) {
    body.minDurationMs = parseDuration('min-duration', ctx.flags['min-duration'] as string)
    again.push(`--min-duration ${ctx.flags['min-duration']}`)
  }
  for (const [flag, member] of [['errors', 'hasErrors'], ['rage', 'hasRage'], ['console-errors', 'hasConsoleErrors'], ['failed-requests', 'hasFailedRequests']] as const) {
    if (!ctx.flags[flag]) continue
    body[member] = true
    again.push(`--${flag}`)
  }
  if (ctx.flags.limit) {
    body.limit = parsePositiveInt('limit', ctx.flags.limit as string)
    again.push(`--limit ${body.limit}`)
  }
  if (ctx.flags.cursor) body.cursor = ctx.flags.cursor
  const answer = await ctx.api().call<SessionsListAnswer>('/cli/sessions.list', body)
  if (ctx.out.json) return ctx.out.data(answer)
  if (answer.sessions.length === 0) {
    ctx.out.line(again.length ? 'No session matches.' : 'No sessions yet.')
    if (answer.nextCursor) ctx.out.note(`Older sessions remain to be searched: svc sessions list ${[ctx.args[0], ...again, '--cursor', answer.nextCursor].join(' ')}`)
    return
  }
  const present = (v: unknown) => v !== undefined && v !== null
  const columns = SESSION_COLUMNS.filter(([, value]) => answer.sessions.some((s) => present(value(s))))
  ctx.out.table(
    ['SESSION', ...columns.map(([title]) => title)],
    answer.sessions.map((s) => [s.sessionKey, ...columns.map(([, value, format]) => (present(value(s)) ? format(value(s)) : '-'))]),
  )
  for (const s of answer.sessions) {
    for (const part of s.completeness?.missing ?? []) ctx.out.line(`${s.sessionKey}: ${describeMissing(part, s.completeness.recordingStartedAt)}`)
  }
  if (answer.nextCursor) ctx.out.note(`More: svc sessions list ${[ctx.args[0], ...again, '--cursor', answer.nextCursor].join(' ')}`)
}

export async function exportEvents(ctx: Context): Promise<void> {
  const [projectId, sessionKey] = ctx.args
  const res = await ctx.api().stream('/cli/sessions.events', { projectId, sessionKey })
  const out = ctx.flags.out as string | undefined
  if (!out) {
    await pipeTo(res, (chunk) => ctx.out.write(chunk))
    return
  }
  // Written beside the target and renamed at the end: a broken download leaves no half file named like a good one.
  const temp = join(dirname(out), `.${basename(out)}.${process.pid}.partial`)
  const fd = openSync(temp, 'w', 0o600)
  let bytes = 0
  let last = 0
  try {
    await pipeTo(res, async (chunk) => {
      writeSync(fd, chunk)
      bytes += chunk.length
      for (let i = chunk.length - 1; i >= 0; i--) {
        if (chunk[i] > 0x20) {
          last = chunk[i]
          break
        }
      }
    })
    // The answer is one JSON array: one that does not end in `]` was cut short.
    if (last !== 0x5d) throw new CliError('download_incomplete', 'The session\'s events ended before the JSON array closed.', { hint: 'Retry the export.' })
    fsyncSync(fd)
    closeSync(fd)
    renameSync(temp, out)
  } catch (error) {
    try {
      closeSync(fd)
    } catch {
      // already closed
    }
    rmSync(temp, { force: true })
    throw error
  }
  if (ctx.out.json) return ctx.out.data({ projectId, sessionKey, out, bytes })
  ctx.out.note(`Wrote ${bytes} bytes of rrweb events to ${out}.`)
}

async function pipeTo(res: import('node:http').IncomingMessage, write: (chunk: Buffer) => Promise<void>): Promise<void> {
  let aborted = false
  res.on('aborted', () => (aborted = true))
  try {
    for await (const chunk of res) await write(chunk as Buffer)
  } catch (error) {
    if (error instanceof CliError) throw error
    aborted = true
  }
  if (aborted || !res.complete) throw new CliError('download_incomplete', 'The connection closed before the whole session arrived.', { hint: 'Retry the export.' })
}
