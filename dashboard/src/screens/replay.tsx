/**
 * Replay of one session: the recording (POST /cli/sessions.events) played by
 * rrweb-player, loaded on demand, with the session's friction (rage, dead
 * and error clicks, JS errors, quick backs) and its page changes as moments
 * on the timeline, with console errors and failed requests when the project
 * captures them (and their panels, replay-panels.tsx). Each moment is a button that jumps there; `?t=<epoch ms>`
 * opens the replay at a moment (the friction feed links that way).
 */
import type { JSX } from 'preact'
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { api, ApiFailure } from '../api.js'
import { Empty, ErrorNote, Loading, useAsync, useTitle } from '../components.js'
import { formatClock, formatDate, formatDuration } from '../format.js'
import type { FrictionItem, FrictionListAnswer, Project } from '../model.js'
import type { Marker, PlayerHandle } from '../player/player.js'
import { href } from '../route.js'
import { describeFriction, FRICTION_LABELS } from './friction.js'
import { CapturePanels, captureMoments } from './replay-panels.js'
import { pathOf } from './sessions.js'

/** Opening at a moment starts a little before it, so the lead-up is seen too. */
const LEAD_IN_MS = 3000
const SEEK_STEP_MS = 5000
/** rrweb event types (rrweb `EventType`): 2 full snapshot, 4 meta (a page load: href, width, height). */
const META = 4

const MOMENT_LABELS: Record<string, string> = { page: 'Page change', consoleError: 'Console error', requestFailed: 'Failed request' }

interface Moment extends Marker {
  offset: number
  kind: string
}

interface Recording {
  events: any[]
  start: number
  end: number
  moments: Moment[]
  viewport: { width: number; height: number }
}

async function loadFriction(projectId: string, sessionKey: string, since: number, until: number): Promise<FrictionItem[]> {
  const items: FrictionItem[] = []
  let cursor: string | undefined
  // A session's friction fits in a few pages; the bound stops a runaway loop.
  for (let i = 0; i < 10; i++) {
    const page = await api.post<FrictionListAnswer>('/cli/friction.list', { projectId, sessionKey, since, until, limit: 200, ...(cursor ? { cursor } : {}) })
    items.push(...page.items.filter((item) => item.sessionKey === sessionKey))
    if (!page.nextCursor) break
    cursor = page.nextCursor
  }
  return items
}

async function loadRecording(projectId: string, sessionKey: string): Promise<Recording> {
  const events = await api.post<any[]>('/cli/sessions.events', { projectId, sessionKey })
  if (!Array.isArray(events) || events.length < 2) return { events: events ?? [], start: 0, end: 0, moments: [], viewport: { width: 1280, height: 800 } }
  events.sort((a, b) => a.timestamp - b.timestamp)
  const start = events[0].timestamp
  const end = events[events.length - 1].timestamp
  const metas = events.filter((e) => e.type === META)
  const viewport = { width: metas[0]?.data?.width || 1280, height: metas[0]?.data?.height || 800 }
  const friction = await loadFriction(projectId, sessionKey, start - 60_000, end + 60_000).catch(() => [] as FrictionItem[])
  const clamp = (ts: number) => Math.min(end, Math.max(start, ts))
  const moments: Moment[] = [
    ...metas.slice(1).map((e) => ({ ts: e.timestamp, tag: 'page', kind: 'page', label: `Page: ${pathOf(e.data?.href ?? '')}` })),
    ...friction.map((item) => ({ ts: clamp(item.ts), tag: item.kind, kind: item.kind, label: describeFriction(item) })),
    ...captureMoments(events, start).map((m) => ({ ...m, ts: clamp(m.ts) })),
  ]
    .map((m) => ({ ...m, offset: m.ts - start }))
    .sort((a, b) => a.ts - b.ts)
  return { events, start, end, moments, viewport }
}

export function Replay({ project, sessionKey, at }: { project: Project; sessionKey: string; at?: number }) {
  useTitle(`Replay · ${project.name}`)
  const recording = useAsync(() => loadRecording(project.id, sessionKey), [project.id, sessionKey])
  const back = <a href={href('p', project.id, 'sessions')}>← Sessions</a>
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
  return <ReplayView project={project} sessionKey={sessionKey} recording={r} at={at} back={back} />
}

function ReplayView({ project, sessionKey, recording: r, at, back }: { project: Project; sessionKey: string; recording: Recording; at?: number; back: JSX.Element }) {
  const box = useRef<HTMLDivElement>(null)
  const target = useRef<HTMLDivElement>(null)
  const [player, setPlayer] = useState<PlayerHandle>()
  const [loadError, setLoadError] = useState<unknown>()
  const [now, setNow] = useState(0)
  const duration = r.end - r.start

  useEffect(() => {
    let handle: PlayerHandle | undefined
    let cancelled = false
    const size = () => {
      // The box's content width: its padding is not the player's.
      const width = Math.max(280, target.current?.clientWidth ?? 800)
      const height = Math.max(200, Math.min(window.innerHeight * 0.65, (width * r.viewport.height) / r.viewport.width))
      return { width, height: Math.round(height) }
    }
    import('../player/player.js')
      .then(({ mountPlayer }) => {
        if (cancelled || !target.current) return
        handle = mountPlayer(target.current, r.events, r.moments, size())
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
  const pages = useMemo(() => new Set(r.events.filter((e) => e.type === META).map((e) => pathOf(e.data?.href ?? ''))), [r])

  return (
    <section class="stack replay">
      <div class="row between wrap">
        {back}
        <p class="muted small">
          {formatDate(r.start)} · {formatDuration(duration)} · {pages.size} {pages.size === 1 ? 'page' : 'pages'} · <code class="clip">{sessionKey}</code>
        </p>
      </div>
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
          {r.moments.length > 0 && (
            <div class="moments-strip" role="group" aria-label="Moments on the timeline">
              {r.moments.map((m, i) => (
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
          {r.moments.length === 0 ? (
            <p class="muted small">No friction in this session: no rage, dead or error clicks, no JavaScript errors.</p>
          ) : (
            <ol data-testid="moments">
              {r.moments.map((m, i) => (
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
      <CapturePanels events={r.events} start={r.start} now={now} jump={jump} />
    </section>
  )
}
