/**
 * Backfill over the LMDB tables (retention: recording-purge.ts). Each step saves where it
 * stopped in the transaction that does its work (with the aggregates side of
 * a step committed first, and idempotent), so a process killed between steps
 * resumes exactly where the last commit left off, and nothing is ever half
 * re-keyed.
 */
import type { PageRecord, Rekey, SessionRecord, SignalsRecord } from '../records.js'
import { AggregateBatch } from './aggregate-batch.js'
import { derivedStateOf } from './derived-keys.js'
import { pageIndexKey } from './append.js'
import { MAX_KEY_PART } from './keys.js'
import type { RegistryCache } from './registry-cache.js'
import type { BackfillRecord, Key, Tables } from './tables.js'

type Range = { start: Key; end: Key }

function rangeAfter(prefix: string, cursor: unknown): Range {
  return { start: (cursor as Key | undefined) ?? [prefix], end: [prefix, MAX_KEY_PART] }
}

/** Entries of a range, skipping the cursor entry itself (it was done by the previous step). */
function* after<V>(table: Tables['sessions'] | Tables['signals'], range: Range, cursor: unknown, limit: number) {
  let taken = 0
  for (const entry of (table as unknown as { getRange(r: Range): Iterable<{ key: Key; value: V }> }).getRange(range)) {
    if (cursor !== undefined && JSON.stringify(entry.key) === JSON.stringify(cursor)) continue
    if (taken++ >= limit) return
    yield entry
  }
}

function rekeySession(session: SessionRecord, rekey: Rekey, next: (page: PageRecord) => void): SessionRecord {
  return {
    ...session,
    pages: session.pages.map((p) => {
      const page = rekey(p.url)
      next(page)
      return { ...p, page: page.key }
    }),
  }
}

function rekeySignals(batch: SignalsRecord, rekey: Rekey, next: (page: PageRecord) => void): SignalsRecord {
  const entry = <T extends { url: string; page?: string }>(e: T): T => {
    const page = rekey(e.url)
    next(page)
    return { ...e, page: page.key }
  }
  return { ...batch, views: batch.views.map(entry), clicks: batch.clicks.map(entry), errors: batch.errors.map(entry) }
}

/**
 * A backfill step spans the two environments: the aggregates one (aggregate-batch.ts)
 * and the main one (raw batches, pages, the backfill's own state). Each step
 * writes the aggregates first, idempotently, and then the main side with the
 * backfill's cursor, so that a process killed between the two redoes the
 * step: the batches it counted are marked (`ag`) and skipped the second time.
 */
export interface SignalsStep {
  rekeyed: { key: Key; value: SignalsRecord }[]
  /** Pages the re-keyed batches produced, for the next page index. */
  pages: PageRecord[]
  done: boolean
}

/**
 * Signals phase, aggregates side (inside an aggregates write transaction):
 * reads the next batches after the cursor (the main environment as it is
 * now: the folds wait on this transaction, so none can fold a
 * batch this read missed and think it walked), re-keys them, counts them in
 * the generation being built, and records how far the walk has gone; at the
 * end, the rebuilt generation goes live.
 */
export function rebuildSignalsStep(tables: Tables, registry: RegistryCache, state: BackfillRecord, limit: number, rekey: Rekey, maxPages: number): SignalsStep {
  const { projectId } = state
  const derived = derivedStateOf(tables, projectId)
  const batch = new AggregateBatch(tables, registry, maxPages)
  const step: SignalsStep = { rekeyed: [], pages: [], done: false }
  for (const { key, value } of after<SignalsRecord>(tables.signals, rangeAfter(projectId, state.cursor), state.cursor, limit)) {
    const receivedAt = (key as [string, number])[1]
    const rekeyed = rekeySignals(value, (url) => ({ ...rekey(url), firstSeenAt: receivedAt }), (page) => step.pages.push(page))
    step.rekeyed.push({ key, value: rekeyed })
    if (derived.building !== undefined) batch.addRebuilt(projectId, derived.building, key, rekeyed)
  }
  batch.flush()
  step.done = step.rekeyed.length < limit
  if (derived.building === undefined) return step // a step redone after its generation went live
  if (step.done) switchToRebuilt(tables, projectId)
  else tables.derivedState.put(projectId, { ...derivedStateOf(tables, projectId), walkedThrough: step.rekeyed[step.rekeyed.length - 1].key })
  return step
}

/** Finish phase, aggregates side: deletes up to a step's budget of the replaced generations; true once none is left. */
export function pruneReplaced(tables: Tables, projectId: string, limit: number): boolean {
  return pruneStep(tables, projectId, limit * PRUNE_PER_BATCH)
}

/** One step of a backfill, main side (inside a main write transaction), after its aggregates side if it has one. */
export function backfillStepInTxn(tables: Tables, state: BackfillRecord, limit: number, rekey: Rekey, now: number, aggregates?: { signals?: SignalsStep; pruned?: boolean }): BackfillRecord {
  const { projectId } = state
  const next = (page: PageRecord) => {
    const key = pageIndexKey(projectId, page.key)
    const existing = tables.pagesNext.get(key)
    if (!existing || existing.firstSeenAt > page.firstSeenAt) tables.pagesNext.put(key, page)
  }
  const updated: BackfillRecord = { ...state, updatedAt: now }

  if (state.phase === 'sessions') {
    let count = 0
    let last: Key | undefined
    for (const { key, value } of after<SessionRecord>(tables.sessions, rangeAfter(projectId, state.cursor), state.cursor, limit)) {
      tables.sessions.put(key, rekeySession(value, (url) => ({ ...rekey(url), firstSeenAt: value.createdAt }), next))
      // Sessions stored before the session list's index existed enter it here (idempotent).
      tables.sessionsByStart.put([projectId, value.startedAt, value.sk], true)
      last = key
      count += 1
    }
    updated.sessionsRekeyed += count
    if (count < limit) Object.assign(updated, { phase: 'signals', cursor: undefined })
    else updated.cursor = last
  } else if (state.phase === 'signals') {
    const step = aggregates?.signals
    if (!step) throw new Error('a signals step runs its aggregates side first')
    for (const { key, value } of step.rekeyed) tables.signals.put(key, value)
    step.pages.forEach(next)
    updated.signalBatchesRekeyed += step.rekeyed.length
    if (step.done) Object.assign(updated, { phase: 'finish', cursor: undefined })
    else updated.cursor = step.rekeyed[step.rekeyed.length - 1].key
  } else if (state.phase === 'finish') {
    // The replaced generation of aggregates goes first, a bounded number of entries per step.
    if (!aggregates?.pruned) {
      tables.backfills.put(projectId, updated)
      return updated
    }
    // Swap the index: drop pages of the old grouping (seen before the backfill
    // began and not produced again), keep pages that ingest added meanwhile
    // under the current rules, and add the re-keyed ones.
    const range = { start: [projectId], end: [projectId, MAX_KEY_PART] }
    for (const { key, value } of tables.pages.getRange(range)) {
      if (value.firstSeenAt < state.startedAt && !tables.pagesNext.doesExist(key)) tables.pages.remove(key)
    }
    let pagesAfter = 0
    for (const { key, value } of tables.pagesNext.getRange(range)) {
      const existing = tables.pages.get(key)
      if (!existing || existing.firstSeenAt > value.firstSeenAt) tables.pages.put(key, value)
      tables.pagesNext.remove(key)
    }
    for (const _ of tables.pages.getKeys(range)) pagesAfter += 1
    Object.assign(updated, { phase: 'done', state: 'done', finishedAt: now, pagesAfter, cursor: undefined })
  }
  tables.backfills.put(projectId, updated)
  return updated
}

/** Derived entries deleted per backfill step, per session of the backfill's batch: small entries, cheap to delete. */
const PRUNE_PER_BATCH = 20

/** Opens a new generation of aggregates for a backfill to build (or keeps the one a previous run opened). */
export function beginRebuild(tables: Tables, projectId: string): void {
  const state = derivedStateOf(tables, projectId)
  if (state.building !== undefined) return
  const gen = state.lastGen + 1
  const { walkedThrough: _previous, ...rest } = state
  tables.derivedState.put(projectId, { ...rest, building: gen, lastGen: gen })
}

/** The rebuilt generation goes live; the one it replaces is left to prune. */
function switchToRebuilt(tables: Tables, projectId: string): void {
  const state = derivedStateOf(tables, projectId)
  if (state.building === undefined) return
  tables.derivedState.put(projectId, { live: state.building, lastGen: state.lastGen, prune: [...(state.prune ?? []), state.live] })
}

/** Deletes up to `budget` entries of replaced generations; true once none is left. */
function pruneStep(tables: Tables, projectId: string, budget: number): boolean {
  const state = derivedStateOf(tables, projectId)
  const prune = [...(state.prune ?? [])]
  let deleted = 0
  while (prune.length > 0) {
    const gen = prune[0]
    for (const key of tables.derived.getKeys({ start: [projectId, gen], end: [projectId, gen + 1] })) {
      if (deleted >= budget) {
        tables.derivedState.put(projectId, { ...state, prune })
        return false
      }
      tables.derived.remove(key)
      deleted += 1
    }
    prune.shift()
  }
  const { prune: _done, ...rest } = state
  tables.derivedState.put(projectId, rest)
  return true
}
