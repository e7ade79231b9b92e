/**
 * Automatic collapsing of one URL path segment (API contract, section 1):
 * digits → `:id`, a UUID → `:uuid`, a date → `:date`, 12 or more lowercase
 * alphanumerics with no word structure → `:hash`. Slugs (`acme-corp`) and
 * prefixed ids with an underscore or mixed case (`cus_9Qx…`) stay as they are.
 *
 * "No word structure" is decided from character statistics, measured on the
 * table in test/grouping/segments.test.ts (200+ real-looking segments):
 *  - hex with both digits and letters (digests, ObjectIds) is a hash;
 *  - four or more switches between digits and letters (`k3j5h2l9…`) is a hash:
 *    words with numbers switch once or twice (`johnsmith1987`, `iphone15pro`);
 *  - the letters must read like words: in English text about 38% of letters
 *    are vowels (y counted) and consonant runs rarely exceed 4; random
 *    lowercase strings have about 23% vowels and long consonant runs;
 *  - consonant pairs English does not use (`qz`, `xk`, `wv`) betray random
 *    letters: words and compounds have at most one or two (at a join).
 */

export type SegmentClass = 'id' | 'uuid' | 'date' | 'hash' | 'keep'

const DIGITS_RE = /^\d+$/
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const ISO_DATE_RE = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/
const COMPACT_DATE_RE = /^(\d{4})(\d{2})(\d{2})$/
const LOWER_ALNUM_RE = /^[a-z0-9]+$/
const HEX_RE = /^[0-9a-f]+$/
const VOWELS = new Set(['a', 'e', 'i', 'o', 'u', 'y'])

/** Minimum length of a `:hash` (API contract). */
export const HASH_MIN_LENGTH = 12

function isDate(segment: string): boolean {
  const match = ISO_DATE_RE.exec(segment) ?? COMPACT_DATE_RE.exec(segment)
  if (!match) return false
  const year = Number(match[1])
  const month = Number(match[2])
  const day = match[3] === undefined ? 1 : Number(match[3])
  if (year < 1900 || year > 2199 || month < 1 || month > 12 || day < 1) return false
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate()
}

export interface SegmentStats {
  length: number
  digits: number
  letters: number
  /** Changes between a digit and a letter, reading left to right. */
  switches: number
  /** Vowels (y counted) over letters; 1 when there are no letters. */
  vowelRatio: number
  longestConsonantRun: number
  /**
   * Shannon entropy over the characters, bits per character. Reported with
   * the calibration table; on it the consonant-pair test separated the two
   * classes better, so no rule below uses it.
   */
  entropy: number
}

export function segmentStats(segment: string): SegmentStats {
  let digits = 0
  let switches = 0
  let vowels = 0
  let run = 0
  let longestConsonantRun = 0
  let previousIsDigit: boolean | undefined
  const counts = new Map<string, number>()
  for (const char of segment) {
    counts.set(char, (counts.get(char) ?? 0) + 1)
    const isDigit = char >= '0' && char <= '9'
    if (previousIsDigit !== undefined && isDigit !== previousIsDigit) switches += 1
    previousIsDigit = isDigit
    if (isDigit) {
      digits += 1
      run = 0
    } else if (VOWELS.has(char)) {
      vowels += 1
      run = 0
    } else {
      run += 1
      longestConsonantRun = Math.max(longestConsonantRun, run)
    }
  }
  const letters = segment.length - digits
  let entropy = 0
  for (const count of counts.values()) {
    const p = count / segment.length
    entropy -= p * Math.log2(p)
  }
  return { length: segment.length, digits, letters, switches, vowelRatio: letters ? vowels / letters : 1, longestConsonantRun, entropy }
}

/**
 * Consonant pairs common in English words, including across the joins of
 * unhyphenated compounds (`shoppingcart`). Random strings are full of the
 * others (`qz`, `xk`, `wv`…).
 */
const COMMON_PAIRS = new Set(
  ('bb bl br bs by cc ch ck cl cr ct cy dd dg dl dm dn dr ds dy dw ff fl fr fs ft fy gg gh gl gm gn gr gs gt gy hn hr hs ht hy ' +
    'ld lf lk ll lm lp ls lt lv ly mb mm mn mp ms my nc nd ng nk nl nn ns nt nv nw ny ph pl pp pr ps pt py rb rc rd rf rg rk rl rm rn rp ' +
    'rr rs rt rv rw ry sc sh sk sl sm sn sp ss st sw sy tc th tl tm tn tr ts tt tw ty vy wb wd wl wm wn wr ws wt xp xt yb yc yd yl ym yn yp ' +
    'yr ys yt ' +
    // joins of common compound words: shopping|cart, check|out, work|space, back|pack, web|site, pay|ment
    'gc kc kd kp ks kt kw lb lc ld lg lh ln lr lw mf mh ml mr mt nb nf nh nm np nr pc pd pf pg pm sb sd sf sg sr tb td tf tg tp ch dc ' +
    'dp db df dh gb gd gf gp hb hc hd hf hl hm hp hw kb kf kh km kn mc md mg nj nq pb ph pn rj sq tj tq xc')
    .split(/\s+/)
    .filter(Boolean),
)

/** Consonant-consonant neighbours that English words (and their joins) rarely have. */
export function rarePairs(segment: string): number {
  let rare = 0
  for (let i = 1; i < segment.length; i++) {
    const a = segment[i - 1]
    const b = segment[i]
    const consonant = (c: string) => c >= 'a' && c <= 'z' && !VOWELS.has(c)
    if (consonant(a) && consonant(b) && !COMMON_PAIRS.has(a + b)) rare += 1
  }
  return rare
}

/** True when a lowercase alphanumeric segment of 12+ characters reads as generated rather than as words. */
export function looksGenerated(segment: string): boolean {
  const s = segmentStats(segment)
  if (s.digits > 0 && s.letters > 0 && HEX_RE.test(segment)) return true
  if (s.switches >= 4) return true
  // Mostly digits with a few letters (base36 timestamps, order numbers with check letters).
  if (s.digits >= s.letters * 2 && s.letters > 0) return true
  if (s.letters < 6) return false
  if (s.vowelRatio < 0.2) return true
  const rare = rarePairs(segment)
  return rare >= 3 || (rare >= 2 && s.vowelRatio < 0.3) || (s.longestConsonantRun >= 5 && s.vowelRatio < 0.3)
}

export function classifySegment(segment: string): SegmentClass {
  if (isDate(segment)) return 'date'
  if (DIGITS_RE.test(segment)) return 'id'
  if (UUID_RE.test(segment)) return 'uuid'
  if (segment.length >= HASH_MIN_LENGTH && LOWER_ALNUM_RE.test(segment) && looksGenerated(segment)) return 'hash'
  return 'keep'
}

const PLACEHOLDER: Record<Exclude<SegmentClass, 'keep'>, string> = { id: ':id', uuid: ':uuid', date: ':date', hash: ':hash' }

/** The segment as it appears in a page key. */
export function collapseSegment(segment: string): string {
  const kind = classifySegment(segment)
  return kind === 'keep' ? segment : PLACEHOLDER[kind]
}
