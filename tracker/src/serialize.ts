/**
 * Console arguments as JSON text (capture.js), within bounds: 3 levels deep,
 * 20 keys or items per level, strings cut to CONSOLE_ARG_CHARS, and each
 * argument's text as well. Every string (keys included) passes through the
 * secrets scrubber; getters that throw, proxies and cycles become markers
 * instead of faults.
 */
import { CONSOLE_ARG_CHARS, CONSOLE_DEPTH, CONSOLE_KEYS, STACK_LINES } from './config.js'
import { describeNode, scrub } from './secrets.js'

const cut = (text: string, max = CONSOLE_ARG_CHARS) => (text.length > max ? text.slice(0, max) + '…' : text)

export const stackOf = (error: unknown, secrets: readonly string[]): string[] =>
  error instanceof Error && typeof error.stack === 'string' ? error.stack.split('\n').slice(1, STACK_LINES + 1).map((line) => cut(scrub(line.trim(), secrets), 300)) : []

function plain(value: unknown, depth: number, secrets: readonly string[]): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value
  if (typeof value === 'string') return cut(scrub(value, secrets))
  if (typeof value !== 'object') return typeof value === 'function' ? `ƒ ${value.name || 'anonymous'}()` : String(value)
  if (typeof Node === 'function' && value instanceof Node) return describeNode(value)
  if (value instanceof Error) return cut(scrub(`${value.name}: ${value.message}`, secrets))
  const array = Array.isArray(value)
  if (depth >= CONSOLE_DEPTH) return array ? `Array(${value.length})` : '{…}'
  const keys = array ? [] : Object.keys(value)
  const out: any = array ? [] : {}
  const items = array ? (value as unknown[]).length : keys.length
  for (let i = 0; i < Math.min(items, CONSOLE_KEYS); i++) {
    const key = array ? i : cut(scrub(keys[i], secrets), 100)
    try {
      out[key] = plain(array ? (value as unknown[])[i] : (value as any)[keys[i]], depth + 1, secrets)
    } catch {
      out[key] = '[unreadable]' // a getter that throws: the page's object, not our fault
    }
  }
  if (items > CONSOLE_KEYS) array ? out.push(`… ${items - CONSOLE_KEYS} more`) : (out['…'] = `${items - CONSOLE_KEYS} more`)
  return out
}

/** One console argument as JSON text, at most CONSOLE_ARG_CHARS long (a longer one becomes a JSON string of its start). */
export function serialize(value: unknown, secrets: readonly string[]): string {
  let text: string
  try {
    text = JSON.stringify(plain(value, 0, secrets)) ?? 'undefined'
  } catch {
    text = JSON.stringify(Object.prototype.toString.call(value))
  }
  return text.length > CONSOLE_ARG_CHARS ? JSON.stringify(text.slice(0, CONSOLE_ARG_CHARS) + '…') : text
}
