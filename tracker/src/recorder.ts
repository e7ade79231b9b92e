/**
 * rrweb recording: one full DOM snapshot, then the stream of changes (never
 * video). Masking options come from mask.ts; every event is scrubbed before it
 * is handed on. rrweb's own callbacks report faults through `errorHandler`,
 * which counts and swallows them.
 */
import { record } from '@rrweb/record'
import type { Guard } from './guard.js'
import { CHECKPOINT_MS } from './config.js'
import { BLOCK_CLASS, IGNORE_CLASS, IGNORE_SELECTOR, maskInput, scrubEvent } from './mask.js'

export interface RecordedEvent {
  type: number
  timestamp: number
  data: any
}

export interface Recorder {
  /** A new Meta and full snapshot event (a new page view or session starts); nothing while stopped. */
  snapshot(): void
  /** Starts rrweb (which begins with a Meta and full snapshot event); nothing if it runs. */
  start(): void
  stop(): void
  /** Whether rrweb runs: it does not while the page or session is not recorded, so it costs nothing there. */
  readonly running: boolean
  /** Milliseconds the first full snapshot took on the main thread. */
  readonly snapshotMs: number
}

/** Every input type routes through maskInput, which decides per element. */
const EVERY_INPUT: Record<string, boolean> = { input: true, textarea: true, select: true, password: true }
for (const type of 'color date datetime-local email month number range search tel text time url week'.split(' ')) EVERY_INPUT[type] = true

export function createRecorder(guard: Guard, onEvent: (event: RecordedEvent) => void): Recorder {
  const lookup = (id: number) => record.mirror.getNode(id) as Node | null
  let metaAt = 0
  let snapshotMs = -1
  let stop: (() => void) | undefined
  const options: Parameters<typeof record>[0] = {
    emit: guard.wrap((event: any) => {
      // rrweb emits Meta, serializes the document, then emits the full snapshot: the gap is the snapshot's cost.
      if (event.type === 4) metaAt = performance.now()
      if (event.type === 2 && snapshotMs < 0) snapshotMs = performance.now() - metaAt
      scrubEvent(event, lookup)
      onEvent(event)
    }),
    blockClass: BLOCK_CLASS,
    blockSelector: '[data-svc-block]',
    ignoreClass: IGNORE_CLASS,
    ignoreSelector: IGNORE_SELECTOR,
    maskTextClass: 'svc-mask',
    maskTextSelector: '[data-svc-mask]',
    maskInputOptions: EVERY_INPUT,
    maskInputFn: maskInput,
    slimDOMOptions: 'all',
    // Scroll positions at most every 150 ms: a replay interpolates between them. Typing is kept keystroke by
    // keystroke (rrweb's `input: 'last'` would record a field only when it loses focus).
    sampling: { scroll: 150, media: 800 },
    // rrweb takes the checkpoint itself, at the first change this long after the last full snapshot.
    checkoutEveryNms: CHECKPOINT_MS,
    recordCanvas: false,
    collectFonts: false,
    inlineImages: false,
    errorHandler: () => {
      guard.fault()
      return true
    },
  }
  return {
    snapshot: () => stop && guard.run(() => record.takeFullSnapshot()),
    start() {
      // rrweb returns no stop function when it cannot start; a no-op one keeps `running` honest.
      if (!stop) stop = guard.run(() => record(options)) || (() => {})
    },
    stop() {
      const running = stop
      stop = undefined
      if (running) guard.run(running)
    },
    get running() {
      return !!stop
    },
    get snapshotMs() {
      return snapshotMs
    },
  }
}
