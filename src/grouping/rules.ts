/**
 * Path rules (API contract, section 1, "Page grouping"): a pattern is a path
 * of literal segments and `{name}` placeholders, optionally ending in `*`.
 * `{name}` matches exactly one segment and is displayed by that name; a
 * trailing `*` matches any deeper path and hands the rest back to the
 * automatic rules. The first rule that matches wins.
 */

export type Segment = { kind: 'literal'; value: string } | { kind: 'param'; name: string }

export interface CompiledRule {
  pattern: string
  segments: Segment[]
  /** Ends in `*`: matches paths with at least one more segment (and the bare prefix). */
  rest: boolean
}

export type CompileResult = { ok: true; rule: CompiledRule } | { ok: false; pattern: string; reason: string }

const PARAM_RE = /^\{([A-Za-z_][A-Za-z0-9_-]{0,63})\}$/
/** RFC 3986 pchar minus the characters that mean something in a pattern (`{`, `}`, `*`). */
const LITERAL_RE = /^(?:[A-Za-z0-9\-._~!$&'()+,;=:@]|%[0-9A-Fa-f]{2})+$/

/** Most segments a pattern may have: deeper paths than this are not page structure. */
const MAX_SEGMENTS = 32

export function compileRule(pattern: unknown): CompileResult {
  const fail = (reason: string): CompileResult => ({ ok: false, pattern: String(pattern), reason })
  if (typeof pattern !== 'string') return fail('a pattern is a string')
  if (!pattern.startsWith('/')) return fail('a pattern starts with /')
  if (pattern.length > 2000) return fail('a pattern is at most 2000 characters')
  const trimmed = pattern.length > 1 && pattern.endsWith('/') ? pattern.slice(0, -1) : pattern
  const parts = trimmed === '/' ? [] : trimmed.slice(1).split('/')
  if (parts.length > MAX_SEGMENTS + 1) return fail(`a pattern has at most ${MAX_SEGMENTS} segments`)
  const segments: Segment[] = []
  const names = new Set<string>()
  let rest = false
  for (const [index, part] of parts.entries()) {
    if (part === '*') {
      if (index !== parts.length - 1) return fail('* may only end a pattern')
      rest = true
      continue
    }
    if (part === '') return fail('empty segment (//)')
    const param = PARAM_RE.exec(part)
    if (param) {
      if (names.has(param[1])) return fail(`placeholder {${param[1]}} appears twice`)
      names.add(param[1])
      segments.push({ kind: 'param', name: param[1] })
      continue
    }
    if (part.includes('{') || part.includes('}')) return fail(`"${part}" is not a placeholder: write {name} as a whole segment`)
    if (part.includes('*')) return fail('* must be a whole segment at the end')
    if (!LITERAL_RE.test(part)) return fail(`"${part}" has characters a URL path cannot hold`)
    segments.push({ kind: 'literal', value: part })
  }
  return { ok: true, rule: { pattern, segments, rest } }
}

export interface CompiledRules {
  rules: CompiledRule[]
  /** Patterns that did not compile (dropped at read time; refused by the setup endpoint). */
  invalid: { pattern: string; reason: string }[]
}

export function compileRules(patterns: readonly string[]): CompiledRules {
  const rules: CompiledRule[] = []
  const invalid: CompiledRules['invalid'] = []
  for (const pattern of patterns) {
    const result = compileRule(pattern)
    if (result.ok) rules.push(result.rule)
    else invalid.push({ pattern: result.pattern, reason: result.reason })
  }
  return { rules, invalid }
}
