/**
 * A `<link>`ed stylesheet's text read from the browser's HTTP cache: the file
 * the page loaded, without a request to the network (`only-if-cached`, which
 * browsers allow for the page's own origin only) and without the CSSOM walk
 * rrweb does to turn every rule back into text. What this cannot serve the way
 * the page saw it is refused, and the caller falls back to rrweb's text: a
 * file not in the cache (`no-store`), one that imports others (rrweb inlines
 * them), one in another charset than UTF-8.
 */

/** What rrweb's edited link branch calls (tracker/tsup.config.ts), with its own stringify and URL fix. */
export type LinkText = (sheet: CSSStyleSheet, stringify: (sheet: CSSStyleSheet) => string | null, absolutify: (text: string, href: string) => string) => string | null

/** The page's fetch as tracker.js found it, before the capture bundle wraps it: the read is not one of the page's requests. */
const pageFetch = typeof fetch === 'function' ? fetch.bind(window) : undefined

/** A charset named in a Content-Type or an `@charset` rule, other than UTF-8. */
const OTHER_CHARSET = /charset\s*=?\s*["']?(?!utf-?8)\w/i

/** Whether `href` is of this page's origin (and the browser can fetch at all). */
export const canReadCached = (href: string) => !!pageFetch && href.startsWith(location.origin + '/')

/** The file's text as cached; rejects where rrweb's text must be taken instead. */
export async function cachedText(href: string): Promise<string> {
  const response = await pageFetch!(href, { cache: 'only-if-cached', mode: 'same-origin' })
  const text = await response.text()
  // Not cached, or a file rrweb reads otherwise: it inlines what `@import` names, and decodes another charset.
  if (!response.ok || /@import/i.test(text) || OTHER_CHARSET.test(response.headers.get('content-type') + text.slice(0, 40))) throw 0
  return text
}
