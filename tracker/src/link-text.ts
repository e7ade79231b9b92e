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

/**
 * The page's fetch as tracker.js found it, before the capture bundle wraps it: the read is not one of the page's
 * requests. Called, not bound, here: a page without a working fetch fails the read, never tracker.js's start.
 */
const pageFetch = globalThis.fetch

/**
 * What rrweb reads otherwise: `@import` (it writes the imported rules in), and a charset other than UTF-8 named
 * in the Content-Type or an `@charset` rule (the word elsewhere in a file, rare, only costs the cache read).
 */
const NOT_AS_FILE = /@import|charset\s*=?\s*["']?(?!utf-?8)\w/i

/** Whether `href` is of this page's origin. */
export const canReadCached = (href: string) => href.startsWith(location.origin + '/')

/** The file's text as cached; rejects where rrweb's text must be taken instead. */
export async function cachedText(href: string): Promise<string> {
  const response = await pageFetch.call(globalThis, href, { cache: 'only-if-cached', mode: 'same-origin' })
  const text = await response.text()
  if (!response.ok || NOT_AS_FILE.test(response.headers.get('content-type') + text)) throw 0
  return text
}
