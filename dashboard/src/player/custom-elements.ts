/**
 * A replay runs none of the page's scripts, so no custom element would ever
 * be defined in it, and a page that hides undefined elements until their
 * script runs (`:not(:defined) { visibility: hidden }`, as several component
 * libraries advise) would replay its components hidden. The recorder marks
 * each element that was a defined custom element (`isCustom`); rrweb's
 * replayer defines an empty one of that name when it builds such a node, but
 * not when it applies an addition through its virtual DOM, which it does
 * whenever it seeks. So every name the recording marks is defined in the
 * frame's window before it plays (a window outlives rrweb's document.open()
 * of each snapshot, and so does its registry).
 */

function collect(node: any, names: Set<string>): void {
  if (!node || typeof node !== 'object') return
  if (node.isCustom && typeof node.tagName === 'string') names.add(node.tagName)
  if (Array.isArray(node.childNodes)) for (const child of node.childNodes) collect(child, names)
}

/** The custom element names the events mark (snapshots, and nodes added later). */
export function customElementNames(events: any[]): Set<string> {
  const names = new Set<string>()
  for (const event of events) {
    if (event?.type === 2) collect(event.data?.node, names)
    else if (event?.type === 3 && event.data?.source === 0 && Array.isArray(event.data.adds)) for (const add of event.data.adds) collect(add?.node, names)
  }
  return names
}

/** Defines, in `frame`'s window, an empty custom element for each name the events mark that it does not know yet. */
export function defineCustomElements(frame: HTMLIFrameElement, events: any[]): void {
  const win = frame.contentWindow as (Window & typeof globalThis) | null
  if (!win?.customElements) return
  for (const name of customElementNames(events)) {
    try {
      if (!win.customElements.get(name)) win.customElements.define(name, class extends win.HTMLElement {})
    } catch {
      // not a valid custom element name after all: it stays as rrweb builds it
    }
  }
}
