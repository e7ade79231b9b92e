/**
 * Grouping a URL into its page: pure, no I/O, never throws. The page key is
 * `host` + display path, e.g. `shop.test/{tenant}/settings/:id`; query strings
 * and fragments are not part of it; the host is lowercased and trailing
 * slashes dropped.
 */
import { URL_MAX_LENGTH } from './limits.js'
import { compileRules, type CompiledRule } from './rules.js'
import { classifySegment, collapseSegment } from './segments.js'

export interface Page {
  /** `host` + `path`: the identity stored with sessions and signals. */
  key: string
  host: string
  /** Display form: `/{tenant}/settings/:id`. */
  path: string
}

/** Host and path segments of a URL; a string that is not an absolute URL is read as a path. */
function split(url: string): { host: string; segments: string[] } {
  let host = ''
  let path = url
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url)
  if (scheme) {
    host = scheme[1].replace(/^[^@]*@/, '').toLowerCase()
    // Default ports are noise: https://shop.test:443 is shop.test.
    host = host.replace(/:(80|443)$/, '')
    path = url.slice(scheme[0].length)
  }
  const end = path.search(/[?#]/)
  if (end !== -1) path = path.slice(0, end)
  return { host, segments: path.split('/').filter((s) => s !== '') }
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** Classified on its decoded form, shown in its encoded one (a decoded `%2F` would read as a separator). */
function autoSegment(segment: string): string {
  const decoded = decode(segment)
  return classifySegment(decoded) === 'keep' ? segment : collapseSegment(decoded)
}

function matchRule(rule: CompiledRule, segments: string[]): string[] | undefined {
  if (rule.rest ? segments.length < rule.segments.length : segments.length !== rule.segments.length) return undefined
  const out: string[] = []
  for (const [i, part] of rule.segments.entries()) {
    if (part.kind === 'literal') {
      if (part.value !== segments[i] && part.value !== decode(segments[i])) return undefined
      out.push(part.value)
    } else {
      out.push(`{${part.name}}`)
    }
  }
  // `*` hands the remainder back to the automatic rules.
  for (const segment of segments.slice(rule.segments.length)) out.push(autoSegment(segment))
  return out
}

/** Whether a URL's (or a bare path's) path matches a rule, as grouping would match it: a search by path pattern. */
export function pathMatches(rule: CompiledRule, url: string): boolean {
  return matchRule(rule, split(url).segments) !== undefined
}

export function groupUrl(url: string, rules: readonly CompiledRule[]): Page {
  const { host, segments } = split(typeof url === 'string' ? url : '')
  let parts: string[] | undefined
  for (const rule of rules) {
    parts = matchRule(rule, segments)
    if (parts) break
  }
  parts ??= segments.map(autoSegment)
  let path = '/' + parts.join('/')
  // A page key is never longer than a URL may be (API contract, section 8).
  if (host.length + path.length > URL_MAX_LENGTH) path = path.slice(0, Math.max(1, URL_MAX_LENGTH - host.length))
  return { key: host + path, host, path }
}

/**
 * Compiled rules per project, compiled once and reused until the project's
 * rules change. Bounded: the least recently compiled entry goes first.
 */
export class RulesCache {
  private entries = new Map<string, { source: string; rules: CompiledRule[] }>()

  constructor(private readonly capacity = 10_000) {}

  rulesFor(projectId: string, patterns: readonly string[]): CompiledRule[] {
    const source = patterns.join('\n')
    const hit = this.entries.get(projectId)
    if (hit && hit.source === source) return hit.rules
    const rules = compileRules(patterns).rules // patterns that do not compile are dropped at read time
    this.entries.delete(projectId)
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string)
    this.entries.set(projectId, { source, rules })
    return rules
  }
}
