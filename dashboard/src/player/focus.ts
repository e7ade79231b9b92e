/**
 * A replay shows no focus ring: rrweb's replayer moves focus with `focus()`
 * inside a frame that does not have the browser's focus, where `:focus`
 * matches nothing, and a paused player has focus on its own controls anyway.
 * So on each pause the element the visitor's focus was on at that moment (the
 * last recorded Focus or Blur interaction before it) gets a class, and each
 * stylesheet of the frame gets, beside every rule that names `:focus`,
 * `:focus-visible` or `:focus-within`, the same rule on that class, as rrweb
 * does for `:hover`. A text field whose site sets no ring of its own gets the
 * browser's, which Chromium shows on a focused field however it was focused.
 */

export const FOCUS_CLASS = 'svc-focus'

const FULL_SNAPSHOT = 2
const INCREMENTAL = 3
const META = 4
const MOUSE_INTERACTION = 2
const FOCUS = 5
const BLUR = 6

interface RecordedEvent {
  type: number
  timestamp: number
  data?: { source?: number; type?: number; id?: number }
}

/** The id of the node the visitor's focus was on at `at` (ms since the epoch), from the recorded interactions; undefined for none. */
export function focusedAt(events: readonly RecordedEvent[], at: number): number | undefined {
  let focused: number | undefined
  for (const event of events) {
    if (event.timestamp > at) break
    // A new page load starts with nothing focused; a checkpoint keeps the ids, and the focus with them.
    if (event.type === META) focused = undefined
    if (event.type !== INCREMENTAL || event.data?.source !== MOUSE_INTERACTION) continue
    if (event.data.type === FOCUS) focused = event.data.id
    else if (event.data.type === BLUR && event.data.id === focused) focused = undefined
  }
  return focused
}

/** `selector` (one of a list) with every focus pseudo-class written as the class the players set. */
export function onFocusClass(selector: string): string {
  return selector
    .replace(/:focus-within/g, `:has(.${FOCUS_CLASS})`)
    .replace(/:focus-visible/g, `.${FOCUS_CLASS}`)
    .replace(/:focus(?![-\w])/g, `.${FOCUS_CLASS}`)
}

const FOCUS_SELECTOR = /:focus(?:-visible|-within)?(?![-\w])/

/** Adds, after each rule of `rules` that names a focus pseudo-class, the same rule on the class. */
function mirrorRules(owner: CSSStyleSheet | CSSGroupingRule): void {
  const rules = owner.cssRules
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]
    if ('cssRules' in rule && !('selectorText' in rule)) mirrorRules(rule as CSSGroupingRule)
    else if ('selectorText' in rule && FOCUS_SELECTOR.test((rule as CSSStyleRule).selectorText)) {
      const style = rule as CSSStyleRule
      const selectors = style.selectorText.split(',').filter((part) => FOCUS_SELECTOR.test(part)).map(onFocusClass)
      try {
        owner.insertRule(`${selectors.join(',')}{${style.style.cssText}}`, i + 1)
      } catch {
        // a selector this browser cannot parse once rewritten: that rule shows no focus
      }
    }
  }
}

const mirrored = new WeakSet<CSSStyleSheet>()

/** Every stylesheet of `doc` not seen before gets its focus rules mirrored (a stylesheet of another origin cannot be read). */
function mirrorStylesheets(doc: Document): void {
  for (const sheet of [...Array.from(doc.styleSheets), ...(doc.adoptedStyleSheets ?? [])]) {
    if (mirrored.has(sheet)) continue
    mirrored.add(sheet)
    try {
      mirrorRules(sheet)
    } catch {
      // cross-origin: its rules are not readable
    }
  }
  if (!doc.getElementById('svc-focus-ring') && doc.head) {
    const ring = doc.createElement('style')
    ring.id = 'svc-focus-ring'
    // No specificity at all, and first: any rule of the site's own wins, as over the browser's own ring.
    ring.textContent = `:where(input:not([type=button],[type=submit],[type=reset],[type=checkbox],[type=radio]), textarea, select, [contenteditable]):where(.${FOCUS_CLASS}) { outline: auto 1px -webkit-focus-ring-color }`
    doc.head.prepend(ring)
    mirrored.add(ring.sheet!)
  }
}

interface FocusReplayer {
  on(event: string, handler: (payload?: unknown) => void): unknown
  iframe: HTMLIFrameElement
  getCurrentTime(): number
  getMetaData(): { startTime: number }
  getMirror(): { getNode(id: number): Node | null }
}

/** Shows, at each pause of `replayer`, the focus the visitor had at that moment; `events`: what it replays (read at each pause: a streamed replay grows). */
export function showFocusOnPause(replayer: FocusReplayer, events: () => readonly RecordedEvent[]): void {
  const View = replayer.iframe.ownerDocument.defaultView
  const show = () => {
    const doc = replayer.iframe.contentDocument
    if (!doc) return
    mirrorStylesheets(doc)
    const id = focusedAt(events(), replayer.getMetaData().startTime + replayer.getCurrentTime())
    const target = id === undefined ? null : replayer.getMirror().getNode(id)
    for (const element of Array.from(doc.querySelectorAll(`.${FOCUS_CLASS}`))) if (element !== target) element.classList.remove(FOCUS_CLASS)
    // Not `instanceof` the frame's Element: an element a seek added was made by rrweb's virtual DOM with the player page's `document`, in that realm.
    if (target?.nodeType === 1) (target as Element).classList.add(FOCUS_CLASS)
  }
  // After rrweb has applied the moment (a seek rebuilds the page first).
  replayer.on('pause', () => View?.requestAnimationFrame(show))
  // While playing, each focus as it comes (a seek's own interactions may reach nodes not yet in the page: the pause puts them right).
  replayer.on('mouse-interaction', (event) => {
    const payload = event as { type?: number; target?: unknown } | undefined
    const target = payload?.target
    if (payload?.type !== FOCUS && payload?.type !== BLUR) return
    if (!target || typeof (target as Element).classList?.toggle !== 'function' || !(target as Node).isConnected) return
    const doc = replayer.iframe.contentDocument
    if (doc) mirrorStylesheets(doc)
    ;(target as Element).classList.toggle(FOCUS_CLASS, payload.type === FOCUS)
  })
}
