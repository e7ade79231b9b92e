/**
 * A session followed as it is recorded (issue 45): the sessions.follow feed
 * played by rrweb's live mode (rrweb-player without its controls, its
 * Replayer in `liveMode`, `startLive()` then `addEvent()` per event), in the
 * same confined frame as a replay (confine.ts).
 *
 * Timing. rrweb plays an event `timestamp - baseline` after startLive, so the
 * visitor's clock would decide the delay, and it is not the viewer's. Each
 * event is handed over with its timestamp moved by `shift`, the least
 * (arrival - event time) seen so far: the newest event of a chunk plays
 * LAG_MS after it arrived and the chunk's others keep their pace before it; a
 * chunk that comes later than that plays at once. Moved timestamps never go
 * backwards, so rrweb casts in the feed's order.
 *
 * Live mode cannot seek (rrweb's live state takes only new events), so this
 * is Live or Paused: paused, what arrives is held; "Jump to live" hands it
 * over at once and follows again. Scrubbing back is the replay screen's job.
 */
import Player from 'rrweb-player'
import { confineFrame, replayOrigins } from './confine.js'
import { labelUnrecordedFrames } from './frames.js'
import { paintOnCast } from './canvas.js'
import { readFeed } from './feed.js'
import { injectStyles } from './player.js'

/** The tracker sends every 1.5 s while followed (tracker/src/config.ts): a chunk's events then play at their own pace. */
const LAG_MS = 1500
/** rrweb event types: 2 full snapshot, 4 meta. */
const FULL_SNAPSHOT = 2
const META = 4

export type LivePhase = 'connecting' | 'live' | 'paused' | 'ended' | 'lost' | 'failed'

export interface LiveState {
  phase: LivePhase
  /** The viewer's clock: when events last arrived (before any, when the server last had a chunk). */
  lastDataAt?: number
  /** `svc.live_ended`'s reason: idle, limit or gone. */
  reason?: string
  error?: unknown
}

export interface LiveWatch {
  pause(): void
  /** Plays what arrived while paused at once, then follows again. */
  jumpToLive(): void
  resize(width: number, height: number): void
  /** The frame the page is rebuilt in, once the history has arrived. */
  frame(): HTMLIFrameElement | undefined
  stop(): void
}

export interface WatchOptions {
  projectId: string
  sessionKey: string
  /** The project's, for where the replay may load from (confine.ts). */
  domain: string | null
  size: { width: number; height: number }
  onState(state: LiveState): void
}

export function watchSession(target: HTMLElement, options: WatchOptions): LiveWatch {
  injectStyles()
  const stop = new AbortController()
  let state: LiveState = { phase: 'connecting' }
  const tell = (patch: Partial<LiveState>) => {
    if (stop.signal.aborted) return
    state = { ...state, ...patch }
    options.onState(state)
  }
  let player: Player | undefined
  let history: any[] = []
  let historyDone = false
  let held: any[] = []
  let shift = Infinity
  let lastShifted = -Infinity
  let size = options.size

  let frames: ReturnType<typeof labelUnrecordedFrames> | undefined
  const hand = (events: any[], arrivedAt: number | undefined) => {
    if (arrivedAt !== undefined) shift = Math.min(shift, arrivedAt - events.reduce((newest, e) => Math.max(newest, e.timestamp), -Infinity))
    const replayer = player!.getReplayer()
    frames?.more(events)
    for (const event of events) {
      lastShifted = Math.max(event.timestamp + shift, lastShifted)
      replayer.addEvent({ ...event, timestamp: lastShifted })
    }
  }

  // The history from the page's last checkpoint: rebuilt at once, the frame confined before anything is drawn in it.
  const mount = () => {
    const snapshot = history.findIndex((e) => e.type === FULL_SNAPSHOT)
    if (!historyDone || snapshot === -1) return
    const from = history[snapshot - 1]?.type === META ? snapshot - 1 : snapshot
    const events = history.slice(from)
    history = []
    const now = Date.now()
    shift = now - events[events.length - 1].timestamp
    const first = events[0].type === META ? events[0] : { type: META, timestamp: events[0].timestamp - 1, data: { href: '', width: size.width, height: size.height } }
    player = new Player({
      target,
      props: {
        events: [{ ...first, timestamp: first.timestamp + shift }],
        width: size.width,
        height: size.height,
        autoPlay: false,
        showController: false,
        skipInactive: false,
        liveMode: true,
        // rrweb applies events cast at once (the history) to a virtual DOM that only its seek flushes, which live mode never calls.
        useVirtualDom: false,
        mouseTail: { strokeStyle: '#d92d20', lineWidth: 2, duration: 600 },
        // Recorded pages are shown, never run: no scripts in the frame.
        UNSAFE_replayCanvas: false,
      } as any,
    })
    const replayer = player.getReplayer()
    confineFrame(replayer.iframe, replayOrigins(options.domain, events))
    frames = labelUnrecordedFrames(replayer.iframe, replayer.getMirror(), events)
    paintOnCast(replayer)
    replayer.startLive(now - LAG_MS)
    lastShifted = first.timestamp + shift
    hand(events[0] === first ? events.slice(1) : events, undefined)
    tell({ phase: 'live' })
  }

  readFeed(
    options.projectId,
    options.sessionKey,
    {
      onEvents(events) {
        if (historyDone) tell({ lastDataAt: Date.now() })
        if (!player) {
          history.push(...events)
          mount()
        } else if (state.phase === 'paused') held.push(...events)
        else hand(events, Date.now())
      },
      onService(tag, payload) {
        if (tag === 'svc.live') {
          // The server's clock: near enough for "sent 4 s ago" until the viewer's own arrivals take over.
          if (!historyDone && typeof payload.lastChunkAt === 'number') tell({ lastDataAt: payload.lastChunkAt })
          historyDone = true
          if (!player) mount()
        } else if (tag === 'svc.live_ended') {
          // Paused when the visit ended: what was held is the visit's end, shown rather than lost.
          if (player && held.length) hand(held.splice(0), undefined)
          tell({ phase: 'ended', reason: String(payload.reason ?? 'idle') })
        }
      },
    },
    stop.signal,
  ).then(
    // The answer closed without saying why: the connection dropped, or the server restarted.
    () => state.phase !== 'ended' && tell({ phase: 'lost' }),
    (error) => tell({ phase: 'failed', error }),
  )

  return {
    pause() {
      if (state.phase === 'live') tell({ phase: 'paused' })
    },
    jumpToLive() {
      if (state.phase !== 'paused') return
      const late = held
      held = []
      if (late.length) hand(late, undefined)
      tell({ phase: 'live' })
    },
    resize(width, height) {
      size = { width, height }
      if (!player) return
      ;(player as any).$set({ width, height })
      player.triggerResize()
    },
    frame: () => player?.getReplayer().iframe,
    stop() {
      stop.abort()
      try {
        ;(player as any)?.$destroy()
      } catch {
        // already torn down with its container
      }
    },
  }
}
