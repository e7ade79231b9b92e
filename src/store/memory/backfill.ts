/**
 * A backfill over the in-memory store, in the stages the API reports: the
 * sessions re-keyed, then the signal batches, then the page index swapped.
 * Each call does at most `budget` items of a stage; the last one done is the
 * run's cursor, so items stored meanwhile before it are not walked twice.
 */
import type { PageRecord, Rekey } from '../records.js'
import { byBytes, type BackfillRun, type MemoryData, type StoredBatch } from './data.js'

export function backfillStep(data: MemoryData, run: BackfillRun, batches: StoredBatch[], budget: number, rekey: Rekey, now: number): void {
  const { state } = run
  const { projectId } = state
  const next = (page: PageRecord) => {
    const existing = run.next.get(page.key)
    if (!existing || existing.firstSeenAt > page.firstSeenAt) run.next.set(page.key, page)
  }
  state.updatedAt = now
  if (state.phase === 'sessions') {
    const after = run.cursor as string | undefined
    const sessions = [...(data.sessions.get(projectId)?.values() ?? [])]
      .filter((s) => after === undefined || byBytes(s.sk, after) > 0)
      .sort((a, b) => byBytes(a.sk, b.sk))
      .slice(0, budget)
    for (const session of sessions) {
      session.pages = session.pages.map((p) => {
        const page = { ...rekey(p.url), firstSeenAt: session.createdAt }
        next(page)
        return { ...p, page: page.key }
      })
    }
    state.sessionsRekeyed += sessions.length
    run.cursor = sessions.at(-1)?.sk
    if (sessions.length < budget) {
      state.phase = 'signals'
      run.cursor = undefined
    }
  } else if (state.phase === 'signals') {
    const from = run.cursor === undefined ? 0 : batches.indexOf(run.cursor as StoredBatch) + 1
    const step = batches.slice(from, from + budget)
    for (const stored of step) {
      const entry = <T extends { url: string; page?: string }>(e: T): T => {
        const page = { ...rekey(e.url), firstSeenAt: stored.receivedAt }
        next(page)
        return { ...e, page: page.key }
      }
      stored.batch = { ...stored.batch, views: stored.batch.views.map(entry), clicks: stored.batch.clicks.map(entry), errors: stored.batch.errors.map(entry) }
    }
    state.signalBatchesRekeyed += step.length
    run.cursor = step.at(-1)
    if (step.length < budget) {
      state.phase = 'finish'
      run.cursor = undefined
    }
  } else if (state.phase === 'finish') {
    // Pages of the old grouping seen before the backfill began and not produced again go; pages ingest added meanwhile stay.
    const pages = data.pages.get(projectId) ?? new Map<string, PageRecord>()
    for (const [key, page] of pages) if (page.firstSeenAt < state.startedAt && !run.next.has(key)) pages.delete(key)
    for (const [key, page] of run.next) {
      const existing = pages.get(key)
      if (!existing || existing.firstSeenAt > page.firstSeenAt) pages.set(key, page)
    }
    data.pages.set(projectId, pages)
    run.next.clear()
    Object.assign(state, { phase: 'done', state: 'done', finishedAt: now, pagesAfter: pages.size })
  }
}
