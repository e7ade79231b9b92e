/**
 * Canvas capture (capture.js, for projects that turn `canvas` on): what each
 * visible <canvas> shows, sampled `canvasFps` times a second and sent as a
 * custom event (CANVAS_TAG) into the recording, where the dashboard's players
 * draw it into the replayed canvas at its time. rrweb's own canvas recording
 * stays cut from the build (tracker/tsup.config.ts): it records every drawing
 * call, and its replay needs scripts allowed in the replay's frame.
 *
 * The page's thread does little: a tick skips hidden pages, stopped
 * recordings and canvases off screen (an IntersectionObserver keeps the set),
 * and for each visible canvas takes an ImageBitmap and hands it to a Worker
 * (canvas-worker.ts), which tells whether the pixels changed and encodes only
 * then. A canvas still being encoded is not sampled again meanwhile.
 *
 * Not captured: a canvas in or under a masked or blocked element (nor one the
 * recording does not hold), one inside a shadow root or a frame, one tainted
 * by another origin's images, and a WebGL canvas made without
 * `preserveDrawingBuffer: true` (read between frames it is blank).
 */
import { CANVAS_TAG, type CaptureHost } from './capture-host.js'
import { canvasWorker, type FrameAnswer, type FrameAsk } from './canvas-worker.js'
import { CANVAS_MAX_SIDE, CANVAS_MAX_URL } from './config.js'
import type { Off } from './guard.js'
import { BLOCK_SELECTOR, MASK_SELECTOR } from './mask.js'

const HIDDEN = `${MASK_SELECTOR},${BLOCK_SELECTOR}`

/**
 * Encodes `canvas` if it changed (or `force`), its pixels read at `scale`; `done(url)` with a data: URL to
 * send, `done()` for nothing, `done(undefined, true)` if the canvas can never be read (tainted).
 */
type Encode = (canvas: HTMLCanvasElement, id: number, force: boolean, scale: number, done: (url?: string, refused?: boolean) => void) => void

interface Encoder {
  encode: Encode
  /** Whether it reads at a scale under 1 (else always the canvas's own size). */
  scales: boolean
  stop: Off
}

/** Read at `scale` (under 1 for a canvas over CANVAS_MAX_SIDE): the replay shows the frame at the canvas's size. */
function bitmapOf(canvas: HTMLCanvasElement, scale: number): Promise<ImageBitmap> {
  if (scale >= 1) return createImageBitmap(canvas)
  return createImageBitmap(canvas, { resizeWidth: Math.round(canvas.width * scale), resizeHeight: Math.round(canvas.height * scale), resizeQuality: 'medium' })
}

/** The worker, started from a blob: URL of its source; undefined where the browser cannot. `onFail`: the page's CSP refused it after all. */
function workerEncoder(quality: number, onFail: () => void): Encoder | undefined {
  if (typeof OffscreenCanvas === 'undefined' || typeof createImageBitmap !== 'function' || typeof Worker !== 'function') return undefined
  const source = URL.createObjectURL(new Blob([`(${canvasWorker})()`], { type: 'text/javascript' }))
  let worker: Worker
  try {
    worker = new Worker(source)
  } catch {
    // Refused at once (Trusted Types, or a CSP some browsers check here).
    URL.revokeObjectURL(source)
    return undefined
  }
  const waiting = new Map<number, (url?: string) => void>()
  let asked = 0
  const stop = () => {
    worker.terminate()
    URL.revokeObjectURL(source)
    for (const done of waiting.values()) done()
    waiting.clear()
  }
  worker.onmessage = (event: MessageEvent<FrameAnswer>) => {
    const done = waiting.get(event.data.n)
    waiting.delete(event.data.n)
    done?.(event.data.url)
  }
  // A CSP without blob: in worker-src (Chromium reports it here, not at `new Worker`): the page's thread takes over.
  worker.onerror = () => {
    stop()
    onFail()
  }
  return {
    encode(canvas, id, force, scale, done) {
      bitmapOf(canvas, scale).then(
        (bitmap) => {
          const ask: FrameAsk = { n: ++asked, id, bitmap, quality, force }
          waiting.set(ask.n, done)
          worker.postMessage(ask, [bitmap])
        },
        // createImageBitmap refuses a canvas tainted by another origin's images, every time.
        (error: unknown) => done(undefined, (error as Error)?.name === 'SecurityError'),
      )
    },
    scales: true,
    stop,
  }
}

/**
 * Without a worker (no OffscreenCanvas, or a CSP refusing blob: workers) the page's thread reads the pixels
 * and the browser encodes them on its own threads (toBlob); a change is told by the encoded bytes, so an
 * unchanged canvas is encoded every sample here. PNG where the browser has no WebP encoder (transparency kept).
 */
function pageEncoder(quality: number): Encoder {
  const last = new WeakMap<HTMLCanvasElement, string>()
  return {
    encode(canvas, _id, force, _scale, done) {
      try {
        canvas.toBlob(
          (blob) => {
            if (!blob) return done()
            const reader = new FileReader()
            reader.onloadend = () => {
              const url = typeof reader.result === 'string' ? reader.result : ''
              if (!url || (!force && last.get(canvas) === url)) return done()
              last.set(canvas, url)
              done(url)
            }
            reader.readAsDataURL(blob)
          },
          'image/webp',
          quality,
        )
      } catch (error) {
        done(undefined, (error as Error)?.name === 'SecurityError')
      }
    },
    scales: false,
    stop() {},
  }
}

export function captureCanvas(host: CaptureHost): Off {
  const { guard, settings } = host
  const quality = Math.min(1, Math.max(0, settings.canvasQuality ?? 0.6))
  const every = 1000 / Math.min(10, Math.max(0.1, settings.canvasFps || 2))
  let encoder: Encoder = workerEncoder(quality, guard.wrap(() => (encoder = pageEncoder(quality)))) || pageEncoder(quality)
  const canvases = document.getElementsByTagName('canvas')
  const watched = new WeakSet<Element>()
  const visible = new Set<HTMLCanvasElement>()
  const busy = new WeakSet<HTMLCanvasElement>()
  const refused = new WeakSet<HTMLCanvasElement>()
  /** The full snapshot each canvas was last sent (or found blank) after: one sent before the latest is sent again. */
  const sentIn = new WeakMap<HTMLCanvasElement, number>()
  let snapshots = 0
  const io = new IntersectionObserver(
    guard.wrap((entries: IntersectionObserverEntry[]) => {
      for (const entry of entries) {
        const canvas = entry.target as HTMLCanvasElement
        if (entry.isIntersecting) visible.add(canvas)
        else visible.delete(canvas)
        // A canvas the page took away (a chart torn down) is let go; put back, the next tick watches it again.
        if (!canvas.isConnected) {
          io.unobserve(canvas)
          watched.delete(canvas)
        }
      }
    }),
  )

  const sample = (canvas: HTMLCanvasElement) => {
    if (busy.has(canvas) || refused.has(canvas) || !canvas.width || !canvas.height || canvas.closest(HIDDEN)) return
    const id = host.id(canvas)
    if (id < 0) return
    const at = snapshots
    const timestamp = Date.now()
    const { width: w, height: h } = canvas
    const scale = encoder.scales ? Math.min(1, CANVAS_MAX_SIDE / Math.max(w, h)) : 1
    busy.add(canvas)
    encoder.encode(
      canvas,
      id,
      sentIn.get(canvas) !== at,
      scale,
      guard.wrap((url?: string, never?: boolean) => {
        busy.delete(canvas)
        if (never) refused.add(canvas)
        // A frame read before the latest full snapshot would land before it in the replay: the canvas is read again.
        if (at !== snapshots) return
        sentIn.set(canvas, at)
        if (url && url.length <= CANVAS_MAX_URL && host.recording()) host.emit({ type: 5, timestamp, data: { tag: CANVAS_TAG, payload: scale < 1 ? { id, w, h, url, s: scale } : { id, w, h, url } } })
      }),
    )
  }
  let stopped = false
  const tick = guard.wrap(() => {
    if (stopped || document.visibilityState === 'hidden' || !host.recording()) return
    for (let i = 0; i < canvases.length; i++) {
      const canvas = canvases[i]
      if (!watched.has(canvas)) {
        watched.add(canvas)
        io.observe(canvas)
      }
    }
    for (const canvas of visible) {
      if (canvas.isConnected) sample(canvas)
      else visible.delete(canvas)
    }
  })
  const timer = setInterval(tick, every)
  host.onSnapshot = () => {
    snapshots++
    // Read at once rather than at the next tick: until then the replay shows the rebuilt canvases blank.
    setTimeout(tick)
  }
  return () => {
    stopped = true
    clearInterval(timer)
    io.disconnect()
    encoder.stop()
    host.onSnapshot = undefined
  }
}
