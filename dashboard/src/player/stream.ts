/**
 * A player for long recordings that holds only the part around the playhead.
 * The recording is cut at its checkpoints (chunks that start with a full
 * snapshot, every few minutes): each part replays on its own, so the player
 * plays one part in rrweb-player, fetches the next ahead of time, drops the
 * parts far from the playhead, and seeks by loading the part that holds the
 * target. Its own controls (stream-controls.tsx) show the whole session.
 */
import Player from 'rrweb-player'
import { confineFrame, replayOrigins } from './confine.js'
import { defineCustomElements } from './custom-elements.js'
import { labelUnrecordedFrames } from './frames.js'
import { settleOnPause } from './animations.js'
import { showFocusOnPause } from './focus.js'
import { paintCanvases, splitCanvasFrames } from './canvas.js'
import { injectStyles, markerEvents, TAG_COLOURS, type Marker, type PlayerHandle } from './player.js'

export interface Outline {
  /** Epoch ms of the recording's first and last event. */
  start: number
  end: number
  /** Epoch ms at which each part begins, ascending: the first is the recording's first checkpoint. */
  parts: number[]
}

/** Fetches the events of the part from `from` up to (not including) `until`. */
export type PartLoader = (from: number, until: number) => Promise<any[]>

export interface StreamHandle extends PlayerHandle {
  playing(): boolean
  setSpeed(speed: number): void
  /** Called with each part's events as it starts playing (the console and network panels show that part). */
  onPart(listener: (events: any[]) => void): void
}

/** Load the next part once the playhead is this far into the current one. */
const PREFETCH_AT = 0.5
/** Parts kept besides the current one: the one before (a short seek back) and the one after. */
const KEEP = 1

/** `firstPart`: the first part's events when the caller already has them. */
/** `domain`: the project's, for where each part's replay may load from (confine.ts). */
export function mountStream(target: HTMLElement, outline: Outline, load: PartLoader, markers: Marker[], size: { width: number; height: number }, domain: string | null, firstPart?: any[]): StreamHandle {
  injectStyles()
  const cache = new Map<number, Promise<any[]>>(firstPart ? [[0, Promise.resolve(firstPart)]] : [])
  const timeListeners: ((offset: number) => void)[] = []
  const partListeners: ((events: any[]) => void)[] = []
  let current: { index: number; player: Player; first: number; request: number; canvases: { stop(): void } } | undefined
  let wanted = 0 // the newest request to show a part: an older one that finishes late does not replace it
  let playing = false
  let speed = 1
  let offset = 0
  let box = size
  let destroyed = false

  const partOf = (ts: number) => {
    let index = 0
    for (let i = 0; i < outline.parts.length && outline.parts[i] <= ts; i++) index = i
    return index
  }
  const fetchPart = (index: number) => {
    let events = cache.get(index)
    if (!events) {
      const until = outline.parts[index + 1] ?? outline.end + 1
      events = load(outline.parts[index], until)
      events.catch(() => cache.delete(index))
      cache.set(index, events)
    }
    for (const kept of cache.keys()) if (Math.abs(kept - index) > KEEP) cache.delete(kept)
    return events
  }
  const tell = (globalOffset: number) => {
    offset = globalOffset
    for (const listener of timeListeners) listener(globalOffset)
  }
  const unmount = () => {
    current?.canvases.stop()
    try {
      current?.player.pause()
      ;(current?.player as any)?.$destroy()
    } catch {
      // already torn down with its container
    }
  }

  async function show(index: number, ts: number, play: boolean): Promise<void> {
    const request = ++wanted
    const loaded = await fetchPart(index)
    if (destroyed || request !== wanted) return
    const inPart = markers.filter((m) => m.ts >= loaded[0]?.timestamp && m.ts <= loaded[loaded.length - 1]?.timestamp)
    const recorded = splitCanvasFrames(loaded)
    const events = [...recorded.events, ...markerEvents(inPart)].sort((a, b) => a.timestamp - b.timestamp)
    unmount()
    target.textContent = ''
    if (events.length < 2) return
    const player = new Player({
      target,
      props: { events, width: box.width, height: box.height, autoPlay: false, skipInactive: true, showController: false, tags: TAG_COLOURS, mouseTail: { strokeStyle: '#d92d20', lineWidth: 2, duration: 600 }, UNSAFE_replayCanvas: false } as any,
    })
    confineFrame(player.getReplayer().iframe, replayOrigins(domain, loaded))
    defineCustomElements(player.getReplayer().iframe, loaded)
    labelUnrecordedFrames(player.getReplayer().iframe, player.getReplayer().getMirror(), loaded)
    settleOnPause(player.getReplayer())
    showFocusOnPause(player.getReplayer(), () => events)
    const first = events[0].timestamp
    current = { index, player, first, request, canvases: paintCanvases(player.getReplayer(), recorded.frames) }
    player.setSpeed(speed)
    player.getReplayer().on('finish', () => {
      if (current?.player !== player) return
      if (playing && index + 1 < outline.parts.length) void show(index + 1, outline.parts[index + 1], true)
      else playing = false
    })
    for (const listener of partListeners) listener(loaded)
    player.goto(Math.max(0, ts - first), play)
    playing = play
    tell(Math.max(ts, first) - outline.start)
  }

  // The replayer's clock, read a few times a second: it drives the controls and the fetch ahead.
  const clock = setInterval(() => {
    if (!current || !playing) return
    const ts = current.first + current.player.getReplayer().getCurrentTime()
    tell(Math.min(ts, outline.end) - outline.start)
    const next = outline.parts[current.index + 1]
    if (next !== undefined && ts - current.first >= PREFETCH_AT * (next - current.first)) void fetchPart(current.index + 1).catch(() => undefined)
  }, 200)

  const goto = (globalOffset: number, play = false) => {
    const ts = outline.start + Math.min(outline.end - outline.start, Math.max(0, globalOffset))
    const index = partOf(ts)
    if (current && current.index === index && current.request === wanted) {
      current.player.goto(Math.max(0, ts - current.first), play)
      playing = play
      tell(ts - outline.start)
      return
    }
    void show(index, ts, play)
  }

  void show(0, outline.start, false)
  return {
    goto,
    toggle() {
      if (!current) return
      if (playing) current.player.pause()
      else current.player.play()
      playing = !playing
    },
    pause() {
      current?.player.pause()
      playing = false
    },
    resize(width, height) {
      box = { width, height }
      ;(current?.player as any)?.$set({ width, height })
      current?.player.triggerResize()
    },
    currentOffset: () => offset,
    onTime: (listener) => void timeListeners.push(listener),
    onPart: (listener) => void partListeners.push(listener),
    frame: () => current!.player.getReplayer().iframe,
    playing: () => playing,
    setSpeed(value) {
      speed = value
      current?.player.setSpeed(value)
    },
    destroy() {
      destroyed = true
      clearInterval(clock)
      unmount()
      cache.clear()
    },
  }
}
