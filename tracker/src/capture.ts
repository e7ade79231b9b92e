/**
 * The project's capture settings and the decision they make for each chunk:
 * send, hold, or drop. The settings come from `GET /api/capture`, cached in
 * storage for CAPTURE_FRESH_MS, so most page loads use the previous load's
 * copy and make no request; the fetch never delays the page or the recording,
 * only the first upload, which waits for an answer (a chunk is held, not
 * sent, while the settings are unknown: an excluded page must not leak
 * before the tracker knows it is excluded).
 */
import type { CaptureSettings } from '../../src/schemas/types.js'
import { CAPTURE_FRESH_MS } from './config.js'
import type { Guard } from './guard.js'
import type { KeyValue } from './storage.js'

export type Capture = CaptureSettings

/** What to do with a chunk: 0 send it, 1 hold it until later, 2 or more drop it (2 sampled out, 3 excluded URL, 4 before the trigger: LEFT_OUT names them). */
export type Verdict = 0 | 1 | 2 | 3 | 4

/** The loss reason the server keeps (RecordingLoss) for each dropping verdict. */
export const LEFT_OUT = ['', '', 'sampled_out', 'excluded', 'before_trigger'] as const

/** A path rule (`/docs/*`, `/{tenant}/settings`), matched as the server groups pages: `{name}` is one segment, a final `*` any deeper path and the bare prefix. */
export function matches(pattern: string, url: string): boolean {
  try {
    const want = pattern.replace(/\/$/, '').split('/')
    const have = new URL(url).pathname.replace(/\/$/, '').split('/')
    const rest = want[want.length - 1] === '*' && !!want.pop()
    return (rest ? have.length >= want.length : have.length === want.length) && want.every((part, i) => part[0] === '{' || part === have[i] || part === decodeURIComponent(have[i]))
  } catch {
    return false // a malformed URL or escape matches nothing
  }
}

export const anyMatch = (patterns: string[], url: string) => patterns.some((p) => matches(p, url))

export interface CaptureSource {
  /** The settings, once known. */
  readonly current: Capture | undefined
  /** Fetches them again if they are missing or stale (at most one request at a time). */
  refresh(): void
}

/** Where a project's settings are cached: the end of its public key keeps two projects on one site apart. */
export const captureKey = (publicKey: string) => `svc_c_${publicKey.slice(-12)}`

/** The cached settings and when they were fetched, if any copy is readable. */
export function cachedCapture(store: KeyValue, key: string): { c: Capture; t: number } | undefined {
  try {
    const cached = JSON.parse(store.get(key) || 'null')
    return cached && cached.c ? cached : undefined
  } catch {
    return undefined // unreadable: fetched like a first visit
  }
}

export function loadCapture(store: KeyValue, key: string, url: string, guard: Guard, onKnown: (capture: Capture) => void): CaptureSource {
  const cached = cachedCapture(store, key)
  let current = cached?.c
  let at = cached?.t || 0
  let pending = false
  const refresh = () => {
    if (pending || Date.now() - at < CAPTURE_FRESH_MS) return
    pending = true
    fetch(url)
      .then((res) => (res.ok ? res.json() : undefined))
      .then(
        guard.wrap((capture?: Capture) => {
          if (!capture || !Array.isArray(capture.triggerUrls)) return
          current = capture
          at = Date.now()
          store.set(key, JSON.stringify({ t: at, c: capture }), 7 * 86400)
          onKnown(capture)
        }),
      )
      .catch(guard.fault)
      .finally(() => (pending = false))
  }
  refresh()
  return {
    get current() {
      return current
    },
    refresh,
  }
}

/**
 * The verdict for a chunk of page view `ctx`: `u` is the session's sampling draw (0–1, drawn once per
 * session), `triggeredAt` the page index at which the session first met a trigger URL.
 */
export function verdict(capture: Capture | undefined, ctx: { url: string; startedAt: number; pageIndex: number }, u: number, triggeredAt: number | undefined): Verdict {
  if (!capture) return 1
  if (u >= capture.sampleRate) return 2
  if (anyMatch(capture.excludeUrls, ctx.url)) return 3
  if (capture.triggerUrls.length && !(ctx.pageIndex >= (triggeredAt ?? Infinity))) return 4
  return Date.now() - ctx.startedAt < capture.minDurationMs ? 1 : 0
}
