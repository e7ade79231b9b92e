/**
 * `t.match` with exact array lengths. Stored records may gain derived fields
 * (a page key set by the writer), so fields are matched as a pattern; but an
 * entry too many is a bug, and `t.match` alone lets a longer array through.
 */
import type { Test } from 'tap'

type Asserts = Pick<Test, 'match' | 'fail'>

function lengthMismatch(found: unknown, pattern: unknown, path: string): string | undefined {
  if (Array.isArray(pattern)) {
    if (!Array.isArray(found)) return `${path || 'value'} is not an array`
    if (found.length !== pattern.length) return `${path || 'value'} has ${found.length} entries, expected ${pattern.length}`
    for (let i = 0; i < pattern.length; i++) {
      const inner = lengthMismatch(found[i], pattern[i], `${path}[${i}]`)
      if (inner) return inner
    }
  } else if (pattern && typeof pattern === 'object' && found && typeof found === 'object') {
    for (const [key, value] of Object.entries(pattern)) {
      const inner = lengthMismatch((found as Record<string, unknown>)[key], value, path ? `${path}.${key}` : key)
      if (inner) return inner
    }
  }
  return undefined
}

export function matchExactly(t: Asserts, found: unknown, pattern: unknown, message = 'matches'): void {
  const mismatch = lengthMismatch(found, pattern, '')
  if (mismatch) t.fail(`${message}: ${mismatch}`)
  t.match(found, pattern, message)
}
