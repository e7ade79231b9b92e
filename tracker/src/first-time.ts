/**
 * capture.js: whether a console or request text is new on this page load, so
 * that each is named for search once, the first time (a page repeats its
 * errors), and at most MAX_FOUND_PER_PAGE of them (a page that fails in more
 * ways than that is broken, and its first ones say how).
 */
import { MAX_FOUND_PER_PAGE } from './config.js'

export function firstTime(): (text: string) => boolean {
  const seen = new Set<string>()
  return (text) => seen.size < MAX_FOUND_PER_PAGE && !seen.has(text) && !!seen.add(text)
}
