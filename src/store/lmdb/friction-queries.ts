/** The friction feed over the aggregates (derived-keys.ts): rage, dead and error clicks, quick backs, and JS errors grouped by message. */
import {
  HOUR_MS,
  type FrictionItem,
  type FrictionSlice,
  type FrictionPosition,
  type FrictionQuery,
  type TimeRange,
} from '../insights.js'
import type { ErrorOccurrence, FrictionRecord } from '../aggregates/clicks.js'
import { shortId } from '../aggregates/ids.js'
import {
  ALL_SCOPE,
  liveGen,
  range,
  type Entry,
  pageScope,
  type ErrorMessage,
  type Part,
  type SessionRecordOfSignals,
} from './derived-keys.js'
import type { Tables } from './tables.js'
import { MAX_KEY_PART } from './keys.js'

const olderThan = (a: FrictionPosition, b: FrictionPosition) => a.ts < b.ts || (a.ts === b.ts && a.id < b.id)

export function friction(tables: Tables, projectId: string, query: FrictionQuery): FrictionSlice {
  const gen = liveGen(tables, projectId)
  const base = [projectId, gen]
  let range_: TimeRange = { since: query.since, until: query.until }
  let keep: ((entry: { sk: string; page: string }) => boolean) | undefined
  let scopes = query.pages ? query.pages.map((p) => pageScope(shortId(p))) : [ALL_SCOPE]
  if (query.sessionKey !== undefined) {
    const span = tables.derived.get([projectId, gen, 'ss', query.sessionKey]) as SessionRecordOfSignals | undefined
    if (!span) return { items: [] }
    if (span.ix) return sessionFriction(tables, base, query.sessionKey, query)
    // Folded before sessions were indexed: the project's friction within the span of the session's signals, filtered by session.
    range_ = { since: Math.max(query.since, span.from), until: Math.min(query.until, span.to + 1) }
    if (range_.since >= range_.until) return { items: [] }
    const sk = query.sessionKey
    const pages = query.pages ? new Set(query.pages) : undefined
    keep = (entry) => entry.sk === sk && (!pages || pages.has(entry.page))
    scopes = [ALL_SCOPE]
  }
  const want = query.limit + 1
  const items: FrictionItem[] = []

  for (const scope of scopes) {
    const prefix = [...base, 'fr', scope]
    const start = query.after ? [...prefix, query.after.ts, query.after.id] : [...prefix, range_.until]
    let taken = 0
    for (const { key, value } of range<FrictionRecord | null>(tables, start, [...prefix, range_.since], true)) {
      const [ts, id] = (key as (string | number)[]).slice(-2) as [number, string]
      if (ts >= range_.until) continue
      if (query.after && ts === query.after.ts && id === query.after.id) continue
      // Page scopes hold keys only; the record is the project scope's.
      const record = value ?? (tables.derived.get([...base, 'fr', ALL_SCOPE, ts, id]) as FrictionRecord | undefined)
      if (!record || (keep && !keep(record))) continue
      items.push(frictionItem(ts, id, record))
      if (++taken >= want) break
    }
  }

  for (const group of errorGroups(tables, base, scopes, range_, keep)) {
    if (!query.after || olderThan(group, query.after)) items.push(group)
  }

  return pageOf(items, query.limit)
}

/**
 * One session's friction from its own index (`sf`, `se`): what it reads is
 * the session's items, whatever else the project holds in the same hours.
 */
function sessionFriction(tables: Tables, base: Part[], sk: string, query: FrictionQuery): FrictionSlice {
  const pages = query.pages ? new Set(query.pages) : undefined
  const want = query.limit + 1
  const items: FrictionItem[] = []
  const prefix = [...base, 'sf', sk]
  const start = query.after ? [...prefix, query.after.ts, query.after.id] : [...prefix, query.until]
  for (const { key } of range<null>(tables, start, [...prefix, query.since], true)) {
    const [ts, id] = (key as Part[]).slice(-2) as [number, string]
    if (ts >= query.until || (query.after && ts === query.after.ts && id === query.after.id)) continue
    const record = tables.derived.get([...base, 'fr', ALL_SCOPE, ts, id]) as FrictionRecord | undefined
    if (!record || (pages && !pages.has(record.page))) continue
    items.push(frictionItem(ts, id, record))
    if (items.length >= want) break
  }
  for (const group of sessionErrorGroups(tables, base, sk, query, pages)) {
    if (!query.after || olderThan(group, query.after)) items.push(group)
  }
  return pageOf(items, query.limit)
}

/** The session's JS errors grouped by message, as errorGroups groups the project's, from the session's occurrences alone. */
function sessionErrorGroups(tables: Tables, base: Part[], sk: string, query: TimeRange, pages: Set<string> | undefined): FrictionItem[] {
  const groups = new Map<string, FrictionItem>()
  const prefix = [...base, 'se', sk]
  for (const { key } of range<null>(tables, prefix, [...prefix, MAX_KEY_PART])) {
    const [msgId, ts, id] = (key as Part[]).slice(-3) as [string, number, string]
    if (ts < query.since || ts >= query.until) continue
    const occurrence = tables.derived.get([...base, 'eo', ALL_SCOPE, msgId, ts, id]) as ErrorOccurrence | undefined
    if (!occurrence || (pages && !pages.has(occurrence.page))) continue
    const group = groups.get(msgId)
    if (!group) {
      const message = (tables.derived.get([...base, 'em', ALL_SCOPE, msgId]) as ErrorMessage | undefined)?.message ?? ''
      groups.set(msgId, { kind: 'jsError', ts, id: `e.${msgId}`, sessionKey: sk, page: occurrence.page, url: occurrence.url, message, count: 1, firstSeen: ts, lastSeen: ts })
      continue
    }
    group.count! += 1
    group.firstSeen = Math.min(group.firstSeen!, ts)
    if (ts > group.ts) Object.assign(group, { ts, lastSeen: ts, page: occurrence.page, url: occurrence.url })
  }
  return [...groups.values()]
}

function pageOf(items: FrictionItem[], limit: number): FrictionSlice {
  items.sort((a, b) => (olderThan(a, b) ? 1 : olderThan(b, a) ? -1 : 0))
  const page = items.slice(0, limit)
  const last = page[page.length - 1]
  return items.length > limit ? { items: page, next: { ts: last.ts, id: last.id } } : { items: page }
}

function frictionItem(ts: number, id: string, record: FrictionRecord): FrictionItem {
  const { sk, ...rest } = record
  return { ...rest, ts, id, sessionKey: sk }
}

/**
 * JS errors grouped by message: one item per message that occurred in
 * [since, until), placed at its latest occurrence there (whose session the
 * item names), with the count and the first and last occurrence in the range.
 */
function errorGroups(tables: Tables, base: (string | number)[], scopes: string[], query: TimeRange, keep?: (occurrence: ErrorOccurrence) => boolean): FrictionItem[] {
  const groups = new Map<string, FrictionItem>()
  const merge = (msgId: string, message: string, count: number, first: number, last: { ts: number; occurrence: ErrorOccurrence }) => {
    const current = groups.get(msgId)
    if (!current) {
      groups.set(msgId, {
        kind: 'jsError', ts: last.ts, id: `e.${msgId}`, sessionKey: last.occurrence.sk, page: last.occurrence.page, url: last.occurrence.url,
        message, count, firstSeen: first, lastSeen: last.ts,
      })
      return
    }
    current.count! += count
    current.firstSeen = Math.min(current.firstSeen!, first)
    if (last.ts > current.ts) Object.assign(current, { ts: last.ts, lastSeen: last.ts, sessionKey: last.occurrence.sk, page: last.occurrence.page, url: last.occurrence.url })
  }

  for (const scope of scopes) {
    const registry = [...base, 'em', scope]
    for (const { key, value } of range<ErrorMessage>(tables, registry, [...registry, MAX_KEY_PART])) {
      const msgId = (key as string[])[registry.length]
      const occurrences = [...base, 'eo', scope, msgId]
      if (keep) {
        // One session's occurrences, within the span of its signals: few, counted one by one.
        let count = 0
        let first = Infinity
        let last: { ts: number; occurrence: ErrorOccurrence } | undefined
        for (const { key: k, value: occurrence } of range<ErrorOccurrence>(tables, [...occurrences, query.since], [...occurrences, query.until])) {
          if (!keep(occurrence)) continue
          const ts = (k as (string | number)[])[occurrences.length] as number
          count += 1
          first = Math.min(first, ts)
          last = { ts, occurrence }
        }
        if (last) merge(msgId, value.message, count, first, last)
        continue
      }
      const latest = firstOf(range<ErrorOccurrence | null>(tables, [...occurrences, query.until], [...occurrences, query.since], true, 1))
      if (!latest) continue
      const earliest = firstOf(range<ErrorOccurrence | null>(tables, [...occurrences, query.since], [...occurrences, query.until], false, 1))!
      const tsOf = (entry: Entry<unknown>) => (entry.key as (string | number)[])[occurrences.length] as number
      // Page scopes hold keys only; the occurrence is the project scope's.
      const [ts, id] = (latest.key as (string | number)[]).slice(-2)
      const occurrence = latest.value ?? (tables.derived.get([...base, 'eo', ALL_SCOPE, msgId, ts, id]) as ErrorOccurrence)
      merge(msgId, value.message, countErrors(tables, base, scope, msgId, query), tsOf(earliest), { ts: tsOf(latest), occurrence })
    }
  }
  return [...groups.values()]
}

function firstOf<T>(entries: Iterable<T>): T | undefined {
  for (const entry of entries) return entry
  return undefined
}

/** Occurrences in [since, until): whole hours from the hour counts, the partial hours at either end counted exactly. */
function countErrors(tables: Tables, base: (string | number)[], scope: string, msgId: string, { since, until }: TimeRange): number {
  const occurrences = [...base, 'eo', scope, msgId]
  const exact = (a: number, b: number) => (a >= b ? 0 : tables.derived.getKeysCount({ start: [...occurrences, a], end: [...occurrences, b] }))
  const firstFull = Math.ceil(since / HOUR_MS)
  const lastFull = Math.floor(until / HOUR_MS)
  if (firstFull >= lastFull) return exact(since, until)
  let count = exact(since, firstFull * HOUR_MS) + exact(lastFull * HOUR_MS, until)
  const hours = [...base, 'eh', scope, msgId]
  for (const { value } of range<number>(tables, [...hours, firstFull], [...hours, lastFull])) count += value
  return count
}

// ---- pages ----
