/**
 * Bounds what JSON.parse costs on a body whose nesting no valid payload has.
 * V8 parses nested arrays several times slower per byte than a flat batch
 * (bench/micro.ts has both), so past the depth a schema allows, every array or
 * object is replaced by an empty one of the same kind before parsing: a
 * validator then judges it exactly as it would the original (a container where
 * the schema wants a scalar fails either way; unknown members are never
 * stored), and the rest of the body is kept.
 */

/** The bytes of JSON text that a scan of its nesting looks at (also src/control/json-depth.ts). */
export const QUOTE = 0x22
export const BACKSLASH = 0x5c
export const OPEN_ARRAY = 0x5b
export const OPEN_OBJECT = 0x7b
export const CLOSE_ARRAY = 0x5d
export const CLOSE_OBJECT = 0x7d

/** How many arrays or objects a JSON Schema nests at most: 0 for a scalar. */
export function schemaDepth(schema: unknown): number {
  if (typeof schema !== 'object' || schema === null) return 0
  const { type, properties, items } = schema as { type?: unknown; properties?: Record<string, unknown>; items?: unknown }
  if (type === 'array') return 1 + schemaDepth(items)
  if (type === 'object') return 1 + Math.max(0, ...Object.values(properties ?? {}).map(schemaDepth))
  return 0
}

/** Index of the quote closing the string opened at `open`, or -1. Whole strings are skipped with indexOf, not byte by byte. */
function stringEnd(text: string, open: number): number {
  let at = open
  for (;;) {
    at = text.indexOf('"', at + 1)
    if (at < 0) return -1
    let backslashes = 0
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return at
  }
}

/**
 * Index of the bracket closing the container opened at `open`, or -1 when it
 * is never closed or closed by the other kind. `opened` holds the open
 * brackets (a typed array: a plain one costs four times as much here).
 */
function containerEnd(text: string, open: number, opened: Uint8Array): number {
  let top = 0
  opened[top++] = text.charCodeAt(open)
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      i = stringEnd(text, i)
      if (i < 0) return -1
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) opened[top++] = c
    else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (opened[--top] !== (c === CLOSE_ARRAY ? OPEN_ARRAY : OPEN_OBJECT)) return -1
      if (top === 0) return i
    }
  }
  return -1
}

/** Whether `text` opens more than `budget` arrays and objects in all (brackets inside strings counted too). Stops at the budget. */
function opensMoreThan(text: string, budget: number): boolean {
  let count = 0
  for (let at = text.indexOf('['); at >= 0; at = text.indexOf('[', at + 1)) if (++count > budget) return true
  for (let at = text.indexOf('{'); at >= 0; at = text.indexOf('{', at + 1)) if (++count > budget) return true
  return false
}

/**
 * `text` with every array or object deeper than `limit` replaced by `[]` or
 * `{}`; undefined when such a container is never closed, or closed by the
 * other bracket (the body is not JSON). Syntax inside a replaced container is
 * not checked: nothing there can be stored. A text of at most `budget`
 * containers comes back as it is without a scan (the common case costs two
 * indexOf passes), since that few cost little to parse however deep they nest.
 */
export function flattenDeeperThan(text: string, limit: number, budget: number): string | undefined {
  if (!opensMoreThan(text, budget)) return text
  let depth = 0
  let flat = ''
  let copiedTo = 0
  let opened: Uint8Array | undefined
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      i = stringEnd(text, i)
      if (i < 0) break // an unclosed string: JSON.parse says so
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth <= limit) continue
      opened ??= new Uint8Array(text.length - i)
      const end = containerEnd(text, i, opened)
      if (end < 0) return undefined
      flat += text.slice(copiedTo, i) + (c === OPEN_ARRAY ? '[]' : '{}')
      copiedTo = end + 1
      i = end
      depth--
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--
  }
  return copiedTo === 0 ? text : flat + text.slice(copiedTo)
}
