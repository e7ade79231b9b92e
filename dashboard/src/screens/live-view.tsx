/**
 * Watching sessions as they are recorded (issue 45): one session followed
 * (`#/p/<id>/live/<sessionKey>`), or the live wall (`#/p/<id>/live`), up to
 * WALL_SIZE sessions in progress playing at once, each opening on a click.
 * Each player follows its session over sessions.follow (player/live.ts,
 * loaded on demand with the rest of the player).
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { Empty, ErrorNote, Loading, useTitle } from '../components.js'
import type { Project, SessionSummary } from '../model.js'
import type { LiveState, LiveWatch } from '../player/live.js'
import { href, navigate } from '../route.js'
import { lastSentAt, LiveMark, sentAgo, useLiveSessions, useNow } from './live.js'
import { identityOf } from '../format.js'

/** An organisation follows at most 20 sessions at once (src/control/operations/live.ts): a wall takes 9, leaving room for colleagues. */
const WALL_SIZE = 9
const TILE = { width: 360, height: 225 }

const ENDED: Record<string, string> = {
  left: 'the visitor left the site or closed the tab',
  idle: 'the visitor has been idle for 5 minutes',
  limit: 'a follow lasts at most an hour; follow it again to go on',
  gone: 'its recording was deleted',
}

export function Live({ project, sessionKey }: { project: Project; sessionKey?: string }) {
  return sessionKey ? <FollowView project={project} sessionKey={sessionKey} /> : <LiveWall project={project} />
}

/** Follows `sessionKey` in `target` while mounted; `attempt` changing follows it again (after a dropped connection). */
function useWatch(project: Project, sessionKey: string, size: () => { width: number; height: number }, attempt = 0) {
  const target = useRef<HTMLDivElement>(null)
  const watch = useRef<LiveWatch | undefined>(undefined)
  const [state, setState] = useState<LiveState>({ phase: 'connecting' })
  useEffect(() => {
    let cancelled = false
    setState({ phase: 'connecting' })
    import('../player/live.js')
      .then(({ watchSession }) => {
        if (cancelled || !target.current) return
        watch.current = watchSession(target.current, { projectId: project.id, sessionKey, domain: project.domain ?? null, size: size(), onState: setState })
      })
      .catch((error) => setState({ phase: 'failed', error }))
    const onResize = () => watch.current?.resize(size().width, size().height)
    window.addEventListener('resize', onResize)
    return () => {
      cancelled = true
      window.removeEventListener('resize', onResize)
      watch.current?.stop()
      watch.current = undefined
      if (target.current) target.current.textContent = ''
    }
  }, [project.id, sessionKey, attempt])
  return { target, watch, state }
}

function Status({ state, now }: { state: LiveState; now: number }) {
  const sent = sentAgo(state.lastDataAt, now)
  if (state.phase === 'ended') return <span class="badge ended" data-testid="live-status">Visit ended ({state.reason})</span>
  if (state.phase === 'lost') return <span class="badge wait" data-testid="live-status">Connection lost</span>
  if (state.phase === 'failed') return null
  if (state.phase === 'connecting') return <span class="muted small" data-testid="live-status">Connecting…</span>
  return (
    <span class="row" data-testid="live-status">
      {state.phase === 'paused' ? <span class="badge wait">Paused</span> : <LiveMark />}
      {sent && <span class="muted small">{sent}</span>}
    </span>
  )
}

function FollowView({ project, sessionKey }: { project: Project; sessionKey: string }) {
  useTitle(`Live · ${project.name}`)
  const [attempt, setAttempt] = useState(0)
  const box = useRef<HTMLDivElement>(null)
  const size = () => {
    // The box's content width: its padding is not the player's.
    const width = Math.max(280, (box.current?.clientWidth ?? 900) - 16)
    return { width, height: Math.round(Math.max(200, Math.min(window.innerHeight * 0.65, width * 0.625))) }
  }
  const { target, watch, state } = useWatch(project, sessionKey, size, attempt)
  const now = useNow()
  const replay = href('p', project.id, 'replay', sessionKey, { live: 1 })
  return (
    <section class="stack live-follow">
      <div class="row between wrap">
        <a href={href('p', project.id, 'sessions')}>← Sessions</a>
        <Status state={state} now={now} />
        <div class="row">
          {state.phase === 'live' && (
            <button type="button" class="secondary small" onClick={() => watch.current?.pause()}>
              Pause
            </button>
          )}
          {state.phase === 'paused' && (
            <button type="button" class="small" onClick={() => watch.current?.jumpToLive()}>
              Jump to live
            </button>
          )}
          {state.phase === 'lost' && (
            <button type="button" class="small" onClick={() => setAttempt(attempt + 1)}>
              Follow again
            </button>
          )}
          <a href={replay} class="button secondary small" title="The recording so far, with a timeline to go back in">
            Replay so far
          </a>
        </div>
      </div>
      <ErrorNote error={state.error} />
      {state.phase === 'ended' && (
        <p class="note" data-testid="live-ended">
          The visit ended: {ENDED[state.reason ?? ''] ?? state.reason}. <a href={href('p', project.id, 'replay', sessionKey)}>Replay the whole session</a>.
        </p>
      )}
      <div class="player-box" ref={box} data-testid="live-player" aria-label="The session as it is recorded">
        {state.phase === 'connecting' && <Loading what="Waiting for the page's last checkpoint" />}
        <div ref={target} class="player-target" />
      </div>
      <p class="muted small">
        Plays a second or two behind the visitor. Paused, the page stops here while the visit goes on; Jump to live shows what happened meanwhile and follows again.
        Following is in the audit log.
      </p>
    </section>
  )
}

function LiveWall({ project }: { project: Project }) {
  useTitle(`Live wall · ${project.name}`)
  const live = useLiveSessions(project.id)
  const shown = live.sessions.slice(0, WALL_SIZE)
  return (
    <section class="stack">
      <div class="row between wrap">
        <a href={href('p', project.id, 'sessions')}>← Sessions</a>
        <p class="muted small">
          {shown.length} of {live.sessions.length} sessions in progress{live.sessions.length > WALL_SIZE ? `; the wall shows the ${WALL_SIZE} most recent` : ''}. Click one to follow it alone.
        </p>
      </div>
      <ErrorNote error={live.error} />
      {shown.length === 0 && !live.error && (
        <Empty title="Nobody on the site right now">
          <p>A session shows here while its page is open and sending; this list is asked again every 10 seconds.</p>
        </Empty>
      )}
      <div class="live-wall" data-testid="live-wall">
        {shown.map((s) => (
          <LiveTile key={s.sessionKey} project={project} session={s} answeredAt={live.answeredAt} />
        ))}
      </div>
    </section>
  )
}

function LiveTile({ project, session: s, answeredAt }: { project: Project; session: SessionSummary; answeredAt: number }) {
  const { target, state } = useWatch(project, s.sessionKey, () => TILE)
  const now = useNow()
  const open = href('p', project.id, 'live', s.sessionKey)
  const who = identityOf(s)
  return (
    <article class="live-tile" data-testid="live-tile">
      <div ref={target} class="player-target" onClick={() => navigate(open)} />
      {state.phase !== 'live' && (
        <div class="live-tile-note">{state.phase === 'failed' ? <ErrorNote error={state.error} /> : <Status state={state} now={now} />}</div>
      )}
      <div class="row between">
        <span class="row">
          <LiveMark />
          <a href={open}>{who.primary}</a>
        </span>
        <span class="muted small">{state.phase === 'live' ? sentAgo(state.lastDataAt ?? lastSentAt(s, answeredAt), now) : ''}</span>
      </div>
    </article>
  )
}
