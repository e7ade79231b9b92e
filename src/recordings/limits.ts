/** The bounds of a recording read back, apart from the streaming code: the read API's schemas quote them, and the clients that import those schemas' types run where node:stream does not. */

/**
 * Largest event passed through, in bytes of JSON. A full snapshot is the
 * largest event rrweb writes; it must arrive in one chunk of at most 1,000,000
 * stored bytes, and DOM JSON gzips about 5 to 10 times, so 16 MiB keeps
 * headroom above any snapshot the tracker can store while bounding the one
 * event the control worker holds.
 */
export const MAX_EVENT_BYTES = 16 * 1024 * 1024
/** Most bytes one gzip chunk inflates to: 64 times the 1,000,000-byte chunk cap, far above what JSON compresses to and far below a bomb's 1,000:1. */
export const MAX_CHUNK_INFLATED_BYTES = 64 * 1024 * 1024
