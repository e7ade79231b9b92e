/** The session list over the session index and the aggregates' per-session counts (derived-keys.ts). */
import {
  emptySessionSignals,
  type SessionListQuery,
  type SessionListSlice,
  type SessionPosition,
  type SessionSignals,
} from '../insights.js'
import type { SessionRecord } from '../records.js'
import { elementIdOf } from '../aggregates/ids.js'
import { deviceOfSession, findMoments, searchWork, sessionBytes, type SessionFinds } from '../aggregates/search.js'
import { ReadBudget } from '../read-budget.js'
import { liveGen, type SessionRecordOfSignals } from './derived-keys.js'
import type { Key, Tables } from './tables.js'
import { MAX_KEY_PART } from './keys.js'

export function sessionSignals(tables: Tables, projectId: string, sk: string, gen = liveGen(tables, projectId)): SessionSignals {
  return signalsAndFinds(tables, projectId, sk, gen).signals
}

/** The session's signal counts and its findings for search (aggregates/search.ts), one read. */
function signalsAndFinds(tables: Tables, projectId: string, sk: string, gen: number): { signals: SessionSignals; finds?: SessionFinds } {
  const record = tables.derived.get([projectId, gen, 'ss', sk]) as SessionRecordOfSignals | undefined
  if (!record) return { signals: emptySessionSignals() }
  const { from: _from, to: _to, f, ix: _ix, ...signals } = record
  return { signals, finds: f }
}

export function durationOf(session: SessionRecord): number {
  return Math.max(0, session.lastTs - Math.min(session.startedAt, session.firstTs))
}

/**
 * Newest first by [startedAt, sk], a key no write ever moves: a cursor on it
 * neither skips nor repeats a session while ingest goes on. Filters are
 * applied as the index is read, under the call's budget (read-budget.ts:
 * entries, the texts a search reads, bytes, time), so a selective filter
 * answers a short page with a cursor rather than scanning the whole project.
 */
export function sessionPage(tables: Tables, projectId: string, query: SessionListQuery): SessionListSlice {
  const gen = liveGen(tables, projectId)
  const elements = query.selector !== undefined ? (query.pages ?? []).map((page) => elementIdOf(page, query.selector!)) : undefined
  const clicked = elements && fewClickedBy(tables, projectId, gen, elements)
  if (clicked) return clickedSessionPage(tables, projectId, gen, query, clicked)
  const start = query.after ? [projectId, query.after.startedAt, query.after.sk] : [projectId, query.until ?? MAX_KEY_PART]
  const end = query.since !== undefined ? [projectId, query.since] : [projectId]
  const pages = query.pages ? new Set(query.pages) : undefined
  const sessions: SessionListSlice['sessions'] = []
  const budget = query.budget ?? new ReadBudget()
  let last: { startedAt: number; sk: string } | undefined
  for (const key of tables.sessionsByStart.getKeys({ start, end, reverse: true })) {
    const [, startedAt, sk] = key as [string, number, string]
    if (query.after && startedAt === query.after.startedAt && sk === query.after.sk) continue
    if (sessions.length === query.limit) return { sessions, next: last }
    if (!budget.entry()) return { sessions, next: last }
    last = { startedAt, sk }
    if (elements && !elements.some((id) => tables.derived.doesExist([projectId, gen, 'es', id, sk]))) continue
    const match = matching(tables, projectId, gen, sk, query, pages, budget)
    if (match) sessions.push(match)
  }
  return { sessions }
}

/** The session `sk` with its signal counts if it passes the query's filters (all but the time range and the element). */
function matching(tables: Tables, projectId: string, gen: number, sk: string, query: SessionListQuery, pages: Set<string> | undefined, budget?: ReadBudget): SessionListSlice['sessions'][number] | undefined {
  const session = tables.sessions.get([projectId, sk])
  if (!session) return undefined
  budget?.spend(0, sessionBytes(session))
  if (query.userId !== undefined && session.identity?.userId !== query.userId) return undefined
  if (query.accountId !== undefined && session.identity?.accountId !== query.accountId) return undefined
  if (query.minDurationMs !== undefined && durationOf(session) < query.minDurationMs) return undefined
  if (pages && !session.pages.some((p) => pages.has(p.page))) return undefined
  if (query.hasConsoleErrors !== undefined && (session.consoleErrors ?? 0) > 0 !== query.hasConsoleErrors) return undefined
  if (query.hasFailedRequests !== undefined && (session.failedRequests ?? 0) > 0 !== query.hasFailedRequests) return undefined
  const { signals, finds } = signalsAndFinds(tables, projectId, sk, gen)
  if (query.hasErrors !== undefined && signals.errors > 0 !== query.hasErrors) return undefined
  if (query.hasRage !== undefined && signals.rage > 0 !== query.hasRage) return undefined
  if (query.device !== undefined && deviceOfSession(session, finds) !== query.device) return undefined
  if (!query.find) return { session, signals }
  budget?.spend(searchWork(finds, query.find))
  const moments = findMoments(finds, query.find)
  return moments && { session, signals, moments }
}

/** Up to this many sessions that clicked an element are listed from the element's own index; more, and the time index is scanned with them as a filter. */
const CLICKED_DIRECT_MAX = 2_000

/** Keys of the sessions that clicked any of `elements`, if there are at most CLICKED_DIRECT_MAX of them. */
function fewClickedBy(tables: Tables, projectId: string, gen: number, elements: number[]): Set<string> | undefined {
  const sessions = new Set<string>()
  for (const id of elements) {
    const base = [projectId, gen, 'es', id]
    for (const key of tables.derived.getKeys({ start: base, end: [...base, MAX_KEY_PART] })) {
      sessions.add((key as Key[])[4] as string)
      if (sessions.size > CLICKED_DIRECT_MAX) return undefined
    }
  }
  return sessions
}

/** The list for an element clicked in few sessions: those sessions, in the list's order, without scanning the project. */
function clickedSessionPage(tables: Tables, projectId: string, gen: number, query: SessionListQuery, clicked: Set<string>): SessionListSlice {
  const pages = query.pages ? new Set(query.pages) : undefined
  const before = (a: SessionPosition, b: SessionPosition) => a.startedAt - b.startedAt || (a.sk < b.sk ? -1 : a.sk > b.sk ? 1 : 0)
  const found: SessionListSlice['sessions'] = []
  for (const sk of clicked) {
    const match = matching(tables, projectId, gen, sk, query, pages)
    if (!match) continue
    const { startedAt } = match.session
    if (query.since !== undefined && startedAt < query.since) continue
    if (query.until !== undefined && startedAt >= query.until) continue
    if (query.after && before({ startedAt, sk }, query.after) >= 0) continue
    found.push(match)
  }
  found.sort((a, b) => before(b.session, a.session))
  const sessions = found.slice(0, query.limit)
  const last = sessions.at(-1)?.session
  return found.length > query.limit && last ? { sessions, next: { startedAt: last.startedAt, sk: last.sk } } : { sessions }
}
