/**
 * A replay opened from a search of the session list (sessions.list with
 * visited, clicked or error) marks every moment the search matched. The link
 * carries the search and the session's start; the replay asks sessions.list
 * again for that one start time, so the address stays short however many
 * moments matched.
 */
import { api } from '../api.js'
import type { SessionsListAnswer } from '../model.js'
import type { Moment } from './replay-load.js'

export interface ReplaySearch {
  visited?: string
  clicked?: string
  error?: string
  /** The session's start (sessions.list's startedAt): the list is asked for that one millisecond. */
  startedAt: number
}

const KIND_WORDS: Record<string, string> = { visit: 'visited', click: 'clicked', error: 'error' }

/** The search of a replay's address, when it came from one. */
export function searchOf(query: URLSearchParams): ReplaySearch | undefined {
  const startedAt = Number(query.get('s'))
  const [visited, clicked, error] = ['visited', 'clicked', 'error'].map((name) => query.get(name) || undefined)
  if (!(startedAt >= 0) || !query.has('s') || (!visited && !clicked && !error)) return undefined
  return { startedAt, ...(visited ? { visited } : {}), ...(clicked ? { clicked } : {}), ...(error ? { error } : {}) }
}

/** The address members of a search, for a link to the replay of a session it found. */
export function searchParams(search: Omit<ReplaySearch, 'startedAt'>, startedAt: number): Record<string, string | number> {
  return { ...search, s: startedAt }
}

/** Every moment the search matched in the session, as timeline moments (placed by the caller). */
export async function matchMoments(projectId: string, sessionKey: string, search: ReplaySearch): Promise<Moment[]> {
  const { startedAt, ...find } = search
  const answer = await api.post<SessionsListAnswer>('/cli/sessions.list', { projectId, since: startedAt, until: startedAt + 1, limit: 200, ...find })
  const session = answer.sessions.find((s) => s.sessionKey === sessionKey)
  return (session?.matches ?? []).map((m) => ({ ts: m.ts, tag: 'match', kind: 'match', offset: 0, label: `${KIND_WORDS[m.kind] ?? m.kind}: ${m.label}` }))
}
