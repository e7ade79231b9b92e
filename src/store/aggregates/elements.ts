/**
 * The element leaderboard's cap: a bucket holds at most ELEMENTS_PER_BUCKET
 * elements (insights.ts), so that one page with generated selectors cannot
 * grow it without bound. An element already in the bucket keeps counting
 * there; a new one past the cap counts under its page's `(other)` element.
 *
 * Across buckets, a project names at most MAX_ELEMENT_NAMES elements (the
 * name registry and the index of the sessions that clicked each): past it, a
 * new element counts as its page's `(other)` element everywhere, so a flood of
 * made-up selectors over many hours cannot grow them without bound (issue 28).
 */
import { ELEMENTS_PER_BUCKET, OTHER_ELEMENTS } from '../insights.js'
import { elementIdOf } from './ids.js'

/** Whether an element's counts go to its page's `(other)` row: it is not `held` in a bucket that already holds `size` elements. */
export const countsAsOther = (held: boolean, size: number): boolean => !held && size >= ELEMENTS_PER_BUCKET

/** The selector and id of a page's `(other)` element. */
export const OTHER_SELECTOR = OTHER_ELEMENTS
export const otherElementIdOf = (page: string): number => elementIdOf(page, OTHER_ELEMENTS)

/** Ten buckets' worth: a site's clickable elements across its pages, far below a flood of generated ones. */
export const MAX_ELEMENT_NAMES = 10 * ELEMENTS_PER_BUCKET

/** Whether a new element is named as its page's `(other)`: `size` elements are named already (`(other)` rows included). */
export const countsAsOtherName = (named: boolean, size: number): boolean => !named && size >= MAX_ELEMENT_NAMES
