/**
 * tracker.js: finds its project key and the service's address from its own
 * script tag, waits for the visitor's first interaction (an untouched page
 * records nothing), then starts the tracker and replays the commands the stub
 * queued on `svc.q`. Afterwards `svc(command, ...args)` runs commands directly.
 */
import { cachedCapture, captureKey } from './capture.js'
import { hookConsole, type HandOver } from './early-console.js'
import { createGuard } from './guard.js'
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

  const start = guard.wrap(() => {
    if (tracker) return
    for (const type of INTERACTIONS) removeEventListener(type, start, true)
    tracker = startTracker({ origin: serviceOrigin(script.src), publicKey, guard, nonce: script.nonce, early })
    for (const args of queued.splice(0)) guard.run(() => tracker!.command(String(args[0]), Array.prototype.slice.call(args, 1)))
  })

  if (previous && previous.i) start()
  else for (const type of INTERACTIONS) addEventListener(type, start, { capture: true, passive: true })
}

try {
  main()
} catch {
  // Nothing the tracker does may break the page, its start included.
}
