/**
 * The heatmap's background, in its own chunk: the page rebuilt from a
 * recorded DOM snapshot by rrweb's Replayer (not a screenshot service, so it
 * works for any self-hosted site), laid out at the recorded viewport width and
 * grown to the whole document height, with the heat painted over it.
 */
import { Replayer } from '@rrweb/replay'
import { confineFrame } from '../player/confine.js'
import { paintClicks, paintScroll, type ClickCells } from './paint.js'
import { defineCustomElements } from '../player/custom-elements.js'
import { paintAt, splitCanvasFrames } from '../player/canvas.js'

export { paintClicks, paintScroll }
export type { ClickCells }

/** Canvas and frame height cap: Chromium refuses canvases taller than 32,767 px; deeper clicks pile up at the bottom. */
export const MAX_DOC_HEIGHT = 20_000

export interface RebuiltPage {
  width: number
  height: number
  destroy(): void
}

/**
 * Rebuilds the page as it was at `atTs` (epoch ms) into `stage`. rrweb's
 * `pause(offset)` applies every event before the offset synchronously, so the
 * frame holds the full snapshot and the changes after it when this returns.
 */
/** `origins`: where the rebuilt page may load from (player/confine.ts replayOrigins). */
export async function rebuildPage(stage: HTMLElement, events: any[], atTs: number, viewport: { width: number; height: number }, origins: string[]): Promise<RebuiltPage> {
  const recorded = splitCanvasFrames(events)
  const replayer = new Replayer(recorded.events, {
    root: stage,
    mouseTail: false,
    showWarning: false,
    showDebug: false,
    triggerFocus: false,
    speed: 1,
    // The frame shows the page still: no cursor, no click ripples, no transitions.
    insertStyleRules: ['*, *::before, *::after { transition: none !important; animation: none !important; caret-color: transparent !important; }'],
  })
  confineFrame(replayer.iframe, origins)
  defineCustomElements(replayer.iframe, events)
  replayer.pause(Math.max(0, atTs - recorded.events[0].timestamp))
  // A chart drawn on a canvas shows under the heat as it was at that moment (canvas capture on).
  paintAt(replayer, recorded.frames, atTs)
  const frame = replayer.iframe
  // Let recorded stylesheets and images settle before measuring (two frames).
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
  const doc = frame.contentDocument
  const width = Number(frame.width) || viewport.width
  const measured = Math.max(doc?.documentElement?.scrollHeight ?? 0, doc?.body?.scrollHeight ?? 0, Number(frame.height) || viewport.height)
  const height = Math.min(MAX_DOC_HEIGHT, measured)
  frame.setAttribute('width', String(width))
  frame.setAttribute('height', String(height))
  frame.setAttribute('scrolling', 'no')
  frame.setAttribute('tabindex', '-1')
  frame.setAttribute('aria-hidden', 'true')
  frame.style.width = `${width}px`
  frame.style.height = `${height}px`
  frame.style.pointerEvents = 'none'
  const wrapper = replayer.wrapper
  wrapper.style.width = `${width}px`
  wrapper.style.height = `${height}px`
  return {
    width,
    height,
    destroy() {
      try {
        replayer.destroy()
      } catch {
        // the stage is already gone
      }
    },
  }
}
