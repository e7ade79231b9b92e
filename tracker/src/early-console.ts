/**
 * The console before capture.js runs. When the cached settings say console
 * capture is on, tracker.js wraps the console levels as soon as it runs and
 * keeps the last EARLY_CONSOLE_CALLS calls (level, time, the arguments by
 * reference; an error's stack taken at the call), so that capture.js, a round
 * trip later, records them with their own times and then takes over. Each
 * wrapper calls the page's console first, with the same `this` and arguments,
 * and returns its result; what it adds cannot throw into the page.
 */
import { EARLY_CONSOLE_CALLS } from './config.js'

export const CONSOLE_LEVELS = ['log', 'info', 'warn', 'error', 'debug'] as const

/** One console call: level, epoch ms, arguments, and for `console.error` an Error made at the call (its stack). */
export type EarlyCall = [level: string, at: number, args: unknown[], error?: Error]

/** Stops buffering, unwraps the console where no one wrapped it since, and returns the calls kept. */
export type HandOver = () => EarlyCall[]

export function hookConsole(): HandOver {
  const target = console as unknown as Record<string, (...args: unknown[]) => unknown>
  const calls: EarlyCall[] = []
  const restores: (() => void)[] = []
  let on = true
  for (const level of CONSOLE_LEVELS) {
    const original = target[level]
    if (typeof original !== 'function') continue
    const wrapper = function (this: unknown) {
      const at = Date.now() // the call's time, not its return's
      // eslint-disable-next-line prefer-rest-params
      const result = original.apply(this, arguments as unknown as unknown[])
      try {
        // eslint-disable-next-line prefer-rest-params
        if (on && calls.push([level, at, Array.prototype.slice.call(arguments), level === 'error' ? new Error() : undefined]) > EARLY_CONSOLE_CALLS) calls.shift()
      } catch {
        // Keeping a call must never reach the page: this one is simply not kept.
      }
      return result
    }
    target[level] = wrapper
    // A wrapper the page wrapped since stays, as a plain pass-through, so the page's own override keeps working.
    restores.push(() => target[level] === wrapper && (target[level] = original))
  }
  return () => {
    on = false
    restores.forEach((restore) => restore())
    return calls.splice(0)
  }
}
