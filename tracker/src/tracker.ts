/**
 * Wires the modules together for one page: the recording, its chunks, the
 * signals, page views, routes, sessions and the page lifecycle. Each module
 * takes what it needs as arguments; this file owns only the order of things
 * when a page view or a session changes.
 */
import { anyMatch, captureKey, LEFT_OUT, loadCapture, verdict } from './capture.js'
import type { CaptureHost } from './capture-host.js'
import { createChunks, type PageContext } from './chunks.js'
import { trackClicks } from './clicks.js'
import { liveFlushing } from './live.js'
import { CHECKPOINT_BYTES, FLUSH_INTERVAL_MS, INTERNAL_NAV_MS, MAX_URL, QUICK_BACK_MS } from './config.js'
import type { HandOver } from './early-console.js'
import { trackErrors } from './errors.js'
import { hostFrames } from './frames.js'
import { listen, type Guard, type Off } from './guard.js'
import { heldChunks } from './held.js'
import { createRecorder } from './recorder.js'
import { watchRoutes } from './routes.js'
import { cleanIdentity, createSessions } from './session.js'
import { createSignals } from './signals.js'
import { openStorage } from './storage.js'
import { createTransport } from './transport.js'
import { trackViews } from './views.js'

export interface TrackerOptions {
  /** Where the service is: `{origin}/api/ingest`, `{origin}/api/signals`. */
  origin: string
  publicKey: string
  guard: Guard
  /** The CSP nonce of tracker.js's own script tag, passed on to capture.js. */
  nonce?: string
  /** The console calls kept since tracker.js ran (early-console.ts), for capture.js. */
  early?: HandOver
}

export interface Tracker {
  command(name: string, args: unknown[]): unknown
  stop(): void
}

/** rrweb incremental sources that show the page answered: mutation, scroll, input, media, style sheet and style changes. */
const ANSWERS = new Set([0, 3, 5, 7, 8, 13])

const sameSite = (url: string) => {
  try {
    return new URL(url, location.href).origin === location.origin
  } catch {
    return false
  }
}

export function startTracker({ origin, publicKey, guard, nonce, early }: TrackerOptions): Tracker {
  const now = () => performance.now()
  const store = openStorage()
  const namespace = publicKey.slice(-12)
  const sessions = createSessions(store, namespace)
  const offs: Off[] = []
  let stopped = false
  let lastInternalNav = -Infinity
  let lastLinkClick: { at: number; event: MouseEvent } | undefined
  let quickBack = false

  const transport = createTransport({ origin, publicKey, guard, onGone: () => stop(), onWatched: (watched, flushMs) => live.told(watched, flushMs) })

  const newContext = (): PageContext => {
    const session = sessions.current()
    return { sk: session.sk, vid: session.vid, startedAt: session.startedAt, pageIndex: sessions.nextPage(), url: location.href, u: session.u }
  }
  sessions.touch() // the interaction that started the tracker is activity
  let ctx = newContext()
  /** A page view on a trigger URL starts the session's recording from there (once the settings are known). */
  const markTrigger = () => {
    const settings = capture.current
    if (settings && anyMatch(settings.triggerUrls, ctx.url)) sessions.trigger(ctx.sk, ctx.pageIndex)
  }
  let host: CaptureHost | undefined
  /** Console, network or canvas capture on: load capture.js (once), which records through `host` into this recording. */
  const loadExtras = () => {
    const settings = capture.current
    if (host || stopped || !settings) return
    // An unsampled session records nothing, console and network included.
    const wanted = ctx.u < settings.sampleRate
    if (early && !(wanted && settings.console)) {
      early() // no console capture to hand the early calls to: unhook and let them go
      early = undefined
    }
    if (!wanted || !(settings.console || settings.network || settings.canvas)) return
    host = {
      settings,
      origin,
      guard,
      emit(event, mark, found) {
        chunks.push(event, mark)
        // Named for search only while the page view is recorded: never more than the recording holds.
        if (found && recorder.running) signals.found(found)
      },
      early,
      id: (node) => recorder.id(node),
      recording: () => recorder.running,
    }
    ;(window as unknown as { svc: { x?: CaptureHost } }).svc.x = host
    const script = document.createElement('script')
    script.async = true
    script.src = `${origin}/capture.js`
    if (nonce) script.nonce = nonce
    ;(document.head || document.documentElement).appendChild(script)
  }
  // What was held while the settings were unknown goes at the next flush, as it would have anyway.
  const capture = loadCapture(store, captureKey(publicKey), `${origin}/api/capture?pk=${encodeURIComponent(publicKey)}`, guard, () => {
    markTrigger()
    syncRecorder()
    loadExtras()
  })
  markTrigger()
  /** The page view the capture settings left out last, reported once (with the signals) so that its session can say why it is missing. */
  let leftOut = ''
  /** Whether this page view is recorded: yes until the settings are known (held meanwhile), then as they say. */
  const recorded = () => {
    const v = verdict(capture.current, ctx, ctx.u, sessions.trigger(ctx.sk))
    if (v > 1 && leftOut !== ctx.sk + ctx.pageIndex) {
      leftOut = ctx.sk + ctx.pageIndex
      signals.lost({ reason: LEFT_OUT[v] as 'excluded', pageIndex: ctx.pageIndex, url: ctx.url.slice(0, MAX_URL), fromTs: Date.now() })
    }
    return v < 2
  }
  /**
   * rrweb runs only while this page view is recorded: an unsampled session, an excluded page or one before
   * the session's trigger pays nothing for it. Stopping drops what was held for it; starting takes a full
   * snapshot, so a page view that becomes recorded (a route onto a trigger URL) replays from there.
   */
  const syncRecorder = () => {
    if (stopped) return
    if (!recorded()) {
      if (recorder.running) {
        recorder.stop()
        frames.tell(false) // their recordings stop with the page's
      }
      chunks.flush() // the pump drops what this page view holds
    } else if (!recorder.running) recorder.start()
  }

  const signals = createSignals(transport, guard, () => ({ sk: ctx.sk, vid: ctx.vid, startedAt: ctx.startedAt }))
  const chunks = createChunks({
    transport,
    guard,
    ctx,
    nextSeq: sessions.nextSeq,
    identity: () => sessions.current().identity,
    verdict: (c) => verdict(capture.current, c, c.u, sessions.trigger(c.sk)),
    keep: (batches) => guard.run(() => held.save(batches)),
    lost: (loss) => signals.lost(loss),
  })
  const held = heldChunks(namespace)
  chunks.restore(held.take(ctx.sk))
  loadExtras()
  const views = trackViews(guard, now, signals.view)
  const clicks = trackClicks({ guard, now, emit: signals.click, onInternalLink: (event) => (lastLinkClick = { at: now(), event }), recording: () => recorder.running })
  let checkpointPending = false
  const recorder = createRecorder(guard, (event) => {
    if (event.type === 3 && ANSWERS.has(event.data.source)) clicks.answered()
    chunks.push(event)
    // A replay rebuilds each full snapshot with blank canvases: canvas capture sends every canvas again; frames
    // of other origins recorded in place send their documents again.
    if (event.type === 2 && host?.onSnapshot) guard.run(host.onSnapshot)
    if (event.type === 2) frames.tell(true)
    // A busy page reaches the byte bound first; the snapshot is taken after this event's handler, never inside rrweb's.
    if (chunks.sinceCheckpoint > CHECKPOINT_BYTES && !checkpointPending) {
      checkpointPending = true
      setTimeout(
        guard.wrap(() => {
          checkpointPending = false
          if (chunks.sinceCheckpoint > CHECKPOINT_BYTES) recorder.snapshot()
        }),
      )
    }
  }, chunks.links)
  const frames = hostFrames(guard, publicKey, recorder, (event) => chunks.push(event))
  offs.push(frames.off)
  syncRecorder()

  const referrer = document.referrer && sameSite(document.referrer) ? document.referrer.split('#')[0] : undefined
  // The site the session came from, on its first view only: its origin alone (nothing of a search's path or query).
  let cameFrom: string | undefined
  try {
    const from = new URL(document.referrer).origin
    if (!ctx.pageIndex && from !== location.origin && from !== 'null') cameFrom = from.slice(0, 256)
  } catch {
    // No referrer, or not a URL: the session came from nowhere we can name.
  }
  views.begin(referrer, cameFrom)

  /** Ends the open view and sends what belongs to it, before the page view or the session changes. */
  const closeView = (exit: boolean, isQuickBack = false) => {
    clicks.settle()
    views.end({ exit, quickBack: isQuickBack })
    signals.flush()
    chunks.flush()
  }
  /** A new page view (route, restored page) or a new session: new context, new full snapshot, new view. */
  const openView = (previousUrl?: string) => {
    ctx = newContext()
    markTrigger()
    chunks.setContext(ctx)
    if (recorder.running && recorded()) recorder.snapshot()
    else syncRecorder()
    views.begin(previousUrl)
    loadExtras() // a new session may be sampled where the last was not
  }
  /**
   * Another tab reset or started a session, or (on activity) this one expired: move this page to the live
   * session. Without activity an expired session is left alone, so an idle open tab starts no new session.
   */
  const followSession = (active: boolean) => {
    const sk = active ? sessions.touch().sk : sessions.peek()
    if (!sk || sk === ctx.sk) return
    closeView(true)
    openView()
  }

  offs.push(
    watchRoutes(guard, (cause, previousUrl) => {
      clicks.answered()
      const view = views.current
      // Back to the page before this one, soon after arriving: a quick back.
      const back = cause === 'pop' && !!view && view.previousUrl === location.href.split('#')[0] && now() - view.at < QUICK_BACK_MS
      closeView(false, back)
      openView(previousUrl)
    }),
  )
  offs.push(trackErrors(guard, signals.error, clicks.errored))

  // Navigation API (Chromium): tells a navigation within the site, and a back to the previous page, before pagehide.
  const navigation = (window as any).navigation as EventTarget | undefined
  if (navigation && typeof navigation.addEventListener === 'function') {
    offs.push(
      listen(guard, navigation, 'navigate', (event: any) => {
        const url: string = event.destination?.url || ''
        if (!sameSite(url) || event.destination?.sameDocument) return
        lastInternalNav = now()
        const view = views.current
        if (event.navigationType === 'traverse' && view && view.previousUrl === url.split('#')[0] && now() - view.at < QUICK_BACK_MS) quickBack = true
      }),
    )
  }
  offs.push(listen(guard, document, 'submit', () => (lastInternalNav = now())))

  // Activity keeps the session alive (and moves this page to a new session after 30 idle minutes).
  let lastTouch = -Infinity
  for (const type of ['pointerdown', 'keydown', 'touchstart', 'scroll']) {
    offs.push(
      listen(guard, window, type, () => {
        // Once a second is plenty for a 30-minute timeout, and keeps storage reads off every scroll event.
        if (now() - lastTouch < 1000) return
        lastTouch = now()
        followSession(true)
      }),
    )
  }

  const flush = guard.wrap(() => {
    capture.refresh()
    followSession(false)
    syncRecorder() // the settings may have changed
    signals.flush()
    chunks.flush()
  })
  const interval = setInterval(flush, FLUSH_INTERVAL_MS)
  const live = liveFlushing(guard, () => chunks.flush())

  offs.push(
    listen(guard, document, 'visibilitychange', () => {
      // Hidden may be the last moment this page runs (mobile browsers discard background tabs): send while it can.
      if (document.visibilityState === 'hidden') {
        clicks.settle()
        flush()
      }
    }),
    listen(guard, window, 'pagehide', () => {
      clicks.settle()
      // Read now, after the click's dispatch: a link a client-side router intercepted did not navigate.
      if (lastLinkClick && !lastLinkClick.event.defaultPrevented) lastInternalNav = Math.max(lastInternalNav, lastLinkClick.at)
      const exit = now() - lastInternalNav > INTERNAL_NAV_MS
      views.end({ exit, quickBack })
      quickBack = false
      // The signals beacon goes first (beacons and keepalive fetches share the browser's quota), naming the seqs sent after it.
      chunks.flushNow(
        (closing) => {
          if (closing) signals.lost(closing)
          signals.flush(true)
        },
        live.watched ? (exit ? 'site' : 'page') : undefined,
      )
    }),
    listen(guard, window, 'pageshow', (event: PageTransitionEvent) => {
      // Restored from the back/forward cache: the visitor is back on this page, a new page view.
      if (event.persisted) {
        chunks.restore(held.take(ctx.sk)) // what pagehide kept for the next page load: this page goes on instead
        openView()
      }
    }),
  )

  function stop(): void {
    if (stopped) return
    stopped = true
    clearInterval(interval)
    live.stop()
    if (host?.stop) guard.run(host.stop)
    if (early) guard.run(early)
    recorder.stop()
    clicks.stop()
    views.stop()
    for (const off of offs) guard.run(off)
  }

  return {
    command(name, args) {
      if (name === 'identify') {
        const identity = cleanIdentity(args[0], args[1])
        if (identity) sessions.identify(identity)
      } else if (name === 'reset') {
        closeView(true)
        sessions.reset()
        openView()
      } else if (name === 'stats') {
        return {
          started: true,
          faults: guard.faults,
          ...transport.counters,
          ...chunks.stats,
          droppedSignals: signals.dropped,
          snapshotMs: recorder.snapshotMs,
          sliceMs: recorder.sliceMs,
          recording: recorder.running,
          sk: ctx.sk,
          vid: ctx.vid,
          pageIndex: ctx.pageIndex,
          stopped,
        }
      } else if (name === 'flush') {
        // Send now (before a redirect the page makes itself, say) instead of at the next 10 s tick.
        clicks.settle()
        flush()
      } else if (name === 'stop') {
        stop()
      }
      return undefined
    },
    stop,
  }
}
