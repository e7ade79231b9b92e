/**
 * The replay player, in its own chunk: rrweb-player (play/pause, speed, skip
 * inactivity, timeline) and its stylesheet, loaded only when a replay opens.
 * Friction moments are added to the recording as rrweb custom events, which
 * the player draws as coloured ticks on its own timeline.
 */
import Player from 'rrweb-player'
import playerCss from 'rrweb-player/dist/style.css'
import { confineFrame } from './confine.js'
import { defineCustomElements } from './custom-elements.js'
import { labelUnrecordedFrames } from './frames.js'
import { settleOnPause } from './animations.js'
import { showFocusOnPause } from './focus.js'
import { paintCanvases, splitCanvasFrames } from './canvas.js'

export interface Marker {
  /** Epoch ms. */
  ts: number
  tag: string
  label: string
}

export interface PlayerHandle {
  goto(offsetMs: number, play?: boolean): void
  toggle(): void
  pause(): void
  resize(width: number, height: number): void
  /** Milliseconds from the start of the recording. */
  currentOffset(): number
  onTime(listener: (offsetMs: number) => void): void
  /** The frame the recorded page is rebuilt in. */
  frame(): HTMLIFrameElement
  destroy(): void
}

/** Tick colours on the player's timeline, matched by the marker legend in styles.css. */
export const TAG_COLOURS: Record<string, string> = {
  rage: '#d92d20',
  errorClick: '#b42318',
  jsError: '#7a271a',
  dead: '#dc6803',
  quickBack: '#7f56d9',
  page: '#1570ef',
  consoleError: '#c11574',
  requestFailed: '#6941c6',
}

/** Moments as rrweb custom events, which rrweb-player draws as ticks on its timeline. */
export function markerEvents(markers: Marker[]): any[] {
  return markers.map((m) => ({ type: 5, timestamp: m.ts, data: { tag: m.tag, payload: { label: m.label } } }))
}

let styled = false

export function injectStyles(): void {
  if (styled) return
  styled = true
  const style = document.createElement('style')
  style.dataset.for = 'rrweb-player'
  style.textContent = playerCss
  document.head.appendChild(style)
}

/** `origins`: where the replay may load from (confine.ts replayOrigins). */
export function mountPlayer(target: HTMLElement, events: any[], markers: Marker[], size: { width: number; height: number }, origins: string[]): PlayerHandle {
  injectStyles()
  const recorded = splitCanvasFrames(events)
  const all = [...recorded.events, ...markerEvents(markers)].sort((a, b) => a.timestamp - b.timestamp)
  const player = new Player({
    target,
    props: {
      events: all,
      width: size.width,
      height: size.height,
      autoPlay: false,
      skipInactive: true,
      showController: true,
      speedOption: [1, 2, 4, 8],
      tags: TAG_COLOURS,
      mouseTail: { strokeStyle: '#d92d20', lineWidth: 2, duration: 600 },
      // Recorded pages are shown, never run: no scripts in the frame.
      UNSAFE_replayCanvas: false,
    } as any,
  })
  confineFrame(player.getReplayer().iframe, origins)
  defineCustomElements(player.getReplayer().iframe, all)
  labelUnrecordedFrames(player.getReplayer().iframe, player.getReplayer().getMirror(), all)
  settleOnPause(player.getReplayer())
  showFocusOnPause(player.getReplayer(), () => all)
  const canvases = paintCanvases(player.getReplayer(), recorded.frames)
  return {
    goto: (offset, play = false) => player.goto(Math.max(0, offset), play),
    toggle: () => player.toggle(),
    pause: () => player.pause(),
    resize(width, height) {
      ;(player as any).$set({ width, height })
      player.triggerResize()
    },
    currentOffset: () => player.getReplayer().getCurrentTime(),
    onTime: (listener) => player.addEventListener('ui-update-current-time', (detail: any) => listener(Number(detail?.payload ?? 0))),
    frame: () => player.getReplayer().iframe,
    destroy() {
      canvases.stop()
      try {
        player.pause()
        ;(player as any).$destroy()
      } catch {
        // already torn down with its container
      }
    },
  }
}
