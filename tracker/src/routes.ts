/**
 * Client-side routes (contract, section 1, rule 6): `history.pushState` and
 * `replaceState` are wrapped and `popstate` is heard, so that every route is a
 * page view. Only a change of path or query is a new route; a hash change
 * (an in-page anchor) is not. The wrappers call the original first and return
 * its result, so the page sees history exactly as before.
 */
import { listen, type Guard, type Off } from './guard.js'

export type RouteCause = 'push' | 'replace' | 'pop'

const routeOf = (href: string) => href.split('#')[0]

export function watchRoutes(guard: Guard, onRoute: (cause: RouteCause, previousUrl: string) => void): Off {
  let last = routeOf(location.href)
  const check = guard.wrap((cause: RouteCause) => {
    const next = routeOf(location.href)
    if (next === last) return
    const previous = last
    last = next
    onRoute(cause, previous)
  })

  const patch = (name: 'pushState' | 'replaceState', cause: RouteCause) => {
    const original = history[name]
    const wrapped = function (this: History, ...args: Parameters<History['pushState']>) {
      const result = original.apply(this, args)
      check(cause)
      return result
    }
    history[name] = wrapped
    // Unpatch only if no one wrapped it after us (their wrapper would otherwise be lost).
    return () => {
      if (history[name] === wrapped) history[name] = original
    }
  }
  const offs = [patch('pushState', 'push'), patch('replaceState', 'replace'), listen(guard, window, 'popstate', () => check('pop'))]
  return () => offs.forEach((off) => off())
}
