/**
 * rrweb recording: one full DOM snapshot, then the stream of changes (never
 * video). Masking options come from mask.ts; every event is scrubbed before it
 * is handed on. rrweb's own callbacks report faults through `errorHandler`,
 * which counts and swallows them. The full snapshot is taken in time slices
 * (snapshot.ts); what rrweb emits meanwhile is held and handed on after it.
 */
import { record } from '@rrweb/record'
import type { Guard } from './guard.js'
import { CHECKPOINT_MS, SNAPSHOT_SLICE_MS, SNAPSHOT_SMALL_PAGE } from './config.js'
import { BLOCK_CLASS, IGNORE_CLASS, IGNORE_SELECTOR, maskInput, scrubEvent } from './mask.js'
import { createWalker, type Slicing } from './snapshot.js'
import { recordPointerEnd, type PointerEnd } from './pointer-end.js'
import type { LinkTexts } from './styles.js'

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
  /** Milliseconds the first full snapshot took on the main thread, all its slices together. */
  readonly snapshotMs: number
  /** The longest slice of any full snapshot so far, in milliseconds: what the page waited for at most. */
  readonly sliceMs: number
  /** rrweb's id of `node`, -1 when the recording does not hold it. */
  id(node: Node): number
}

/** Every input type routes through maskInput, which decides per element. */
const EVERY_INPUT: Record<string, boolean> = { input: true, textarea: true, select: true, password: true }
for (const type of 'color date datetime-local email month number range search tel text time url week'.split(' ')) EVERY_INPUT[type] = true

/** The edited rrweb's hooks (tracker/tsup.config.ts): a linked stylesheet's text; whether to read an element's scroll. */
type EditedRecord = typeof record & { linkText?: LinkTexts['link']; scrolled?: (element: Element) => boolean }

/**
 * A scroll position costs a layout check to read (about 2 µs in Chromium: 4-7 ms a snapshot of 2,000 elements), and
 * nearly every one is 0. Given the stub's set of the elements scrolled since before <body>, a snapshot reads those
 * alone, and what the set cannot see: other documents' and shadow trees' elements (a scroll event is not composed),
 * the root and the body.
 */
export function readScrollOf(scrolled: WeakSet<EventTarget>): void {
  ;(record as EditedRecord).scrolled = (element) => scrolled.has(element) || element.getRootNode() !== document || element === document.documentElement || element === document.body
}

/** rrweb's StyleSheetRule and StyleDeclaration events: a sheet changed through the CSSOM. */
const SHEET_CHANGES = new Set([8, 13])

/**
 * `links`: where linked stylesheets' texts come from (styles.ts; without it, rrweb's own). `sliceMs` and `smallPage`:
 * the walk's time slice and the page size it walks in one go (a test makes both 0).
 */
export function createRecorder(guard: Guard, onEvent: (event: RecordedEvent) => void, links?: LinkTexts, sliceMs = SNAPSHOT_SLICE_MS, smallPage = SNAPSHOT_SMALL_PAGE): Recorder {
  const lookup = (id: number) => record.mirror.getNode(id) as Node | null
  let snapshotMs = -1
  let longestSlice = 0
  let stop: (() => void) | undefined
  /** What rrweb emitted while a snapshot was walked: after it in the recording, so that a replay applies it to the new tree. */
  let held: RecordedEvent[] = []
  /** The tree the walker had scrubbed before rrweb emits it. */
  let scrubbed: unknown
  const walker = createWalker(guard, record as typeof record & Slicing, {
    sliceMs,
    smallPage,
    ready(tree) {
      scrubEvent({ type: 2, data: { node: tree } }, lookup)
      scrubbed = tree
    },
    end(workMs, longestMs) {
      if (snapshotMs < 0) snapshotMs = workMs
      longestSlice = Math.max(longestSlice, longestMs)
      // Stamped now, after the snapshot's: a replay orders by time, and the chunk's times stay in order.
      const now = Date.now()
      for (const event of held.splice(0)) {
        event.timestamp = now
        onEvent(event)
      }
    },
  })
  let pointer: PointerEnd | undefined
  /** rrweb's id of the element that has the focus (inside shadow roots too), or 0 for none or the document's body. */
  const focusedId = (): number => {
    let element = document.activeElement
    while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement
    if (!element || element === document.body || element === document.documentElement) return 0
    return Math.max(0, record.mirror.getId(element))
  }
  const options: Parameters<typeof record>[0] = {
    emit: guard.wrap((event: any) => {
      if (event.type === 3 && event.data.source === 1) {
        const last = event.data.positions[event.data.positions.length - 1]
        if (last) pointer?.recorded(last.x, last.y)
      }
      if (event.type !== 2 || event.data.node !== scrubbed) scrubEvent(event, lookup)
      if (event.type === 3 && SHEET_CHANGES.has(event.data.source)) links?.changed((lookup(event.data.id) as HTMLLinkElement | null)?.sheet)
      const hand = (out: RecordedEvent) => (walker.busy ? held.push(out) : onEvent(out))
      hand(event)
      // A replay knows the focus only from Focus interactions, and a page load or checkpoint starts with none: the
      // field focused before (autofocus, or before the tracker loaded) is said again after each full snapshot.
      const focused = event.type === 2 && focusedId()
      if (focused) hand({ type: 3, timestamp: event.timestamp, data: { source: 2, type: 5, id: focused } })
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
    id: (node) => record.mirror.getId(node),
    start() {
      // rrweb returns no stop function when it cannot start; a no-op one keeps `running` honest.
      if (stop) return
      ;(record as EditedRecord).linkText = links?.link
      stop = guard.run(() => record(options)) || (() => {})
      pointer = recordPointerEnd(guard, (node) => record.mirror.getId(node), options.emit!)
    },
    stop() {
      const running = stop
      stop = undefined
      pointer?.off()
      pointer = undefined
      ;(record as EditedRecord).linkText = undefined
      if (running) {
        walker.cancel()
        held = []
        guard.run(running)
      }
    },
    get running() {
      return !!stop
    },
    get snapshotMs() {
      return snapshotMs
    },
    get sliceMs() {
      return longestSlice
    },
  }
}
