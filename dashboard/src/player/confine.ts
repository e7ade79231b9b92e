/**
 * What a replay may load. A recording is written by whoever holds the
 * project's public key, and its CSS can name any address (`url(…)`,
 * `@font-face`, attribute selectors that fetch one prefix of a value at a
 * time): opened as it is, the viewer's browser would tell another origin who
 * watched, when, from where, and what the replayed page held. The frame rrweb
 * rebuilds the page in is given its own policy, which narrows the dashboard's:
 * resources only from the recorded site's origins (the project's domain and
 * its subdomains, and the origins the recording's Meta events name) and
 * data:/blob: URLs; no scripts, connections or frames; no Referer.
 *
 * Both are set once, in the frame's blank document before rrweb rebuilds the
 * first snapshot into it: a document's policies and referrer policy outlast
 * the document.open() with which rrweb rebuilds each later snapshot.
 */

/** A host as a project's domain names it: letters, digits, dots and dashes, an optional port. */
const HOST = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?(:\d{1,5})?$/i
/** Meta events name the page's URL; more origins than this in one recording are not the site's. */
const MAX_META_ORIGINS = 20

/** CSP sources for the recorded site: `domain` (a project's, may be null) and the origins of the events' Meta hrefs. */
export function replayOrigins(domain: string | null | undefined, events: any[]): string[] {
  const origins = new Set<string>()
  const host = domain?.trim().replace(/^https?:\/\//i, '').replace(/\/.*$/, '')
  if (host && HOST.test(host)) origins.add(host).add(`*.${host}`)
  for (const event of events) {
    if (event?.type !== 4 || typeof event.data?.href !== 'string') continue
    try {
      const url = new URL(event.data.href)
      if (url.protocol === 'https:' || url.protocol === 'http:') origins.add(url.origin)
    } catch {
      // not a URL: names no origin
    }
    if (origins.size >= MAX_META_ORIGINS) break
  }
  return [...origins]
}

/** The replay frame's policy: what it lists, and nothing that runs, connects or frames. */
export function replayPolicy(origins: string[]): string {
  const site = origins.join(' ')
  return [
    "default-src 'none'",
    `img-src ${site} data: blob:`,
    `media-src ${site} data: blob:`,
    `font-src ${site} data:`,
    `style-src 'unsafe-inline' ${site}`,
    "script-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ')
}

/** Confines rrweb's frame before anything is rebuilt in it (see above); the frame rrweb made, still blank. */
export function confineFrame(frame: HTMLIFrameElement, origins: string[]): void {
  frame.referrerPolicy = 'no-referrer'
  const doc = frame.contentDocument
  if (!doc) return
  const head = doc.head ?? doc.documentElement.appendChild(doc.createElement('head'))
  const policy = doc.createElement('meta')
  policy.httpEquiv = 'Content-Security-Policy'
  policy.content = replayPolicy(origins)
  const referrer = doc.createElement('meta')
  referrer.name = 'referrer'
  referrer.content = 'no-referrer'
  head.append(policy, referrer)
}
