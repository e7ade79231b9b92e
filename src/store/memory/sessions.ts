/** The session list over the in-memory store, in the LMDB store's order and with its cursor: newest first by [startedAt, sk]. */
import type { SessionListSlice, SessionListQuery, SessionPosition } from '../insights.js'
import { elementIdOf } from '../aggregates/ids.js'
import { deviceOfSession, findMoments, searchWork, sessionBytes } from '../aggregates/search.js'
import { ReadBudget } from '../read-budget.js'
import type { SessionRecord } from '../records.js'
import { byBytes } from './data.js'
import type { Derived } from './derived.js'

const durationOf = (session: SessionRecord): number => Math.max(0, session.lastTs - Math.min(session.startedAt, session.firstTs))
const before = (a: SessionPosition, b: SessionPosition) => a.startedAt - b.startedAt || byBytes(a.sk, b.sk)

export function sessionPage(all: SessionRecord[], derived: Derived, query: SessionListQuery): SessionListSlice {
  const pages = query.pages ? new Set(query.pages) : undefined
  const budget = query.budget ?? new ReadBudget()
  const clicked = query.selector !== undefined ? new Set((query.pages ?? []).flatMap((page) => [...(derived.clickedBy.get(elementIdOf(page, query.selector!)) ?? [])])) : undefined
  const matching = (session: SessionRecord) => {
    if (clicked && !clicked.has(session.sk)) return undefined
    budget.spend(0, sessionBytes(session))
    if (query.userId !== undefined && session.identity?.userId !== query.userId) return undefined
    if (query.accountId !== undefined && session.identity?.accountId !== query.accountId) return undefined
    if (query.minDurationMs !== undefined && durationOf(session) < query.minDurationMs) return undefined
    if (pages && !session.pages.some((p) => pages.has(p.page))) return undefined
    if (query.hasConsoleErrors !== undefined && (session.consoleErrors ?? 0) > 0 !== query.hasConsoleErrors) return undefined
    if (query.hasFailedRequests !== undefined && (session.failedRequests ?? 0) > 0 !== query.hasFailedRequests) return undefined
    const signals = derived.sessionSignals(session.sk)
    if (query.hasErrors !== undefined && signals.errors > 0 !== query.hasErrors) return undefined
    if (query.hasRage !== undefined && signals.rage > 0 !== query.hasRage) return undefined
    const finds = derived.finds.get(session.sk)?.finds()
    if (query.device !== undefined && deviceOfSession(session, finds) !== query.device) return undefined
    if (!query.find) return { session, signals }
    budget.spend(searchWork(finds, query.find))
    const moments = findMoments(finds, query.find)
    return moments && { session, signals, moments }
  }
  const ordered = all
    .filter((s) => (query.since === undefined || s.startedAt >= query.since) && (query.until === undefined || s.startedAt < query.until))
    .filter((s) => !query.after || before(s, query.after) < 0)
    .sort((a, b) => before(b, a))
  const sessions: SessionListSlice['sessions'] = []
  if (clicked) {
    // Few sessions clicked an element: the LMDB store lists them whole, without a scan budget.
    const found = ordered.map(matching).filter((m) => m !== undefined)
    const page = found.slice(0, query.limit)
    const last = page.at(-1)?.session
    return found.length > query.limit && last ? { sessions: page, next: { startedAt: last.startedAt, sk: last.sk } } : { sessions: page }
  }
  let last: SessionPosition | undefined
  for (const session of ordered) {
    if (sessions.length === query.limit) return { sessions, next: last }
    if (!budget.entry()) return { sessions, next: last }
    last = { startedAt: session.startedAt, sk: session.sk }
    const match = matching(session)
    if (match) sessions.push(match)
  }
  return { sessions }
}
