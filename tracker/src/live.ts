/**
 * Sending more often while someone follows this session live: a chunk's
 * answer says `watched`, and chunks then go every LIVE_FLUSH_MS instead of
 * every FLUSH_INTERVAL_MS, until an answer no longer says so or LIVE_HOLD_MS
 * pass without one that does. Nothing runs for a visitor nobody follows.
 */
import { LIVE_FLUSH_FLOOR_MS, LIVE_FLUSH_MS, LIVE_HOLD_MS } from './config.js'
import type { Guard } from './guard.js'

export function liveFlushing(guard: Guard, flush: () => void) {
  let timer: ReturnType<typeof setInterval> | undefined
  let every = 0
  let until = 0
  const end = () => {
    if (timer !== undefined) clearInterval(timer)
    timer = undefined
  }
  return {
    told(watched: boolean, flushMs = LIVE_FLUSH_MS): void {
      if (!watched) return end()
      until = Date.now() + LIVE_HOLD_MS
      // The service names the pace (LIVE_FLUSH_MS); no answer makes a visitor's page send more than once a second.
      const wanted = Math.max(LIVE_FLUSH_FLOOR_MS, Math.min(flushMs, LIVE_HOLD_MS))
      if (timer !== undefined && wanted === every) return
      end()
      every = wanted
      timer = setInterval(guard.wrap(() => (Date.now() > until ? end() : flush())), every)
    },
    stop: end,
    /** Whether someone follows the session now (the last answer said so, within the hold). */
    get watched() {
      return timer !== undefined && Date.now() <= until
    },
  }
}
