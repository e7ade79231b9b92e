/**
 * Console capture (capture.js): `console.log/info/warn/error/debug` and
 * uncaught errors, as rrweb console-plugin events. Each wrapper calls the
 * page's console first, with the same `this` and arguments, and returns its
 * result (a throw from it reaches the page exactly as before, and is not
 * recorded); recording happens after, guarded. Over CONSOLE_PER_SECOND a
 * call only counts. A wrapper the page has since replaced is left alone at
 * stop (the page's own override keeps working) and records nothing more.
 */
import { CONSOLE_ARGS, CONSOLE_PER_SECOND } from './config.js'
import { CONSOLE_PLUGIN, type CaptureHost } from './capture-host.js'
import { listen, type Off } from './guard.js'
import { collectSecrets } from './secrets.js'
import { serialize, stackOf } from './serialize.js'

const LEVELS = ['log', 'info', 'warn', 'error', 'debug'] as const

export function captureConsole(host: CaptureHost): Off {
  const target = console as unknown as Record<string, (...args: unknown[]) => unknown>
  let stopped = false
  let busy = false
  let second = 0
  let count = 0
  let skipped = 0

  const emit = (level: string, payload: string[], trace: string[] = []) =>
    host.emit({ type: 6, timestamp: Date.now(), data: { plugin: CONSOLE_PLUGIN, payload: { level, trace, payload } } }, level === 'error' ? 1 : undefined)

  /** Whether one more event fits this second; opens a new second with a line for what the last one left out. */
  const admit = () => {
    const now = Date.now()
    if (now - second >= 1000) {
      if (skipped) emit('warn', [JSON.stringify(`[svc] ${skipped} console messages not recorded (over ${CONSOLE_PER_SECOND} a second)`)])
      second = now
      count = 0
      skipped = 0
    }
    if (count++ < CONSOLE_PER_SECOND) return true
    skipped++
    return false
  }

  const record = host.guard.wrap((level: string, args: unknown[], error?: unknown) => {
    // A getter or toJSON that logs while we serialise must not recurse into us.
    if (stopped || busy || !admit()) return
    busy = true
    try {
      const secrets = collectSecrets()
      emit(level, args.slice(0, CONSOLE_ARGS).map((arg) => serialize(arg, secrets)), stackOf(error ?? (level === 'error' ? new Error() : undefined), secrets))
    } finally {
      busy = false
    }
  })

  const restores: Off[] = []
  for (const level of LEVELS) {
    const original = target[level]
    if (typeof original !== 'function') continue
    const wrapper = function (this: unknown, ...args: unknown[]) {
      const result = original.apply(this, args)
      record(level, args)
      return result
    }
    target[level] = wrapper
    restores.push(() => {
      if (target[level] === wrapper) target[level] = original
    })
  }

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

