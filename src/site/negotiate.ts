/**
 * Proactive content negotiation (RFC 9110 §12.5): which of the offered media
 * types an Accept header prefers, and which content coding an
 * Accept-Encoding header allows. Pure functions, no I/O.
 */

interface Range {
  type: string
  subtype: string
  q: number
  /** Position in the header: among equal q and specificity, the client's order decides. */
  order: number
}

function parseQ(params: string[]): number {
  for (const param of params) {
    const [name, value] = param.split('=').map((s) => s.trim())
    if (name.toLowerCase() === 'q') {
      const q = Number(value)
      return Number.isFinite(q) && q >= 0 && q <= 1 ? q : 0
    }
  }
  return 1
}

function parseAccept(header: string): Range[] {
  const ranges: Range[] = []
  for (const [order, part] of header.split(',').entries()) {
    const [range, ...params] = part.split(';')
    const [type, subtype] = range.trim().toLowerCase().split('/')
    if (!type || !subtype) continue
    ranges.push({ type, subtype, q: parseQ(params), order })
  }
  return ranges
}

/** 2 exact, 1 `type/*`, 0 `*\/*`, -1 no match. */
function specificity(range: Range, type: string, subtype: string): number {
  if (range.type === type && range.subtype === subtype) return 2
  if (range.type === type && range.subtype === '*') return 1
  if (range.type === '*' && range.subtype === '*') return 0
  return -1
}

/**
 * The offered type the client prefers, or undefined when none is acceptable
 * (answer 406). No header, or an empty one, accepts anything: the first
 * offer wins. Each offer takes the q of the most specific range matching it
 * (`text/markdown;q=0, *\/*` refuses Markdown); ties go to the more specific
 * match, then to the client's order, then to the order of `offers`.
 */
export function negotiateType(header: string | undefined, offers: readonly string[]): string | undefined {
  if (!header || !header.trim()) return offers[0]
  const ranges = parseAccept(header)
  let best: { offer: string; q: number; specificity: number; order: number; index: number } | undefined
  for (const [index, offer] of offers.entries()) {
    const [type, subtype] = offer.split('/')
    let match: Range | undefined
    let matchSpecificity = -1
    for (const range of ranges) {
      const s = specificity(range, type, subtype)
      if (s > matchSpecificity) {
        match = range
        matchSpecificity = s
      }
    }
    if (!match || match.q === 0) continue
    const candidate = { offer, q: match.q, specificity: matchSpecificity, order: match.order, index }
    if (
      !best ||
      candidate.q > best.q ||
      (candidate.q === best.q && candidate.specificity > best.specificity) ||
      (candidate.q === best.q && candidate.specificity === best.specificity && candidate.order < best.order)
    ) {
      best = candidate
    }
  }
  return best?.offer
}

export type Coding = 'br' | 'gzip' | 'identity'

/**
 * The content coding to send: the client's highest-q coding among br and
 * gzip (br first on a tie: smaller for text), else identity. identity is
 * always sent rather than a 406 — refusing a page over its coding helps no
 * one, and RFC 9110 §12.5.3 allows it.
 */
export function negotiateEncoding(header: string | undefined): Coding {
  if (!header) return 'identity'
  const q = new Map<string, number>()
  for (const part of header.split(',')) {
    const [name, ...params] = part.split(';')
    const coding = name.trim().toLowerCase()
    if (coding) q.set(coding, parseQ(params))
  }
  const qOf = (coding: string) => q.get(coding) ?? q.get('*') ?? 0
  const br = qOf('br')
  const gzip = Math.max(qOf('gzip'), q.get('x-gzip') ?? 0)
  if (br > 0 && br >= gzip) return 'br'
  if (gzip > 0) return 'gzip'
  return 'identity'
}
