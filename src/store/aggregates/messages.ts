/**
 * The JavaScript-error message cap: a project's aggregates know at most
 * MAX_MESSAGES distinct messages, so that a client with the project's public
 * key cannot grow the message registry (and every read of the friction feed,
 * which walks it) without bound by sending distinct messages (issue 28). A
 * message already known goes on counting as itself; a new one past the cap
 * counts under `(other messages)`, occurrences and hours included, as pages
 * past their cap count under `(other)` (pages.ts).
 */

/** Far above the distinct errors a site throws (messages repeat), far below what a flood of made-up ones makes. */
export const MAX_MESSAGES = 2_000

/** What every message past the cap counts as. Error messages are the page's own text, so this one is spelled to stand out. */
export const OTHER_MESSAGE = '(other messages)'

/** Whether a message counts under OTHER_MESSAGE: it is not `held`, and `size` real messages are held already. */
export const countsAsOtherMessage = (held: boolean, size: number): boolean => !held && size >= MAX_MESSAGES
