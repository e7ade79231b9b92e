/**
 * Search by what happened (issue 35): each session's record of the paths it
 * visited, the elements it clicked, the JavaScript errors it hit, the console
 * messages and failed requests its recording holds (as the tracker names them
 * in its signals) and the site it came from, each with the first time it
 * happened. The fold keeps it beside the session's signal
 * counts, so that sessions.list tests a candidate session against one small
 * record instead of reading its recording.
 *
 * Bounded: the first MAX_FOUND_PATHS paths, MAX_FOUND_ELEMENTS elements,
 * MAX_FOUND_ERRORS messages, MAX_FOUND_CONSOLE console texts,
 * MAX_FOUND_REQUESTS failed requests and MAX_FOUND_REFERRERS referrers a
 * session produces are kept, each text cut to a length; later ones are not searchable (a session past them is a bot or a
 * generated-selector page, whose flood must not grow the record).
 */
import { pathMatches } from '../../grouping/group.js'
import { clampTime, deviceOf, type Device, type FindQuery, type FoundMoment, type MatchKind } from '../insights.js'
import type { RequestEntry, SessionRecord, SignalsRecord } from '../records.js'

export const MAX_FOUND_PATHS = 32
export const MAX_FOUND_ELEMENTS = 64
export const MAX_FOUND_ERRORS = 16
/** As many as errors: a page that logs or fails more distinct lines than this is broken, and its first ones say how. */
export const MAX_FOUND_CONSOLE = 16
export const MAX_FOUND_REQUESTS = 16
/** A session comes from one site; a few more cover a session that a later page load re-entered from elsewhere. */
export const MAX_FOUND_REFERRERS = 4
/** A path, selector, label or message is kept to this many characters: enough to tell them apart, small enough for 112 of them. */
export const MAX_FOUND_TEXT = 200

/** One session's findings; arrays of tuples keep the stored record small. */
export interface SessionFinds {
  /** Paths visited (no query or fragment): [path, first ts]. */
  u: [string, number][]
  /** Elements clicked: [selector, label or '', first ts]. */
  c: [string, string, number][]
  /** JavaScript errors: [message, first ts]. */
  e: [string, number][]
  /** The device class of the first viewport width a view reported. */
  d?: Device
  /** Console errors and warnings: [text, first ts]. The three below are absent when empty (most sessions). */
  l?: [string, number][]
  /** Failed requests: [`METHOD url status`, first ts]. */
  n?: [string, number][]
  /** Referrers, the other site's origin: [origin, first ts]. */
  r?: [string, number][]
}

export const emptyFinds = (): SessionFinds => ({ u: [], c: [], e: [] })

/** How a failed request reads in a search and on the timeline: `GET https://api.test/cart 503`, `failed` for status 0. */
export const requestText = (request: RequestEntry): string =>
  `${request.method} ${request.url}${request.status === undefined ? '' : ` ${request.status || 'failed'}`}`

const cut = (text: string): string => (text.length > MAX_FOUND_TEXT ? text.slice(0, MAX_FOUND_TEXT) : text)

/** The path of a URL (an absolute URL's, or the text up to its query), as the path rules read it. */
export function pathOfUrl(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url)
  const rest = scheme ? url.slice(scheme[0].length) : url
  const end = rest.search(/[?#]/)
  const path = end === -1 ? rest : rest.slice(0, end)
  return path.startsWith('/') ? path : `/${path}`
}

/** Notes `entry` (its first element the key, its last the time) first seen at `ts`: an earlier time moves it; a new key past `max` is dropped. Whether the list changed. */
function note<T extends [string, ...unknown[]]>(list: T[], entry: T, ts: number, max: number): boolean {
  const last = entry.length - 1
  const held = list.find((e) => e[0] === entry[0])
  if (held) {
    if ((held[last] as number) <= ts) return false
    held[last] = ts
    return true
  }
  if (list.length >= max) return false
  ;(entry as unknown[])[last] = ts
  list.push(entry)
  return true
}

/**
 * What the batches of one fold transaction found, by key: a batch's clicks keep
 * hitting the same few elements, and a map finds a repeat without comparing
 * long selectors one by one. Merged into the stored record once (mergeFinds).
 */
export class FoundDelta {
  readonly u = new Map<string, number>()
  readonly c = new Map<string, { label: string; ts: number }>()
  readonly e = new Map<string, number>()
  readonly l = new Map<string, number>()
  readonly n = new Map<string, number>()
  readonly r = new Map<string, number>()
  d?: Device

  /** Whether any batch found anything. */
  get any(): boolean {
    return !!(this.u.size || this.c.size || this.e.size || this.l.size || this.n.size || this.r.size || this.d)
  }

  /** Adds what one signals batch found. */
  add(batch: SignalsRecord, receivedAt: number): void {
    for (const view of batch.views) {
      const ts = clampTime(view.startedAt, receivedAt)
      earliest(this.u, cut(pathOfUrl(view.url)), ts, MAX_FOUND_PATHS)
      if (view.referrer) earliest(this.r, view.referrer, ts, MAX_FOUND_REFERRERS)
      this.d ??= deviceOf(view.vw)
    }
    for (const click of batch.clicks) {
      if (!click.selector) continue
      const ts = clampTime(click.ts, receivedAt)
      const held = this.c.get(click.selector)
      if (held) {
        if (ts < held.ts) held.ts = ts
      } else if (this.c.size < MAX_FOUND_ELEMENTS) {
        this.c.set(click.selector, { label: cut(click.label ?? ''), ts })
      }
    }
    for (const error of batch.errors) earliest(this.e, error.message, clampTime(error.ts, receivedAt), MAX_FOUND_ERRORS)
    // Absent from batches stored before they existed.
    for (const line of batch.console ?? []) earliest(this.l, cut(line.text), clampTime(line.ts, receivedAt), MAX_FOUND_CONSOLE)
    for (const request of batch.requests ?? []) earliest(this.n, cut(requestText(request)), clampTime(request.ts, receivedAt), MAX_FOUND_REQUESTS)
  }

  /** As a record, texts cut to MAX_FOUND_TEXT. */
  finds(): SessionFinds {
    const finds: SessionFinds = {
      u: [...this.u],
      c: [...this.c].map(([selector, { label, ts }]) => [cut(selector), label, ts]),
      e: [...this.e].map(([message, ts]) => [cut(message), ts]),
    }
    if (this.d) finds.d = this.d
    if (this.l.size) finds.l = [...this.l]
    if (this.n.size) finds.n = [...this.n]
    if (this.r.size) finds.r = [...this.r]
    return finds
  }
}

function earliest(map: Map<string, number>, key: string, ts: number, max: number): void {
  const held = map.get(key)
  if (held === undefined ? map.size < max : ts < held) map.set(key, ts)
}

/** Merges `delta` (a transaction's findings) into `into`, the stored record; whether `into` changed. */
export function mergeFinds(into: SessionFinds, delta: SessionFinds): boolean {
  let changed = false
  for (const [path, ts] of delta.u) changed = note(into.u, [path, 0], ts, MAX_FOUND_PATHS) || changed
  for (const [selector, label, ts] of delta.c) changed = note(into.c, [selector, label, 0], ts, MAX_FOUND_ELEMENTS) || changed
  for (const [message, ts] of delta.e) changed = note(into.e, [message, 0], ts, MAX_FOUND_ERRORS) || changed
  for (const [text, ts] of delta.l ?? []) changed = note((into.l ??= []), [text, 0], ts, MAX_FOUND_CONSOLE) || changed
  for (const [text, ts] of delta.n ?? []) changed = note((into.n ??= []), [text, 0], ts, MAX_FOUND_REQUESTS) || changed
  for (const [origin, ts] of delta.r ?? []) changed = note((into.r ??= []), [origin, 0], ts, MAX_FOUND_REFERRERS) || changed
  if (into.d === undefined && delta.d !== undefined) {
    into.d = delta.d
    changed = true
  }
  return changed
}


/**
 * Every moment of `finds` that a present test matched, in time order, or
 * undefined when a present test matched nothing (the session is not a result).
 */
export function findMoments(finds: SessionFinds | undefined, query: FindQuery): FoundMoment[] | undefined {
  const moments: FoundMoment[] = []
  if (query.visited) {
    const rule = query.visited
    const found = (finds?.u ?? []).filter(([path]) => pathMatches(rule, path))
    if (!found.length) return undefined
    for (const [path, ts] of found) moments.push({ ts, kind: 'visit', label: path })
  }
  if (query.clicked !== undefined) {
    const text = query.clicked
    const found = (finds?.c ?? []).filter(([selector, label]) => label.toLowerCase().includes(text) || selector.toLowerCase().includes(text))
    if (!found.length) return undefined
    for (const [selector, label, ts] of found) moments.push({ ts, kind: 'click', label: label ? `${label} (${selector})` : selector })
  }
  if (query.error !== undefined && !texts(finds?.e, query.error, 'error', moments)) return undefined
  if (query.console !== undefined && !texts(finds?.l, query.console, 'console', moments)) return undefined
  if (query.request !== undefined && !texts(finds?.n, query.request, 'request', moments)) return undefined
  if (query.referrer !== undefined && !texts(finds?.r, query.referrer, 'referrer', moments)) return undefined
  return moments.sort((a, b) => a.ts - b.ts)
}

/**
 * The texts of `finds` that `query` reads at most: what testing one session
 * costs beyond reading it (src/store/read-budget.ts), up to 112 for a full record.
 */
export function searchWork(finds: SessionFinds | undefined, query: FindQuery): number {
  if (!finds) return 0
  let work = 0
  if (query.visited) work += finds.u.length
  if (query.clicked !== undefined) work += finds.c.length
  if (query.error !== undefined) work += finds.e.length
  if (query.console !== undefined) work += finds.l?.length ?? 0
  if (query.request !== undefined) work += finds.n?.length ?? 0
  if (query.referrer !== undefined) work += finds.r?.length ?? 0
  return work
}

/** Bytes a session's record and counts take once read, about: its page list is most of it. */
export function sessionBytes(session: SessionRecord): number {
  return 512 + 128 * session.pages.length
}

/** Adds to `moments` each of `list` whose text contains `text` (lowercased); whether any did. */
function texts(list: [string, number][] | undefined, text: string, kind: MatchKind, moments: FoundMoment[]): boolean {
  let found = false
  for (const [label, ts] of list ?? []) {
    if (!label.toLowerCase().includes(text)) continue
    moments.push({ ts, kind, label })
    found = true
  }
  return found
}

/** A session's device class: from the viewport its recording reported, else from its first view's. */
export function deviceOfSession(session: SessionRecord, finds: SessionFinds | undefined): Device | undefined {
  return deviceOf(session.viewport?.w) ?? finds?.d
}
