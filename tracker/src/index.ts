/**
 * tracker.js: finds its project key and the service's address from its own
 * script tag, waits for the visitor's first interaction (an untouched page
 * records nothing), then starts the tracker and replays the commands the stub
 * queued on `svc.q`. Afterwards `svc(command, ...args)` runs commands directly.
 */
import { cachedCapture, captureKey, loadCapture } from './capture.js'
import { hookConsole, type HandOver } from './early-console.js'
import { inForeignFrame, joinPage } from './frames.js'
import { createGuard, listen } from './guard.js'
import { readScrollOf } from './recorder.js'
import { openStorage } from './storage.js'
import { startTracker, type Tracker } from './tracker.js'

const KEY = /^svc_pk_[0-9a-f]+$/
const INTERACTIONS = ['pointerdown', 'keydown', 'touchstart', 'scroll', 'mousemove']

interface SvcFunction {
  (...args: unknown[]): unknown
  q?: ArrayLike<unknown>[]
  /** Set by the stub when an interaction made it load the tracker. */
  i?: number
  /** Set once a tracker runs on this page. */
  v?: string
  /** Set by a stub that ran before <body>: every element scrolled since. */
  s?: WeakSet<EventTarget>
}

declare const __TRACKER_VERSION__: string

function ownScript(): HTMLScriptElement | null {
  const current = document.currentScript as HTMLScriptElement | null
  if (current && (current.dataset.svcKey || /tracker\.js/.test(current.src))) return current
  return document.querySelector('script[data-svc-key][src*="tracker.js"]') || document.querySelector('script[src*="tracker.js"]')
}

/** The service's base address: the script address without `/tracker.js` (or `/api/tracker.js`, `/api/v1/tracker.js`). */
export const serviceOrigin = (src: string) => src.replace(/[?#].*$/, '').replace(/\/(api\/(v1\/)?)?tracker\.js$/, '')

function main(): void {
  const w = window as unknown as { svc?: SvcFunction }
  const previous = w.svc
  if (previous && previous.v) return // already running (the snippet pasted twice)
  const script = ownScript()
  if (!script || !script.src) return
  const publicKey = script.dataset.svcKey || new URL(script.src).searchParams.get('key') || ''
  if (!KEY.test(publicKey)) return

  const guard = createGuard()
  // Console capture on (as cached by an earlier page load): keep the console from now, before capture.js runs.
  const early: HandOver | undefined = guard.run(() => (cachedCapture(openStorage(), captureKey(publicKey))?.c.console ? hookConsole() : undefined))
  const queued: ArrayLike<unknown>[] = previous && previous.q ? Array.from(previous.q) : []
  if (previous && previous.s) readScrollOf(previous.s)
  let tracker: Tracker | undefined

  const svc: SvcFunction = function (...args: unknown[]) {
    return guard.run(() => {
      if (!tracker) {
        if (args[0] === 'stats') return { started: false, faults: guard.faults }
        queued.push(args)
        return undefined
      }
      return tracker.command(String(args[0]), args.slice(1))
    })
  }
  svc.q = queued
  svc.v = typeof __TRACKER_VERSION__ === 'string' ? __TRACKER_VERSION__ : 'dev'
  w.svc = svc

  const origin = serviceOrigin(script.src)
  let offAsks = () => {}
  const start = guard.wrap(() => {
    if (tracker) return
    offAsks()
    for (const type of INTERACTIONS) removeEventListener(type, interacted, true)
    tracker = startTracker({ origin, publicKey, guard, nonce: script.nonce, early })
    for (const args of queued.splice(0)) guard.run(() => tracker!.command(String(args[0]), Array.prototype.slice.call(args, 1)))
  })
  // In a frame of another origin the page around may record this frame in place (frames.ts): it decides first.
  const frame = inForeignFrame()
    ? joinPage(guard, publicKey, (onKnown) => loadCapture(openStorage(), captureKey(publicKey), `${origin}/api/capture?pk=${encodeURIComponent(publicKey)}`, guard, onKnown), start)
    : undefined
  const interacted = guard.wrap(() => {
    for (const type of INTERACTIONS) removeEventListener(type, interacted, true)
    if (frame) frame.interacted()
    else start()
  })
  // The visitor's first interaction in one of this page's frames starts the tracker as one in the page does.
  offAsks = listen(guard, window, 'message', (message: MessageEvent) => {
    const data = message.data
    if (data && data.svc === 'f?' && data.i && data.k === publicKey && Array.from(document.getElementsByTagName('iframe')).some((f) => f.contentWindow === message.source)) start()
  })

  if (previous && previous.i) interacted()
  else for (const type of INTERACTIONS) addEventListener(type, interacted, { capture: true, passive: true })
}

try {
  main()
} catch {
  // Nothing the tracker does may break the page, its start included.
}
