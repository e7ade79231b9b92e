/**
 * A replay opened from a search of the session list (sessions.list with
 * visited, clicked, error, console, request or referrer) marks every moment
 * the search matched. The link carries the search and the session's start;
 * the replay asks sessions.list again for that one start time, so the address
 * stays short however many moments matched.
 */
import { api } from '../api.js'
import type { SessionsListAnswer } from '../model.js'
import type { Moment } from './replay-load.js'

/** The members of a search by what happened, named alike in sessions.list, the session list's address and the replay's. */
export const SEARCH_MEMBERS = ['visited', 'clicked', 'error', 'console', 'request', 'referrer'] as const
export type SearchMember = (typeof SEARCH_MEMBERS)[number]
export type Search = Partial<Record<SearchMember, string>>

export interface ReplaySearch extends Search {
  /** The session's start (sessions.list's startedAt): the list is asked for that one millisecond. */
  startedAt: number
}

/** How a match's kind reads before its label. */
export const KIND_WORDS: Record<string, string> = { visit: 'visited', click: 'clicked', error: 'error', console: 'console', request: 'failed request', referrer: 'came from' }

/** The members of `values` that are set, as sessions.list members. */
export function searchOfValues(values: Search): Search {
  const search: Search = {}
  for (const member of SEARCH_MEMBERS) if (values[member]) search[member] = values[member]
  return search
}

/** The search of a replay's address, when it came from one. */
export function searchOf(query: URLSearchParams): ReplaySearch | undefined {
  const startedAt = Number(query.get('s'))
  const search = searchOfValues(Object.fromEntries(SEARCH_MEMBERS.map((name) => [name, query.get(name) ?? ''])))
  if (!(startedAt >= 0) || !query.has('s') || !Object.keys(search).length) return undefined
  return { startedAt, ...search }
}

/** The address members of a search, for a link to the replay of a session it found. */
export function searchParams(search: Search, startedAt: number): Record<string, string | number> {
  return { ...search, s: startedAt }
}

/** Every moment the search matched in the session, as timeline moments (placed by the caller). */
export async function matchMoments(projectId: string, sessionKey: string, search: ReplaySearch): Promise<Moment[]> {
  const { startedAt, ...find } = search
  const answer = await api.post<SessionsListAnswer>('/cli/sessions.list', { projectId, since: startedAt, until: startedAt + 1, limit: 200, ...find })
  const session = answer.sessions.find((s) => s.sessionKey === sessionKey)
  return (session?.matches ?? []).map((m) => ({ ts: m.ts, tag: 'match', kind: 'match', offset: 0, label: `${KIND_WORDS[m.kind] ?? m.kind}: ${m.label}` }))
}
