/**
 * Console capture (capture.js): `console.log/info/warn/error/debug` and
 * uncaught errors, as rrweb console-plugin events. Each wrapper calls the
 * page's console first, with the same `this` and arguments, and returns its
 * result (a throw from it reaches the page exactly as before, and is not
 * recorded); recording happens after, guarded. Over CONSOLE_PER_SECOND a
 * call only counts. A wrapper the page has since replaced is left alone at
 * stop (the page's own override keeps working) and records nothing more.
 * The calls tracker.js kept before this ran (early-console.ts) are recorded
 * first, with their own times, and its hook steps aside.
 */
import { CONSOLE_ARGS, CONSOLE_PER_SECOND } from './config.js'
import { CONSOLE_PLUGIN, type CaptureHost } from './capture-host.js'
import { CONSOLE_LEVELS } from './early-console.js'
import { firstTime } from './first-time.js'
import { listen, type Off } from './guard.js'
import { collectSecrets } from './secrets.js'
import { serialize, stackOf } from './serialize.js'

export function captureConsole(host: CaptureHost): Off {
  const target = console as unknown as Record<string, (...args: unknown[]) => unknown>
  let stopped = false
  let busy = false
  let second = 0
  let count = 0
  let skipped = 0
  const fresh = firstTime()

  /** `own`: the tracker's own line, which search must not find. */
  const emit = (level: string, payload: string[], trace: string[] = [], timestamp = Date.now(), own?: boolean) => {
    // Errors and warnings are searchable, by the text the event holds (string arguments unquoted), each the first time.
    const text = !own && (level === 'error' || level === 'warn') ? payload.map((arg) => (arg[0] === '"' ? JSON.parse(arg) : arg)).join(' ').slice(0, 256) : ''
    host.emit({ type: 6, timestamp, data: { plugin: CONSOLE_PLUGIN, payload: { level, trace, payload } } }, level === 'error' ? 1 : undefined, text && fresh(text) ? { ts: timestamp, level: level as 'error' | 'warn', text } : undefined)
  }

  /** Whether one more event at `now` fits its second; opens a new second with a line for what the last one left out. */
  const admit = (now: number) => {
    if (now - second >= 1000) {
      if (skipped) emit('warn', [JSON.stringify(`[svc] ${skipped} console messages not recorded (over ${CONSOLE_PER_SECOND} a second)`)], [], now, true)
      second = now
      count = 0
      skipped = 0
    }
    if (count++ < CONSOLE_PER_SECOND) return true
    skipped++
    return false
  }

  /** `at`: when the call was made, for those tracker.js kept before this ran (early-console.ts), which share one `known` set of secrets. */
  const record = host.guard.wrap((level: string, args: unknown[], error?: unknown, at: number = Date.now(), known?: string[]) => {
    // A getter or toJSON that logs while we serialise must not recurse into us.
    if (stopped || busy || !admit(at)) return
    busy = true
    try {
      const secrets = known || collectSecrets()
      emit(level, args.slice(0, CONSOLE_ARGS).map((arg) => serialize(arg, secrets)), stackOf(error ?? (level === 'error' ? new Error() : undefined), secrets), at)
    } finally {
      busy = false
    }
  })

  // tracker.js's early hook steps aside first, so the wrappers below call the page's console itself.
  const early = host.early ? host.early() : []
  const restores: Off[] = []
  for (const level of CONSOLE_LEVELS) {
    const original = target[level]
    if (typeof original !== 'function') continue
    const wrapper = function (this: unknown, ...args: unknown[]) {
      // The time of the call, not of the page's console returning (a stalled DevTools or override can take a while).
      const at = Date.now()
      const result = original.apply(this, args)
      record(level, args, undefined, at)
      return result
    }
    target[level] = wrapper
    restores.push(() => {
      if (target[level] === wrapper) target[level] = original
    })
  }

  // Recorded now, at the times they were made, within the same per-second bound; the page's masked values are
  // read once for all of them (up to 100 walks of the document on capture.js's start otherwise).
  const known = early.length ? collectSecrets() : undefined
  for (const [level, at, args, error] of early) record(level, args, error, at, known)

  const uncaught = (message: string, error: unknown) => record('error', [message], error)
  restores.push(
    // Chromium's message already says "Uncaught …"; Firefox's and Safari's do not.
    listen(host.guard, window, 'error', (event: ErrorEvent) => uncaught((event.message || String(event.error)).replace(/^(?!Uncaught )/, 'Uncaught '), event.error), { passive: true }),
    listen(host.guard, window, 'unhandledrejection', (event: PromiseRejectionEvent) => uncaught(`Uncaught (in promise) ${event.reason instanceof Error ? `${event.reason.name}: ${event.reason.message}` : serialize(event.reason, collectSecrets())}`, event.reason), { passive: true }),
  )
  return () => {
    stopped = true
    for (const restore of restores) host.guard.run(restore)
  }
}

