/**
 * The tracker is a guest in someone else's page: nothing it does may throw
 * into the page. Every callback the tracker hands to the browser (listeners,
 * timers, promise handlers, rrweb's emit) goes through `wrap`, which swallows
 * a fault and counts it (the count is readable with `svc("stats")`).
 */
export interface Guard {
  /** `fn`, made safe: a throw inside it is counted and swallowed. */
  wrap<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R | undefined
  /** Runs `fn` now, safely. */
  run<R>(fn: () => R): R | undefined
  /** Counts a fault caught elsewhere (a rejected promise). */
  fault(error?: unknown): void
  readonly faults: number
}

export function createGuard(): Guard {
  let faults = 0
  const fault = () => {
    faults++
  }
  const wrap = <A extends unknown[], R>(fn: (...args: A) => R) =>
    function (this: unknown, ...args: A): R | undefined {
      try {
        return fn.apply(this, args)
      } catch (error) {
        // Swallowed on purpose: a tracker fault must never surface in the page.
        fault()
        return undefined
      }
    }
  return {
    wrap,
    run: (fn) => wrap(fn)(),
    fault,
    get faults() {
      return faults
    },
  }
}

export type Off = () => void

/** Adds a guarded listener and returns the function that removes it. */
export function listen(guard: Guard, target: EventTarget, type: string, fn: (event: any) => void, options: AddEventListenerOptions = { capture: true, passive: true }): Off {
  const safe = guard.wrap(fn)
  target.addEventListener(type, safe, options)
  return () => target.removeEventListener(type, safe, options)
}
