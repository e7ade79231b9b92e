/**
 * Page views (contract, section 2, "View"). One view is open at a time; it
 * measures active time (the tab visible and focused), the deepest scroll
 * reached, and ends on a route change, a session change or the page going
 * away. A view is sent once, when it ends, so counts built from views at write
 * time stay exact.
 */
import { MAX_TEXT, MAX_URL, docHeight, px } from './config.js'
import { listen, type Guard, type Off } from './guard.js'
import type { ViewSignal } from './signals.js'

export interface EndOptions {
  exit: boolean
  quickBack?: boolean
}

export interface Views {
  /** Opens a view of the current URL; `previousUrl` is the page before it (for quick backs), `referrer` the other site's origin the session came from. */
  begin(previousUrl?: string, referrer?: string): void
  end(options: EndOptions): void
  /** The open view's URL and when it started. */
  readonly current: { url: string; startedAt: number; previousUrl?: string; at: number } | undefined
  stop: Off
}

export function trackViews(guard: Guard, now: () => number, emit: (view: ViewSignal) => void): Views {
  let view: (ViewSignal & { at: number; previousUrl?: string }) | undefined
  let activeSince: number | undefined

  const active = () => document.visibilityState === 'visible' && document.hasFocus()
  /** Adds the active stretch that is running, and starts a new one if still active. */
  const settleActive = () => {
    const t = now()
    if (view && activeSince !== undefined) view.activeMs = (view.activeMs ?? 0) + (t - activeSince)
    activeSince = view && active() ? t : undefined
  }
  // At every scroll of the page, as its event is dispatched: scroll events fire while a frame is drawn, before its
  // layout, so a read there forces no layout the frame would not do next; a timer's read, between frames, did.
  const sampleScroll = () => {
    if (!view) return
    const docH = docHeight()
    view.docH = px(docH)
    const pct = docH > 0 ? Math.min(100, ((scrollY + innerHeight) / docH) * 100) : 100
    view.maxScrollPct = Math.max(view.maxScrollPct ?? 0, Math.round(pct * 10) / 10)
  }

  const offs = [
    listen(guard, document, 'visibilitychange', settleActive),
    listen(guard, window, 'focus', settleActive),
    listen(guard, window, 'blur', settleActive),
    listen(guard, window, 'scroll', (event: Event) => event.target === document && sampleScroll()),
  ]

  return {
    begin(previousUrl, referrer) {
      const t = now()
      view = {
        url: location.href.slice(0, MAX_URL),
        startedAt: Date.now(),
        vw: px(innerWidth),
        vh: px(innerHeight),
        activeMs: 0,
        at: t,
        previousUrl,
      }
      if (referrer) view.referrer = referrer
      activeSince = undefined
      settleActive()
      sampleScroll()
    },
    end({ exit, quickBack }) {
      if (!view) return
      settleActive()
      sampleScroll()
      const { at, previousUrl, ...signal } = view
      void at
      void previousUrl
      // Read at the end: a client-side route sets its title after it starts, and the old title is still up when the next route starts.
      const title = document.title.slice(0, MAX_TEXT)
      if (title) signal.title = title
      signal.endedAt = Date.now()
      signal.activeMs = Math.round(signal.activeMs ?? 0)
      signal.exit = exit
      if (quickBack) signal.quickBack = true
      view = undefined
      activeSince = undefined
      emit(signal)
    },
    get current() {
      return view && { url: view.url, startedAt: view.startedAt, previousUrl: view.previousUrl, at: view.at }
    },
    stop() {
      for (const off of offs) off()
    },
  }
}
