/**
 * The element leaderboard's cap: a bucket holds at most ELEMENTS_PER_BUCKET
 * elements (insights.ts), so that one page with generated selectors cannot
 * grow it without bound. An element already in the bucket keeps counting
 * there; a new one past the cap counts under its page's `(other)` element.
 */
import { ELEMENTS_PER_BUCKET, OTHER_ELEMENTS } from '../insights.js'
import { elementIdOf } from './ids.js'

/** Whether an element's counts go to its page's `(other)` row: it is not `held` in a bucket that already holds `size` elements. */
export const countsAsOther = (held: boolean, size: number): boolean => !held && size >= ELEMENTS_PER_BUCKET

/** The selector and id of a page's `(other)` element. */
export const OTHER_SELECTOR = OTHER_ELEMENTS
export const otherElementIdOf = (page: string): number => elementIdOf(page, OTHER_ELEMENTS)
