/**
 * Clicks and their kind (contract, section 2, "Click"). A click waits until
 * its kind is known: it may become part of a rage cluster (RAGE_*), and a
 * click on an interactive element is dead if nothing answers it within
 * DEAD_CLICK_MS, or an error click if a JavaScript error follows within
 * ERROR_CLICK_MS. `answered` and `errored` are told by the tracker when the
 * recording shows a change, when the route changes and when an error fires.
 */
import { DEAD_CLICK_MS, ERROR_CLICK_MS, docHeight, px, RAGE_CLICKS, RAGE_RADIUS_PX, RAGE_WINDOW_MS } from './config.js'
import { listen, type Guard, type Off } from './guard.js'
import { clickTarget, labelOf, selectorOf } from './selector.js'
import type { ClickSignal } from './signals.js'

interface Pending {
  signal: ClickSignal
  at: number
  x: number
  y: number
  /** Could be dead: interactive, not a form field, not a link the browser follows by itself. */
  deadCandidate: boolean
  answered: boolean
  errored: boolean
  event: MouseEvent
  link: boolean
}

export interface Clicks {
  /** Something visible happened (DOM change, scroll, input, navigation). */
  answered(): void
  /** A JavaScript error fired. */
  errored(): void
  /** Classifies and hands on every waiting click now (the page view ends). */
  settle(): void
  stop: Off
}

export interface ClickDeps {
  guard: Guard
  now: () => number
  emit: (click: ClickSignal) => void
  /** A click on a same-site link: unless the page intercepts it (a client-side router), the next pagehide is navigation within the site. */
  onInternalLink: (event: MouseEvent) => void
  /** Whether rrweb runs and reports answers through `answered`; when it does not, the clicks watch the DOM themselves. */
  recording: () => boolean
}

const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places

export function trackClicks(deps: ClickDeps): Clicks {
  const { guard, now } = deps
  let cluster: Pending[] = []
  let timer: ReturnType<typeof setTimeout> | undefined
  /** Without rrweb, a dead-click candidate's answer window is watched by one observer, only until the clicks settle. */
  let watch: Off | undefined

  function watchAnswers(): void {
    if (watch || typeof MutationObserver !== 'function') return
    const seen = guard.wrap(() => {
      mark('answered', DEAD_CLICK_MS)
      unwatch()
    })
    const observer = new MutationObserver(seen)
    observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true })
    const offScroll = listen(guard, document, 'scroll', seen)
    watch = () => {
      observer.disconnect()
      offScroll()
    }
  }
  function unwatch(): void {
    watch?.()
    watch = undefined
  }

  function kindOf(click: Pending): ClickSignal['kind'] {
    if (click.errored) return 'error'
    // A link the page did not intercept starts a navigation: that is the answer.
    const navigates = click.link && !click.event.defaultPrevented
    if (click.deadCandidate && !click.answered && !navigates) return 'dead'
    return 'click'
  }

  function settle(): void {
    clearTimeout(timer)
    timer = undefined
    unwatch()
    const clicks = cluster
    cluster = []
    if (!clicks.length) return
    if (clicks.length >= RAGE_CLICKS) {
      // Collapsed into one entry at the first click's place, with the count.
      deps.emit({ ...clicks[0].signal, kind: 'rage', n: clicks.length })
      return
    }
    for (const click of clicks) deps.emit({ ...click.signal, kind: kindOf(click) })
  }

  function schedule(): void {
    clearTimeout(timer)
    const first = cluster[0]
    const last = cluster[cluster.length - 1]
    // Wait until no further click can join the cluster and the last click's answer window is over.
    const due = Math.max(first.at + RAGE_WINDOW_MS, last.at + Math.max(DEAD_CLICK_MS, ERROR_CLICK_MS))
    timer = setTimeout(guard.wrap(settle), Math.max(0, due - now()))
  }

  function onClick(event: MouseEvent): void {
    const target = event.target
    if (!(target instanceof Element)) return
    const t = now()
    const first = cluster[0]
    if (first && (t - first.at > RAGE_WINDOW_MS || Math.hypot(event.clientX - first.x, event.clientY - first.y) > RAGE_RADIUS_PX)) settle()

    const { el, interactive, field } = clickTarget(target)
    const anchor = el.closest('a[href]') as HTMLAnchorElement | null
    const href = anchor ? anchor.getAttribute('href') || '' : ''
    const link = !!anchor && !/^(#|javascript:)/i.test(href) && !anchor.hasAttribute('download')
    if (link && anchor!.origin === location.origin && (!anchor!.target || anchor!.target === '_self') && !event.metaKey && !event.ctrlKey && !event.shiftKey) deps.onInternalLink(event)
    const vw = px(innerWidth)
    const docH = px(docHeight())
    cluster.push({
      signal: {
        url: location.href.slice(0, 2000),
        ts: Date.now(),
        xRatio: vw ? round(Math.min(1, Math.max(0, event.clientX / vw)), 4) : 0,
        yDoc: Math.max(0, Math.round(event.clientY + scrollY)),
        vw,
        docH,
        selector: selectorOf(el),
        label: labelOf(el),
        tag: el.tagName.toLowerCase().slice(0, 40),
        interactive,
      },
      at: t,
      x: event.clientX,
      y: event.clientY,
      deadCandidate: interactive && !field && !(anchor && anchor.target && anchor.target !== '_self'),
      answered: false,
      errored: false,
      event,
      link,
    })
    if (cluster[cluster.length - 1].deadCandidate && !deps.recording()) watchAnswers()
    schedule()
  }

  /** Marks the clicks of the last `window` ms. */
  const mark = (field: 'answered' | 'errored', window: number) => {
    const t = now()
    for (const click of cluster) if (t - click.at <= window) click[field] = true
  }

  const off = listen(guard, document, 'click', onClick)
  return {
    answered: () => mark('answered', DEAD_CLICK_MS),
    errored: () => mark('errored', ERROR_CLICK_MS),
    settle,
    stop() {
      off()
      settle()
    },
  }
}
