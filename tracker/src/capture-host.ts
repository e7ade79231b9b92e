/**
 * What tracker.js hands the on-demand capture bundle (capture.js) on
 * `svc.x`: the settings, where to put events (the recording, so they are
 * chunked, gated and sent like rrweb's own), and the guard. Types only: both
 * bundles import it, neither carries code from it.
 */
import type { SignalConsole, SignalRequest } from '../../src/schemas/types.js'
import type { Capture } from './capture.js'
import type { HandOver } from './early-console.js'
import type { Guard } from './guard.js'

/** An rrweb plugin event (type 6), as rrweb's console plugin writes them. */
export interface PluginEvent {
  type: 6
  timestamp: number
  data: { plugin: string; payload: unknown }
}

/** An rrweb custom event (type 5): canvas frames (`CANVAS_TAG`), which the dashboard's players draw themselves. */
export interface TaggedEvent {
  type: 5
  timestamp: number
  data: { tag: string; payload: unknown }
}

export interface CaptureHost {
  settings: Capture
  /** The service's address: requests to it are never recorded. */
  origin: string
  /**
   * `mark`: 1 a console error, 2 a failed request (status 0 or >= 500), counted for the session list's filters.
   * `found`: a console error or warning, or a failed request, as the event holds it, named in the signals for search.
   */
  emit(event: PluginEvent | TaggedEvent, mark?: 1 | 2, found?: SignalConsole | SignalRequest): void
  guard: Guard
  /** rrweb's id of a node in the recording; -1 when the recording does not hold it (inside a blocked element). */
  id(node: Node): number
  /** Whether rrweb records this page view now: work for the recording is wasted otherwise. */
  recording(): boolean
  /** Set by capture.js: called after each full snapshot, which a replay rebuilds with blank canvases. */
  onSnapshot?: () => void
  /** The console calls tracker.js kept before capture.js ran; calling it also removes tracker.js's hook. */
  early?: HandOver
  /** Set by capture.js once it runs: undoes its wrappers. */
  stop?: () => void
}

/** rrweb's console plugin name: a replayer that knows it shows these events. */
export const CONSOLE_PLUGIN = 'rrweb/console@1'
export const NETWORK_PLUGIN = 'svc/network@1'
/**
 * A canvas frame: `{id, w, h, url, s?}`, the canvas's rrweb id, its size, a data: URL of WebP (JPEG or PNG
 * where the browser encodes no WebP), and the scale its pixels were read at when under 1 (a large canvas). A custom event, which rrweb's replayer passes over: the dashboard's
 * players take these out before rrweb-player sees them (it draws a timeline tick for every custom event)
 * and draw them themselves (dashboard/src/player/canvas.ts).
 */
export const CANVAS_TAG = 'svc.canvas'
