/**
 * Frames of another origin, recorded in place (issue 46). The page cannot read
 * such a frame's document, so the tracker in the frame records it and hands
 * each event to the tracker in the page, which keeps it in its own recording
 * as a custom event `svc.frame` naming the frame element; the events API turns
 * those into rrweb's events for a frame's document (src/recordings/frame-events.ts).
 *
 * Messages, each with the project's public key as `k`:
 * - frame to page, `{svc: 'f?'}`: record me (at load; `i` at the visitor's first interaction in the frame, which
 *   starts the page's tracker as one in the page would);
 * - page to frame, `{svc: 'f!'}`: record into me, from a full snapshot (the answer, and at each of the page's own);
 *   `{svc: 'f-'}` instead while the page view is not recorded (sampled out, excluded): record nothing;
 * - frame to page, `{svc: 'f', e, r}`: one rrweb event, `r` the id of the frame's document in the frame's recording.
 *
 * The frame's recording goes only to a page whose origin the project lists in `frameParents`, posted to that origin
 * alone. The page takes events only from windows of its own frame elements. A frame recorded in place sends nothing
 * to the service itself: its clicks and views belong to the page's session.
 */
import type { CaptureSource } from './capture.js'
import { listen, type Guard, type Off } from './guard.js'
import { isBlocked, isMasked } from './mask.js'
import { createRecorder, type RecordedEvent, type Recorder } from './recorder.js'

/** How long a frame waits, after the visitor's first interaction in it, for its page to ask before it records on its own. */
const JOIN_WAIT_MS = 1_000

interface Message {
  svc?: string
  k?: string
  i?: number
  e?: RecordedEvent
  r?: number
}

/** The page's side: answers frames that ask, tells every frame at each full snapshot and when recording stops, and keeps what they send. */
export function hostFrames(guard: Guard, key: string, recorder: Pick<Recorder, 'id' | 'running'>, push: (event: RecordedEvent) => void): { tell(recording: boolean): void; off: Off } {
  // A frame the page blocks or masks (svc-block, svc-mask, on it or around it) stays out of the recording, as its
  // element's content would.
  const hidden = (frame: Element) => isBlocked(frame) || isMasked(frame)
  // `f-` while this page view is not recorded: a frame of it records nothing either.
  const ask = (frame: HTMLIFrameElement, origin = '*', recording = recorder.running) => frame.contentWindow?.postMessage({ svc: recording && !hidden(frame) ? 'f!' : 'f-', k: key }, origin)
  const frames = () => Array.from(document.getElementsByTagName('iframe'))
  const off = listen(guard, window, 'message', (message: MessageEvent<Message>) => {
    const data = message.data
    if (!data || data.k !== key) return
    const frame = frames().find((f) => f.contentWindow === message.source)
    if (!frame) return
    if (data.svc === 'f?') ask(frame, message.origin)
    if (!recorder.running || hidden(frame)) return
    const e = data.e
    const id = recorder.id(frame)
    if (data.svc === 'f' && id > 0 && e && typeof e.type === 'number' && typeof e.timestamp === 'number') push({ type: 5, timestamp: e.timestamp, data: { tag: 'svc.frame', payload: { f: id, r: data.r, e } } })
  })
  // A checkpoint replays on its own: each frame sends its document again after the page's. (Said by the caller:
  // rrweb emits the first full snapshot before the recorder counts as running.)
  return { tell: (recording) => frames().forEach((frame) => guard.run(() => ask(frame, '*', recording))), off }
}

/** Whether this document is a frame the page around it cannot read (another origin). */
export function inForeignFrame(): boolean {
  if (parent === window) return false
  try {
    return !parent.location.href
  } catch {
    return true // reading the page's address throws across origins
  }
}

/**
 * The frame's side: records into the page when the page asks and the project lists its origin (the settings are
 * read at the page's first answer); `own` starts the frame's own tracker instead when the visitor interacts in the
 * frame and no allowed page has answered within JOIN_WAIT_MS. A page that answers but does not record (its session
 * sampled out, the page excluded) keeps the frame from recording too: the frame is part of the page's session.
 */
export function joinPage(guard: Guard, key: string, settings: (onKnown: () => void) => CaptureSource, own: () => void): { interacted(): void } {
  /** The page's origin once joined; 'own' once the frame records on its own. */
  let origin = ''
  let asked = ''
  /** The page's last answer: record (f!) or not (f-). */
  let wanted = false
  let interacted = false
  let capture: CaptureSource | undefined
  let recorder: Recorder | undefined
  const post = (message: Message, to = '*') => parent.postMessage({ ...message, k: key }, to)
  const alone = () => {
    if (origin) return
    origin = 'own'
    own()
  }
  const decide = () => {
    const allowed = capture?.current?.frameParents
    if (origin || !allowed) return
    // Known not to be allowed: the visitor who interacted is recorded without waiting out JOIN_WAIT_MS.
    if (allowed.indexOf(asked) < 0) return interacted && alone()
    origin = asked
    record()
  }
  const record = () => {
    if (!wanted) return recorder?.stop()
    recorder ??= createRecorder(guard, (e) => {
      // Meta and the viewport are the page's; the frame's size is its element's.
      if (e.type === 2 || (e.type === 3 && e.data.source !== 4)) post({ svc: 'f', e, r: recorder!.id(document) }, origin)
    })
    if (recorder.running) recorder.snapshot()
    else recorder.start() // which begins with a full snapshot
  }
  listen(guard, window, 'message', (message: MessageEvent<Message>) => {
    const svc = message.data?.svc
    if (message.source !== parent || (svc !== 'f!' && svc !== 'f-') || message.data.k !== key) return
    wanted = svc === 'f!'
    if (origin) return message.origin === origin && record()
    asked = message.origin
    capture ??= settings(decide)
    decide()
  })
  post({ svc: 'f?' })
  return {
    interacted() {
      if (origin) return
      interacted = true
      post({ svc: 'f?', i: 1 })
      if (asked) decide()
      setTimeout(guard.wrap(alone), JOIN_WAIT_MS)
    },
  }
}
