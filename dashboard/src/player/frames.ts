/**
 * A frame of another origin is recorded as an empty element (rrweb cannot read
 * its document; the address it showed is kept as `rr_src`, which the replayer
 * does not set on the node it builds), and would replay as a blank box. It is
 * shown as a labelled placeholder naming the origin that was there: the replay
 * says what it does not have instead of looking broken. The label is the
 * frame's own srcdoc, so rrweb's tree is left as it built it. (A frame added
 * after the snapshot keeps its address too since the tracker's build mends
 * rrweb: tracker/tsup.config.ts; recordings made before stay blank there.)
 * A frame whose own tracker recorded it in place (tracker/src/frames.ts)
 * replays its document and gets no label.
 */

const LABEL_STYLE = 'margin:0;height:100%;display:flex;align-items:center;justify-content:center;font:13px system-ui,sans-serif;color:#475467;background:repeating-linear-gradient(45deg,#f2f4f7,#f2f4f7 8px,#eaecf0 8px,#eaecf0 16px);text-align:center'

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** The placeholder's document for a frame that showed `src`. */
export function placeholderOf(src: string): string {
  let origin = src
  try {
    origin = new URL(src).origin
  } catch {
    // not an absolute URL: named as recorded
  }
  return `<!doctype html><body style="${LABEL_STYLE}"><div>Frame from <b>${escape(origin.slice(0, 200))}</b><br>not recorded (another origin)</div></body>`
}

/**
 * Node id → the address each frame the recording could not see into showed (snapshots and later additions), less
 * those whose own tracker recorded them in place (their document added under them: src/recordings/frame-events.ts).
 */
export function unrecordedFrames(events: any[], into = new Map<number, string>()): Map<number, string> {
  const visit = (n: any) => {
    if (!n || typeof n !== 'object') return
    if (n.tagName === 'iframe' && typeof n.attributes?.rr_src === 'string') into.set(n.id, n.attributes.rr_src)
    if (Array.isArray(n.childNodes)) for (const child of n.childNodes) visit(child)
  }
  for (const event of events) {
    if (event?.type === 2) visit(event.data?.node)
    else if (event?.type === 3 && event.data?.source === 0 && Array.isArray(event.data.adds)) for (const add of event.data.adds) visit(add?.node)
  }
  for (const event of events) if (event?.type === 3 && event.data?.isAttachIframe) for (const add of event.data.adds ?? []) into.delete(add?.parentId)
  return into
}

/** What the replayer tells of the nodes it built (rrweb's mirror). */
interface Mirror {
  getId(node: Node): number
}

/**
 * Labels, in the replay `frame`, every frame `events` could not see into, as
 * rrweb builds or adds it; `more(events)` adds a later part's or feed's frames.
 */
export function labelUnrecordedFrames(frame: HTMLIFrameElement, mirror: Mirror, events: any[]): { more(events: any[]): void } {
  const sources = unrecordedFrames(events)
  const doc = frame.contentDocument
  const View = frame.contentWindow as (Window & typeof globalThis) | null
  const label = (element: Element) => {
    const src = sources.get(mirror.getId(element))
    if (src && !element.hasAttribute('srcdoc')) element.setAttribute('srcdoc', placeholderOf(src))
  }
  const within = (node: Node) => {
    // Not `instanceof Element`: the replay's nodes belong to the frame's realm.
    if (node.nodeType !== 1) return
    const element = node as Element
    if (element.tagName === 'IFRAME') label(element)
    for (const inner of Array.from(element.getElementsByTagName('iframe'))) label(inner)
  }
  if (doc && View) {
    // The document outlives rrweb's document.open() of each snapshot, and so does an observer of it.
    new View.MutationObserver((records) => {
      if (sources.size === 0) return // a recording without such frames costs this check per batch
      for (const record of records) for (const added of Array.from(record.addedNodes)) within(added)
    }).observe(doc, { childList: true, subtree: true })
    if (sources.size > 0) within(doc.documentElement ?? doc)
  }
  return { more: (later) => void unrecordedFrames(later, sources) }
}
