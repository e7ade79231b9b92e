/**
 * Sessions in progress (issue 45): sessions.list with `live`, asked again
 * every LIST_POLL_MS while a screen shows them, and the "Live" mark. Light on
 * purpose: the Sessions screen shows this list, and the player chunk loads
 * only when a session is followed (live-view.tsx).
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.js'
import { ErrorNote, useAsync, useInterval } from '../components.js'
import { identityOf, pathOf } from '../format.js'
import type { Project, SessionsListAnswer, SessionSummary } from '../model.js'
import { href } from '../route.js'

/** A session is live while its last chunk is under 60 s old (the server's rule): a list 10 s old is near enough. */
const LIST_POLL_MS = 10_000
/** The live list's length: the wall shows 9 of them, the Sessions screen a few more. */
const LIST_LIMIT = 20

export interface LiveList {
  sessions: SessionSummary[]
  keys: Set<string>
  /** The viewer's clock when the list was answered: `agoMs` counts from then. */
  answeredAt: number
  error?: unknown
}

/** The project's sessions in progress, asked again every 10 s while `enabled` and the tab is visible. */
export function useLiveSessions(projectId: string, enabled = true): LiveList {
  const list = useAsync(
    () => (enabled ? api.post<SessionsListAnswer>('/cli/sessions.list', { projectId, live: true, limit: LIST_LIMIT }).then((a) => ({ sessions: a.sessions, answeredAt: Date.now() })) : Promise.resolve({ sessions: [], answeredAt: Date.now() })),
    [projectId, enabled],
  )
  useInterval(list.reload, enabled ? LIST_POLL_MS : null)
  const sessions = list.data?.sessions ?? []
  return { sessions, keys: new Set(sessions.map((s) => s.sessionKey)), answeredAt: list.data?.answeredAt ?? Date.now(), error: list.error }
}

/** Re-renders every `ms`, for "sent 4 s ago". */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(Date.now())
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), ms)
    return () => clearInterval(id)
  }, [ms])
  return now
}

/** "sent 4 s ago" from a time on the viewer's clock. */
export function sentAgo(at: number | undefined, now: number): string {
  if (at === undefined) return ''
  const s = Math.max(0, Math.round((now - at) / 1000))
  return s < 90 ? `sent ${s} s ago` : `sent ${Math.round(s / 60)} min ago`
}

/** When a listed session last sent, on the viewer's clock (the server's `agoMs` counts from its answer). */
export function lastSentAt(s: SessionSummary, answeredAt: number): number | undefined {
  return s.live ? answeredAt - s.live.agoMs : undefined
}

export function LiveMark({ label = 'Live' }: { label?: string }) {
  return (
    <span class="live-mark" data-testid="live-mark">
      <span class="live-dot" aria-hidden="true" />
      {label}
    </span>
  )
}

/** Above the session list: the sessions in progress, first, each to be followed, and the live wall. */
export function LiveNow({ project, live }: { project: Project; live: LiveList }) {
  const now = useNow()
  if (live.error) return <ErrorNote error={live.error} />
  if (live.sessions.length === 0) return null
  return (
    <section class="card stack live-now" aria-labelledby="live-title" data-testid="live-now">
      <div class="row between">
        <h2 id="live-title">
          In progress <span class="muted small">({live.sessions.length})</span>
        </h2>
        <a href={href('p', project.id, 'live')} class="button secondary small">
          Live wall
        </a>
      </div>
      <ul class="plain live-list">
        {live.sessions.map((s) => {
          const who = identityOf(s)
          return (
            <li key={s.sessionKey} class="row">
              <LiveMark />
              <a href={href('p', project.id, 'live', s.sessionKey)} title="Watch this session as it is recorded">
                {who.primary}
              </a>
              {s.entryUrl && <span class="muted small clip">{pathOf(s.entryUrl)}</span>}
              <span class="muted small">{sentAgo(lastSentAt(s, live.answeredAt), now)}</span>
            </li>
          )
        })}
      </ul>
    </section>
  )
}
