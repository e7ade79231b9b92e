/**
 * Canvas frames (tracker/src/canvas.ts: custom events tagged `svc.canvas`,
 * `{id, w, h, url, s?}`, a data: URL of WebP, JPEG or PNG, `s` the scale it
 * was read at when under 1) shown on the replayed <canvas> that rrweb's
 * mirror knows by `id`. The players take the frames out of what rrweb-player
 * gets, since it draws a timeline tick for every custom event, and paint from
 * the replayer's clock instead: on every animation frame, each canvas shows
 * the last frame at or before the moment, counted from the last full snapshot
 * before it (a rebuilt page starts with blank canvases, and the tracker sends
 * every canvas again after each snapshot). So a seek, back or forward, shows
 * the frame of that moment.
 *
 * The replay's frame runs no script (confine.ts; rrweb's own canvas replay,
 * which would need one, stays off), and a <canvas> in a document without
 * scripting renders its fallback content, never its pixels: drawing into it
 * would show nothing. The frame becomes the element's CSS `content` instead,
 * which the browser renders as an image in its place, with the canvas's size
 * as its intrinsic size (as the original's pixels gave it). The frame's CSP
 * allows data: images; nothing is fetched.
 */

export const CANVAS_TAG = 'svc.canvas'

interface Frame {
  ts: number
  /** The CSS `content` value that shows it. */
  css: string
}

export interface CanvasFrames {
  /** Canvas id → its frames, in time order. */
  byId: Map<number, Frame[]>
  /** Full snapshot times, ascending. */
  snapshots: number[]
}

/** What the painter reads of rrweb's Replayer. */
export interface ReplayClock {
  getMirror(): { getNode(id: number): Node | null }
  getCurrentTime(): number
  getMetaData(): { startTime: number }
}

export const isCanvasFrame = (event: any): boolean => event?.type === 5 && event.data?.tag === CANVAS_TAG

/** `events` without their canvas frames (what rrweb gets), and the frames. */
export function splitCanvasFrames(events: any[]): { events: any[]; frames: CanvasFrames } {
  const frames: CanvasFrames = { byId: new Map(), snapshots: [] }
  const rest: any[] = []
  for (const event of events) {
    if (!isCanvasFrame(event)) {
      rest.push(event)
      if (event?.type === 2) frames.snapshots.push(event.timestamp)
      continue
    }
    const { id } = event.data.payload ?? {}
    const css = contentOf(event.data.payload)
    if (typeof id !== 'number' || !css) continue
    let list = frames.byId.get(id)
    if (!list) frames.byId.set(id, (list = []))
    list.push({ ts: event.timestamp, css })
  }
  // A frame is stamped when its canvas was read and lands in the recording once encoded, after later events.
  for (const list of frames.byId.values()) list.sort((a, b) => a.ts - b.ts)
  frames.snapshots.sort((a, b) => a - b)
  return { events: frames.byId.size ? rest : events, frames }
}

/** Index of the last item whose time is at or before `ts`, -1 if none. */
function lastAtOrBefore<T>(items: T[], ts: number, timeOf: (item: T) => number): number {
  let lo = 0
  let hi = items.length - 1
  let found = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (timeOf(items[mid]) <= ts) {
      found = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  return found
}

/** The `content` value showing a frame's image at the canvas's size: one read at scale `s` declares its density. */
function contentOf(payload: any): string | undefined {
  const url = payload?.url
  // Only an image, as a data: URL, quoted as CSS: base64 and a media type hold no quote or backslash.
  if (typeof url !== 'string' || !/^data:image\/[a-z+.-]+;base64,[A-Za-z0-9+/=]*$/.test(url)) return undefined
  const scale = Number(payload.s)
  return scale > 0 && scale < 1 ? `image-set(url("${url}") ${scale}x)` : `url("${url}")`
}

/** Which frame each replayed canvas shows: a canvas rrweb rebuilt is a new element, painted again. */
type Painted = WeakMap<Node, Frame>

function paint(canvas: HTMLElement, frame: Frame, painted: Painted): void {
  painted.set(canvas, frame)
  canvas.style.setProperty('content', frame.css, 'important')
}

/** Whether `node` shows `frame` still: rrweb setting the whole style attribute takes it away. */
const shows = (node: HTMLElement, frame: Frame | undefined, painted: Painted) => painted.get(node) === frame && node.style.getPropertyValue('content') !== ''

/** Draws, for the moment `ts` (epoch ms), each canvas's frame of that moment. */
export function paintAt(clock: ReplayClock, frames: CanvasFrames, ts: number, painted: Painted = new WeakMap()): void {
  const snapshot = frames.snapshots[lastAtOrBefore(frames.snapshots, ts, (t) => t)] ?? -Infinity
  const mirror = clock.getMirror()
  for (const [id, list] of frames.byId) {
    const frame = list[lastAtOrBefore(list, ts, (f) => f.ts)]
    if (!frame || frame.ts < snapshot) continue
    const node = mirror.getNode(id)
    // Ids start again on each page load: a frame of another page's canvas finds no canvas here, or not this one's time.
    if (!node || node.nodeName !== 'CANVAS' || shows(node as HTMLElement, frame, painted)) continue
    paint(node as HTMLElement, frame, painted)
  }
}

/** Follows `clock` (rrweb's Replayer) while it lives: a recording without canvas frames costs nothing. */
export function paintCanvases(clock: ReplayClock, frames: CanvasFrames): { stop(): void } {
  if (!frames.byId.size) return { stop() {} }
  const painted: Painted = new WeakMap()
  let raf = 0
  const loop = () => {
    try {
      paintAt(clock, frames, clock.getMetaData().startTime + clock.getCurrentTime(), painted)
    } catch {
      // a replayer torn down between two frames: the next stop() ends the loop
    }
    raf = requestAnimationFrame(loop)
  }
  loop()
  return { stop: () => cancelAnimationFrame(raf) }
}

/** Live mode casts each event at its time and cannot seek: a frame is drawn as rrweb casts it. */
export function paintOnCast(replayer: ReplayClock & { on(event: string, handler: (event: any) => void): unknown }): void {
  const painted: Painted = new WeakMap()
  replayer.on('custom-event', (event: any) => {
    if (!isCanvasFrame(event)) return
    const id = event.data.payload?.id
    const css = contentOf(event.data.payload)
    const node = typeof id === 'number' && css ? replayer.getMirror().getNode(id) : null
    if (css && node?.nodeName === 'CANVAS') paint(node as HTMLElement, { ts: event.timestamp, css }, painted)
  })
}
