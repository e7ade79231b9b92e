/**
 * A cheap look at how deeply a JSON text nests, before JSON.parse: V8 parses
 * deep nesting far slower than flat text of the same size, and no control
 * request body nests more than a few levels. (Signals bodies are flattened
 * instead, src/contract/json-nesting.ts: the contract drops a bad entry and
 * records the rest of the batch.)
 */

import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from '../contract/json-nesting.js'

/** Deepest nesting any control request body has (a few levels), with room to spare. */
export const MAX_JSON_DEPTH = 32

/** Whether `text` (UTF-8 bytes) opens more than `limit` arrays or objects inside one another. One pass, no allocation. */
export function nestsDeeperThan(text: Uint8Array, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const byte = text[i]
    if (inString) {
      if (byte === BACKSLASH) i++
      else if (byte === QUOTE) inString = false
    } else if (byte === QUOTE) inString = true
    else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > limit) return true
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) depth--
  }
  return false
}
