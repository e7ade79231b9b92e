/**
 * The page's JavaScript errors and unhandled promise rejections (contract,
 * section 2, "Error entry"). The tracker only listens: it never changes how
 * the page's errors surface. Resource load errors (an <img> 404) are not
 * script errors and do not reach a bubbling window listener.
 */
import { MAX_TEXT, SAME_ERROR_LIMIT } from './config.js'
import { listen, type Guard, type Off } from './guard.js'
import type { ErrorSignal } from './signals.js'

function describe(reason: unknown): string {
  if (reason instanceof Error) return `${reason.name}: ${reason.message}`
  if (typeof reason === 'string') return reason
  try {
    return JSON.stringify(reason) ?? String(reason)
  } catch {
    return Object.prototype.toString.call(reason) // a cyclic or hostile object: its type is all we say
  }
}

export function trackErrors(guard: Guard, emit: (error: ErrorSignal) => void, onError: () => void): Off {
  const seen = new Map<string, number>()
  const report = (message: string) => {
    const text = (message || 'Unknown error').slice(0, MAX_TEXT)
    const times = (seen.get(text) ?? 0) + 1
    seen.set(text, times)
    onError()
    // A handler that throws on every frame must not fill the batch with one message.
    if (times <= SAME_ERROR_LIMIT) emit({ url: location.href.slice(0, 2000), ts: Date.now(), message: text })
  }
  const offError = listen(guard, window, 'error', (event: ErrorEvent) => report(event.message || (event.error ? describe(event.error) : '')), { passive: true })
  const offRejection = listen(guard, window, 'unhandledrejection', (event: PromiseRejectionEvent) => report('Unhandled rejection: ' + describe(event.reason)), { passive: true })
  return () => {
    offError()
    offRejection()
  }
}
