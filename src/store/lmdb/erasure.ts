/**
 * The steps of an erasure over the LMDB tables (src/store/erasure-store.ts
 * says what goes and what stays). Each runs inside one write transaction and
 * looks at a bounded number of entries; the erased session keys are kept in
 * `erased` ([erasureId, sk]) until the last phase, so that the signals and
 * aggregates phases know which entries name them.
 */
import type { Database } from 'lmdb'
import { shortId } from '../aggregates/ids.js'
import type { ErrorOccurrence, FrictionRecord } from '../aggregates/clicks.js'
import { PlaceSet, subjectOf, type ErasedPlaces, type ErasureCountCursor, type ErasureCounts, type ErasureCountStep, type ErasureRecord, type ErasureSubject } from '../erasure-store.js'
import { SubjectMatch } from '../erasure-subjects.js'
import { ReadBudget } from '../read-budget.js'
import type { SessionRecord, SignalsRecord } from '../records.js'
import { emptyStats, uncountRecording } from '../recording-records.js'
import { ALL_SCOPE, pageScope, type ElementName } from './derived-keys.js'
import { MAX_KEY_PART } from './keys.js'
import type { Key, Tables } from './tables.js'

/** The erasure's own tables (main environment). */
export interface ErasureTables {
  /** erasure id → the request, its progress, and where its phase resumes. */
  erasures: Database<ErasureRecord & { cursor?: Key }, string>
  /** [erasureId, sk]: sessions this erasure removed, until its last phase. */
  erased: Database<true, Key>
}

export type StoredErasure = ErasureRecord & { cursor?: Key }

const projectRange = (projectId: string) => ({ start: [projectId], end: [projectId, MAX_KEY_PART] })

/** Where the session walk reads: the list by start time for a query, every session of the project otherwise. */
function sessionWalk(tables: Tables, erasure: StoredErasure, limit: number): { sk: string; key: Key }[] {
  const { projectId } = erasure
  const by = subjectOf(erasure)
  if ('query' in by) {
    const start = erasure.cursor ?? [projectId, by.query.from]
    const keys = tables.sessionsByStart.getKeys({ start, end: [projectId, by.query.until], limit: limit + 1 })
    return Array.from(keys, (key) => ({ sk: (key as [string, number, string])[2], key: key as Key })).filter((k) => !sameKey(k.key, erasure.cursor)).slice(0, limit)
  }
  const start = erasure.cursor ?? [projectId]
  const keys = tables.sessions.getKeys({ start, end: [projectId, MAX_KEY_PART], limit: limit + 1 })
  return Array.from(keys, (key) => ({ sk: (key as [string, string])[1], key: key as Key })).filter((k) => !sameKey(k.key, erasure.cursor)).slice(0, limit)
}

const sameKey = (a: Key | undefined, b: Key | undefined) => a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b)

/**
 * Sessions phase: removes matched sessions' records, chunks and index entries; true once the walk is through. A
 * session key in the clear (a request from before issue 42) is looked up; a hashed one is found by the walk.
 */
export function eraseSessionsStep(tables: Tables, own: ErasureTables, erasure: StoredErasure, limit: number, subjectKey?: Buffer): boolean {
  const { projectId } = erasure
  const by = subjectOf(erasure)
  const match = new SubjectMatch(projectId, by, subjectKey)
  if ('sessionKey' in by) {
    erasure.sessionsExamined += 1
    const session = tables.sessions.get([projectId, by.sessionKey])
    if (session) eraseSession(tables, own, erasure, session)
    else own.erased.put([erasure.id, by.sessionKey], true)
    return true
  }
  const walk = sessionWalk(tables, erasure, limit)
  for (const { sk, key } of walk) {
    erasure.sessionsExamined += 1
    erasure.cursor = key
    const session = tables.sessions.get([projectId, sk])
    if (session && match.session(session)) eraseSession(tables, own, erasure, session)
  }
  return walk.length < limit
}

function eraseSession(tables: Tables, own: ErasureTables, erasure: StoredErasure, session: SessionRecord): void {
  const { projectId, sk } = session
  const removed = erasure.removed
  let bytes = 0
  let chunks = 0
  const chunkKeys = Array.from(tables.chunkInfo.getRange({ start: [projectId, sk, 0], end: [projectId, sk, Number.MAX_SAFE_INTEGER] }))
  for (const { key, value } of chunkKeys) {
    tables.chunks.remove(key)
    tables.chunkInfo.remove(key)
    bytes += value.size
    chunks += 1
  }
  tables.sessions.remove([projectId, sk])
  // Retention re-files a session still active at its cutoff under its last activity: both places.
  tables.sessionsByTime.remove([session.createdAt, projectId, sk])
  tables.sessionsByTime.remove([session.updatedAt, projectId, sk])
  tables.sessionsByStart.remove([projectId, session.startedAt, sk])
  own.erased.put([erasure.id, sk], true)

  const stats = { ...(tables.projectStats.get(projectId) ?? emptyStats()) }
  stats.sessionCount = Math.max(0, stats.sessionCount - 1)
  stats.chunkCount = Math.max(0, stats.chunkCount - chunks)
  // A purged session's bytes left the counters when retention deleted them.
  if (session.purgedAt === undefined) uncountRecording(stats, session, bytes)
  tables.projectStats.put(projectId, stats)

  removed.sessions += 1
  removed.chunks += chunks
  removed.bytes += session.purgedAt === undefined ? bytes : 0
}

/**
 * Signals phase: removes the project's batches of erased sessions (and those
 * that name the subject themselves, whose sessions join the erased ones);
 * true once every batch was looked at.
 */
export function eraseSignalsStep(tables: Tables, own: ErasureTables, erasure: StoredErasure, limit: number, subjectKey?: Buffer): boolean {
  const { projectId } = erasure
  const match = new SubjectMatch(projectId, subjectOf(erasure), subjectKey)
  const range = erasure.cursor === undefined ? projectRange(projectId) : { start: erasure.cursor, end: [projectId, MAX_KEY_PART] }
  const entries = Array.from(tables.signals.getRange({ ...range, limit: limit + 1 })).filter((e) => !sameKey(e.key as Key, erasure.cursor))
  const taken = entries.slice(0, limit)
  let removed = 0
  for (const { key, value } of taken) {
    erasure.cursor = key as Key
    const batch = value as SignalsRecord
    const named = own.erased.doesExist([erasure.id, batch.sk])
    if (!named && !match.batch(batch)) continue
    if (!named) own.erased.put([erasure.id, batch.sk], true)
    tables.signals.remove(key)
    if (batch.batchId !== undefined) tables.signalBatchIds.remove([projectId, batch.sk, batch.batchId])
    removed += 1
  }
  if (removed > 0) {
    const stats = { ...(tables.projectStats.get(projectId) ?? emptyStats()) }
    stats.signalBatches = Math.max(0, stats.signalBatches - removed)
    tables.projectStats.put(projectId, stats)
    erasure.removed.signalBatches += removed
  }
  return taken.length < limit
}

/**
 * Fold-log entries whose batch is gone (this erasure's, or any earlier one's):
 * the fold skips them, and they still name the session key. Walks the whole
 * log, every project's, from `cursor`; answers where the next step resumes
 * (undefined: through).
 */
export function eraseFoldLogStep(tables: Tables, erasure: StoredErasure, limit: number): boolean {
  const range = erasure.cursor === undefined ? {} : { start: erasure.cursor }
  const entries = Array.from(tables.foldLog.getRange({ ...range, limit: limit + 1 })).filter((e) => !sameKey(e.key as Key, erasure.cursor))
  const taken = entries.slice(0, limit)
  for (const { key, value } of taken) {
    erasure.cursor = key as Key
    const signalsKey = value as Key
    if ((signalsKey as unknown[])[0] === erasure.projectId && !tables.signals.doesExist(signalsKey)) tables.foldLog.remove(key)
  }
  return taken.length < limit
}

/**
 * Aggregates phase, in an aggregates transaction: removes every derived entry
 * of the project that names an erased session, in every generation (a
 * backfill may be building one), and takes the label off the elements those
 * sessions clicked (the latest label may be theirs). True once through.
 */
export function eraseAggregatesStep(tables: Tables, own: ErasureTables, erasure: StoredErasure, limit: number): boolean {
  const { projectId } = erasure
  const erased = (sk: unknown) => typeof sk === 'string' && own.erased.doesExist([erasure.id, sk])
  let removed = 0
  const remove = (key: Key) => {
    if (tables.derived.doesExist(key)) removed += 1
    tables.derived.remove(key)
  }
  const wholeProject = 'project' in subjectOf(erasure)
  const walk = wholeProject ? everyEntry(tables, erasure, limit) : namingEntries(tables, erasure, limit)
  for (const { key, value } of walk.entries) {
    if (wholeProject) {
      remove(key)
      continue
    }
    const parts = key as (string | number)[]
    const [, gen, tag] = parts
    const base = [projectId, gen]
    switch (tag) {
      case 'ss':
      case 'vw':
      case 'sp':
      case 'ou': // a session's overview units, one record per session (overview-fold.ts)
      case 'sf': // a session's friction and error index: keys only, the records are fr's and eo's
      case 'se':
        if (erased(parts[3])) remove(key)
        break
      case 'es':
        if (erased(parts[4])) {
          remove(key)
          unlabel(tables, [...base, 'en', parts[3]])
        }
        break
      case 'fr': {
        const record = value as FrictionRecord | null
        if (parts[3] !== ALL_SCOPE || !record || !erased(record.sk)) break
        // The page scope's entry is the key alone (aggregate-batch.ts): it goes with the record.
        remove(key)
        remove([...base, 'fr', pageScope(shortId(record.page)), parts[4], parts[5]])
        break
      }
      case 'eo': {
        const occurrence = value as ErrorOccurrence | null
        if (parts[3] !== ALL_SCOPE || !occurrence || !erased(occurrence.sk)) break
        remove(key)
        remove([...base, 'eo', pageScope(shortId(occurrence.page)), parts[4], parts[5], parts[6]])
        break
      }
    }
  }
  erasure.removed.aggregateEntries += removed
  if (walk.through && wholeProject) tables.derivedState.remove(projectId)
  return walk.through
}

/** Derived tags whose entries can name a session (derived-keys.ts, overview-fold.ts); the others hold counts only. */
const NAMING_TAGS = new Set(['ss', 'vw', 'sp', 'ou', 'es', 'fr', 'eo', 'sf', 'se'])

interface Walk {
  entries: { key: Key; value: unknown }[]
  /** Every entry of the project was looked at. */
  through: boolean
}

/** Up to `limit` entries of the project after the cursor, which moves past them. */
function everyEntry(tables: Tables, erasure: StoredErasure, limit: number): Walk {
  const { projectId } = erasure
  const range = erasure.cursor === undefined ? projectRange(projectId) : { start: erasure.cursor, end: [projectId, MAX_KEY_PART] }
  const entries = Array.from(tables.derived.getRange({ ...range, limit: limit + 1 }), ({ key, value }) => ({ key: key as Key, value })).filter((e) => !sameKey(e.key, erasure.cursor))
  const taken = entries.slice(0, limit)
  if (taken.length > 0) erasure.cursor = taken[taken.length - 1].key
  return { entries: taken, through: taken.length < limit }
}

/**
 * The entries of tags that can name a session, after the cursor: a key of any
 * other tag (heat bins, buckets, names, messages) makes the walk jump past
 * that tag of its generation, one lookup for the whole range. At most `limit`
 * keys are looked at; the cursor moves past them.
 */
function namingEntries(tables: Tables, erasure: StoredErasure, limit: number): Walk {
  const { projectId } = erasure
  const end = [projectId, MAX_KEY_PART]
  const entries: Walk['entries'] = []
  for (let examined = 0; examined < limit; ) {
    const start = erasure.cursor ?? [projectId]
    const run = Array.from(tables.derived.getRange({ start, end, limit: limit - examined + 1 }), ({ key, value }) => ({ key: key as Key, value })).filter((e) => !sameKey(e.key, erasure.cursor))
    if (run.length === 0) return { entries, through: true }
    for (const entry of run) {
      examined += 1
      const [, gen, tag] = entry.key as (string | number)[]
      if (!NAMING_TAGS.has(String(tag))) {
        // Past every key of this tag in this generation: the next read starts after them.
        erasure.cursor = [projectId, gen, tag, MAX_KEY_PART]
        break
      }
      erasure.cursor = entry.key
      entries.push(entry)
      if (examined >= limit) break
    }
  }
  return { entries, through: false }
}

function unlabel(tables: Tables, key: Key): void {
  const name = tables.derived.get(key) as ElementName | undefined
  if (!name || name.label === undefined) return
  const { label: _label, ...rest } = name
  tables.derived.put(key, rest)
}

/** Last phase: forgets the session keys the erasure kept; true once none is left. */
export function forgetErasedStep(own: ErasureTables, erasure: StoredErasure, limit: number): boolean {
  const keys = Array.from(own.erased.getKeys({ start: [erasure.id], end: [erasure.id, MAX_KEY_PART], limit: limit + 1 }))
  for (const key of keys.slice(0, limit)) own.erased.remove(key)
  return keys.length <= limit
}

/**
 * A project's deletion, last phase: what the project kept apart from its sessions (its page indexes, stylesheet
 * texts, counters, backfill and setup tokens). The project record and its public key went when the deletion was
 * requested. Stylesheets are bounded per project (500), pages by the page cap: one transaction holds them.
 */
export function eraseProjectStep(tables: Tables, erasure: StoredErasure): void {
  const { projectId } = erasure
  for (const table of [tables.pages, tables.pagesNext, tables.styles]) {
    for (const key of Array.from(table.getKeys(projectRange(projectId)))) table.remove(key)
  }
  for (const key of Array.from(tables.setupTokensByProject.getKeys(projectRange(projectId)))) {
    tables.setupTokens.remove((key as [string, string])[1])
    tables.setupTokensByProject.remove(key)
  }
  tables.projectStats.remove(projectId)
  tables.backfills.remove(projectId)
}

/** When a project's deletion is requested, in its transaction: the project is gone for every reader and for ingest at once. */
export function detachProject(tables: Tables, projectId: string): void {
  const project = tables.projects.get(projectId)
  if (!project) return
  tables.projectsByKey.remove(project.publicKey)
  tables.projectsByOrg.remove([project.orgId, projectId])
  tables.projects.remove(projectId)
}

/** The sessions the request names now, and the log messages that hold their chunks and batches. */
export function erasedPlaces(tables: Tables, projectId: string, by: ErasureSubject, subjectKey?: Buffer): ErasedPlaces {
  const sessions = new Set<string>()
  const places = new PlaceSet()
  const match = new SubjectMatch(projectId, by, subjectKey)
  const candidates = 'sessionKey' in by ? [tables.sessions.get([projectId, by.sessionKey])].filter((s) => s !== undefined) : Array.from(tables.sessions.getRange(projectRange(projectId)), (e) => e.value)
  for (const session of candidates) {
    if (!match.session(session)) continue
    sessions.add(session.sk)
    for (const { value } of tables.chunkInfo.getRange({ start: [projectId, session.sk, 0], end: [projectId, session.sk, Number.MAX_SAFE_INTEGER] })) places.add(value.journal)
  }
  for (const { value } of tables.signals.getRange(projectRange(projectId))) {
    if (sessions.has(value.sk) || match.batch(value)) places.add(value.journal)
  }
  return { sessions, messages: places.messages }
}

/**
 * A dry run, one budget's worth at a time: the project's sessions the request
 * names, then its batches (a batch counts when its session is named, looked
 * up by key, so that no step needs what an earlier one found).
 */
export function countErasure(tables: Tables, projectId: string, by: ErasureSubject, from: ErasureCountCursor = { phase: 'sessions', after: undefined }, budget = new ReadBudget(), subjectKey?: Buffer): ErasureCountStep {
  const match = new SubjectMatch(projectId, by, subjectKey)
  const counts: ErasureCounts = { sessions: 0, chunks: 0, bytes: 0, signalBatches: 0 }
  const rangeAfter = (after: unknown) => (after === undefined ? projectRange(projectId) : { start: after as Key, end: [projectId, MAX_KEY_PART] })
  if (from.phase === 'sessions') {
    const entries = 'sessionKey' in by ? [tables.sessions.get([projectId, by.sessionKey])].filter((s) => s !== undefined).map((value) => ({ key: [projectId, value.sk] as Key, value })) : tables.sessions.getRange(rangeAfter(from.after))
    for (const { key, value: session } of entries) {
      if (sameKey(key as Key, from.after as Key | undefined)) continue
      if (!budget.entry()) return { counts, next: from }
      from = { phase: 'sessions', after: key }
      if (!match.session(session)) continue
      counts.sessions += 1
      counts.chunks += session.chunkCount
      if (session.purgedAt === undefined) counts.bytes += session.bytes
    }
    from = { phase: 'signals', after: undefined }
  }
  const named = new Map<string, boolean>()
  const sessionNamed = (sk: string) => {
    let found = named.get(sk)
    if (found === undefined) {
      const session = tables.sessions.get([projectId, sk])
      named.set(sk, (found = session !== undefined && match.session(session)))
    }
    return found
  }
  for (const { key, value } of tables.signals.getRange(rangeAfter(from.after))) {
    if (sameKey(key as Key, from.after as Key | undefined)) continue
    if (!budget.entry()) return { counts, next: from }
    from = { phase: 'signals', after: key }
    if (match.batch(value) || sessionNamed(value.sk)) counts.signalBatches += 1
  }
  return { counts }
}
