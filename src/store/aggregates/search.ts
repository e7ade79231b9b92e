/**
 * Search by what happened (issue 35): each session's record of the paths it
 * visited, the elements it clicked and the JavaScript errors it hit, each with
 * the first time it happened. The fold keeps it beside the session's signal
 * counts, so that sessions.list tests a candidate session against one small
 * record instead of reading its recording.
 *
 * Bounded: the first MAX_FOUND_PATHS paths, MAX_FOUND_ELEMENTS elements and
 * MAX_FOUND_ERRORS messages a session produces are kept, each text cut to a
 * length; later ones are not searchable (a session past them is a bot or a
 * generated-selector page, whose flood must not grow the record).
 */
import { clampTime, deviceOf, type Device, type FindQuery, type FoundMoment } from '../insights.js'
import type { SessionRecord, SignalsRecord } from '../records.js'

export const MAX_FOUND_PATHS = 32
export const MAX_FOUND_ELEMENTS = 64
export const MAX_FOUND_ERRORS = 16
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
}

export const emptyFinds = (): SessionFinds => ({ u: [], c: [], e: [] })

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
  d?: Device

  /** Adds what one signals batch found. */
  add(batch: SignalsRecord, receivedAt: number): void {
    for (const view of batch.views) {
      earliest(this.u, cut(pathOfUrl(view.url)), clampTime(view.startedAt, receivedAt), MAX_FOUND_PATHS)
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
  }

  /** As a record, texts cut to MAX_FOUND_TEXT. */
  finds(): SessionFinds {
    const finds: SessionFinds = {
      u: [...this.u],
      c: [...this.c].map(([selector, { label, ts }]) => [cut(selector), label, ts]),
      e: [...this.e].map(([message, ts]) => [cut(message), ts]),
    }
    if (this.d) finds.d = this.d
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
    const test = query.visited
    const found = (finds?.u ?? []).filter(([path]) => test(path))
    if (!found.length) return undefined
    for (const [path, ts] of found) moments.push({ ts, kind: 'visit', label: path })
  }
  if (query.clicked !== undefined) {
    const text = query.clicked
    const found = (finds?.c ?? []).filter(([selector, label]) => label.toLowerCase().includes(text) || selector.toLowerCase().includes(text))
    if (!found.length) return undefined
    for (const [selector, label, ts] of found) moments.push({ ts, kind: 'click', label: label ? `${label} (${selector})` : selector })
  }
  if (query.error !== undefined) {
    const text = query.error
    const found = (finds?.e ?? []).filter(([message]) => message.toLowerCase().includes(text))
    if (!found.length) return undefined
    for (const [message, ts] of found) moments.push({ ts, kind: 'error', label: message })
  }
  return moments.sort((a, b) => a.ts - b.ts)
}

/** A session's device class: from the viewport its recording reported, else from its first view's. */
export function deviceOfSession(session: SessionRecord, finds: SessionFinds | undefined): Device | undefined {
  return deviceOf(session.viewport?.w) ?? finds?.d
}
