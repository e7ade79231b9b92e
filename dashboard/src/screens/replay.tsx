/**
 * Replay of one session: the recording (POST /cli/sessions.events) played by
 * rrweb-player, loaded on demand, with the session's friction (rage, dead
 * and error clicks, JS errors, quick backs) and its page changes as moments
 * on the timeline, with console errors and failed requests when the project
 * captures them (and their panels, replay-panels.tsx). Each moment is a button that jumps there; `?t=<epoch ms>`
 * opens the replay at a moment (the friction feed links that way); opened from
 * a search of the session list, every moment it matched is marked too
 * (replay-search.ts). A long
 * recording streams part by part (replay-load.ts, player/stream.ts) under
 * controls of its own that span the whole session.
 */
import type { JSX } from 'preact'
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { ApiFailure } from '../api.js'
import { Empty, ErrorNote, Loading, useAsync, useTitle } from '../components.js'
import { formatClock, formatDate, formatDuration } from '../format.js'
import type { Project } from '../model.js'
import { replayOrigins } from '../player/confine.js'
import type { PlayerHandle } from '../player/player.js'
import type { StreamHandle } from '../player/stream.js'
import { href } from '../route.js'
import { FRICTION_LABELS } from './friction.js'
import { RecordingGaps } from './completeness.js'
import { EraseSession } from './privacy.js'
import { CapturePanels, captureMoments } from './replay-panels.js'
import { loadPart, loadRecording, placeMoments, type Moment, type Recording } from './replay-load.js'
import { matchMoments, type ReplaySearch } from './replay-search.js'
import { StreamControls } from './stream-controls.js'

/** Opening at a moment starts a little before it, so the lead-up is seen too. */
const LEAD_IN_MS = 3000
const SEEK_STEP_MS = 5000

const MOMENT_LABELS: Record<string, string> = { page: 'Page change', consoleError: 'Console error', requestFailed: 'Failed request', match: 'Search match' }

/** `live`: opened from a live follow ("Replay so far"): the way back to the visitor's edge is offered. */
export function Replay({ project, sessionKey, at, search, live }: { project: Project; sessionKey: string; at?: number; search?: ReplaySearch; live?: boolean }) {
  useTitle(`Replay · ${project.name}`)
  const recording = useAsync(() => loadRecording(project.id, sessionKey), [project.id, sessionKey])
  // A search's matches are marks beside the recording's moments: the replay does not wait for them, nor fail without them.
  const matches = useAsync(() => (search ? matchMoments(project.id, sessionKey, search).catch(() => []) : Promise.resolve([])), [project.id, sessionKey, JSON.stringify(search)])
  const sessions = <a href={href('p', project.id, 'sessions')}>← Sessions</a>
  const back = live ? (
    <span>
      {sessions}{' '}
      <a href={href('p', project.id, 'live', sessionKey)} class="button small" data-testid="jump-to-live">
        Jump to live
      </a>
    </span>
  ) : (
    sessions
  )
  if (recording.error) {
    const purged = recording.error instanceof ApiFailure && recording.error.code === 'not_found'
    return (
      <section class="stack">
        {back}
        {purged ? (
          <Empty title="No recording for this session">
            <p>Retention may have removed it (its signals stay in the heatmaps and the friction feed), or the link is wrong.</p>
          </Empty>
        ) : (
          <ErrorNote error={recording.error} />
        )}
      </section>
    )
  }
  if (!recording.data) return <Loading what="Loading the recording" />
  const r = recording.data
  if (r.events.length < 2) {
    return (
      <section class="stack">
        {back}
        <Empty title="Nothing to replay yet">
          <p>This session has not sent enough of its recording. Trackers flush every 10 seconds; try again shortly.</p>
        </Empty>
      </section>
    )
  }
  return <ReplayView project={project} sessionKey={sessionKey} recording={r} at={at} back={back} matches={matches.data ?? []} />
}

function ReplayView({ project, sessionKey, recording: r, at, back, matches }: { project: Project; sessionKey: string; recording: Recording; at?: number; back: JSX.Element; matches: Moment[] }) {
  const box = useRef<HTMLDivElement>(null)
  const target = useRef<HTMLDivElement>(null)
  const [player, setPlayer] = useState<PlayerHandle | StreamHandle>()
  const [loadError, setLoadError] = useState<unknown>()
  const [now, setNow] = useState(0)
  // Streamed: the events of the part playing, for the console and network panels.
  const [partEvents, setPartEvents] = useState(r.events)
  const duration = r.end - r.start
  const streamed = r.outline !== undefined

  useEffect(() => {
    let handle: PlayerHandle | StreamHandle | undefined
    let cancelled = false
    const size = () => {
      // The box's content width: its padding is not the player's.
      const width = Math.max(280, target.current?.clientWidth ?? 800)
      const height = Math.max(200, Math.min(window.innerHeight * 0.65, (width * r.viewport.height) / r.viewport.width))
      return { width, height: Math.round(height) }
    }
    const mount = r.outline
      ? import('../player/stream.js').then(({ mountStream }) => {
          if (cancelled || !target.current) return undefined
          const stream = mountStream(target.current, r.outline!, (from, until) => loadPart(project.id, sessionKey, from, until), r.moments, size(), project.domain ?? null, r.events)
          stream.onPart(setPartEvents)
          return stream
        })
      : import('../player/player.js').then(({ mountPlayer }) => (cancelled || !target.current ? undefined : mountPlayer(target.current, r.events, r.moments, size(), replayOrigins(project.domain, r.events))))
    mount
      .then((mounted) => {
        if (!mounted) return
        handle = mounted
        handle.onTime(setNow)
        if (at) {
          const offset = Math.min(duration, Math.max(0, at - r.start))
          handle.goto(offset - LEAD_IN_MS, true)
        }
        setPlayer(handle)
      })
      .catch(setLoadError)
    const onResize = () => handle?.resize(size().width, size().height)
    window.addEventListener('resize', onResize)
    return () => {
      cancelled = true
      window.removeEventListener('resize', onResize)
      handle?.destroy()
      if (target.current) target.current.textContent = ''
    }
  }, [r, at])

  // Streamed: the part in memory places its console errors and failed requests exactly; the chunk list marks the others.
  const moments = useMemo(() => {
    if (!streamed) return matches.length ? placeMoments([...r.moments, ...matches], r.start, r.end) : r.moments
    const from = partEvents[0]?.timestamp ?? 0
    const until = partEvents[partEvents.length - 1]?.timestamp ?? 0
    const elsewhere = (r.stretches ?? []).filter((m) => m.ts < from || m.ts > until)
    return placeMoments([...r.moments, ...matches, ...elsewhere, ...captureMoments(partEvents, r.start).map((m) => ({ ...m, offset: 0 }))], r.start, r.end)
  }, [r, partEvents, matches])

  const jump = (offset: number) => {
    player?.goto(offset - 1000 < 0 ? 0 : offset - 1000, true)
    box.current?.focus({ preventScroll: true })
  }
  const onKey = (e: KeyboardEvent) => {
    if (!player || e.target !== box.current) return
    if (e.key === ' ' || e.key === 'k') player.toggle()
    else if (e.key === 'ArrowLeft') player.goto(player.currentOffset() - SEEK_STEP_MS, true)
    else if (e.key === 'ArrowRight') player.goto(player.currentOffset() + SEEK_STEP_MS, true)
    else return
    e.preventDefault()
  }
  const pages = r.pages

  return (
    <section class="stack replay">
      <div class="row between wrap">
        {back}
        <p class="muted small">
          {formatDate(r.start)} · {formatDuration(duration)} · {pages.size} {pages.size === 1 ? 'page' : 'pages'} · <code class="clip">{sessionKey}</code>
        </p>
        <EraseSession projectId={project.id} sessionKey={sessionKey} />
      </div>
      <RecordingGaps projectId={project.id} sessionKey={sessionKey} />
      <div class="replay-layout">
        <div
          class="player-box"
          ref={box}
          tabIndex={0}
          onKeyDown={onKey}
          aria-label="Session replay. Space plays or pauses; the arrow keys seek 5 seconds."
          data-testid="player"
        >
          {!player && !loadError && <Loading what="Loading the player" />}
          <ErrorNote error={loadError} />
          <div ref={target} class="player-target" />
          {streamed && <StreamControls player={player as StreamHandle | undefined} duration={duration} now={now} />}
          {moments.length > 0 && (
            <div class="moments-strip" role="group" aria-label="Moments on the timeline">
              {moments.map((m, i) => (
                <button
                  key={i}
                  type="button"
                  class={`tick tick-${m.kind}`}
                  style={{ left: `${duration ? (100 * m.offset) / duration : 0}%` }}
                  title={`${formatClock(m.offset)} ${m.label}`}
                  aria-label={`Jump to ${formatClock(m.offset)}: ${m.label}`}
                  onClick={() => jump(m.offset)}
                />
              ))}
            </div>
          )}
        </div>
        <aside class="moments" aria-labelledby="moments-title">
          <h2 id="moments-title">Moments</h2>
          {moments.length === 0 ? (
            <p class="muted small">No friction in this session: no rage, dead or error clicks, no JavaScript errors.</p>
          ) : (
            <ol data-testid="moments">
              {moments.map((m, i) => (
                <li key={i} class={Math.abs(now - m.offset) < 1500 ? 'current' : undefined}>
                  <button type="button" class="moment" onClick={() => jump(m.offset)}>
                    <span class="time">{formatClock(m.offset)}</span>
                    <span class={`dot tick-${m.kind}`} aria-hidden="true" />
                    <span>
                      <span class="kind">{MOMENT_LABELS[m.kind] ?? FRICTION_LABELS[m.kind as keyof typeof FRICTION_LABELS] ?? m.kind}</span>
                      <span class="muted small"> {m.label}</span>
                    </span>
                  </button>
                </li>
              ))}
            </ol>
          )}
        </aside>
      </div>
      <CapturePanels events={partEvents} start={r.start} now={now} jump={jump} />
    </section>
  )
}
