/**
 * Erasure requests over LMDB (src/store/erasure-store.ts): the request and its
 * progress in table `erasures`, each step one write transaction of the main
 * environment (sessions, signals, fold log) or of the aggregates' (derived
 * entries), saving the request's cursor with what it removed.
 */
import type { ErasedPlaces, ErasureCountCursor, ErasureCountStep, ErasureCounts, ErasurePhase, ErasureRecord, ErasureStore, ErasureSubject, NewErasure } from '../erasure-store.js'
import type { ReadBudget } from '../read-budget.js'
import { finishErasure, queuedErasure } from '../erasure-store.js'
import { LmdbAccounts } from './accounts.js'
import {
  countErasure,
  detachProject,
  erasedPlaces,
  eraseAggregatesStep,
  eraseFoldLogStep,
  eraseProjectStep,
  eraseSessionsStep,
  eraseSignalsStep,
  forgetErasedStep,
  type ErasureTables,
  type StoredErasure,
} from './erasure.js'

const NEXT_PHASE = { sessions: 'signals', signals: 'fold-log', 'fold-log': 'aggregates', aggregates: 'forget', forget: 'project', project: undefined } as const

/** The phase after `phase`: only a project's deletion has a `project` phase. */
function nextPhase(erasure: ErasureRecord): ErasurePhase | undefined {
  const next = NEXT_PHASE[erasure.phase]
  return next === 'project' && erasure.subject !== 'project' ? undefined : next
}

const publicRecord = ({ cursor: _cursor, ...record }: StoredErasure): ErasureRecord => record

export abstract class LmdbErasure extends LmdbAccounts implements ErasureStore {
  private ownTables?: ErasureTables

  /** Opened on first use: a store that never erases never creates them. */
  private get erasureTables(): ErasureTables {
    return (this.ownTables ??= {
      erasures: this.root.openDB('erasures', {}),
      erased: this.root.openDB('erasure-sessions', {}),
    })
  }

  abstract applyDerivations(limit?: number): Promise<number>

  countErasure(projectId: string, by: ErasureSubject, from?: ErasureCountCursor, budget?: ReadBudget, subjectKey?: Buffer): ErasureCountStep {
    return countErasure(this.tables, projectId, by, from, budget, subjectKey)
  }

  erasedPlaces(projectId: string, by: ErasureSubject, subjectKey?: Buffer): ErasedPlaces {
    return erasedPlaces(this.tables, projectId, by, subjectKey)
  }

  async startErasure(request: NewErasure, now: number): Promise<ErasureRecord> {
    const { erasures } = this.erasureTables
    let answer: StoredErasure | undefined
    await this.settle(this.write(() => {
      const existing = erasures.get(request.id)
      if (existing && existing.state !== 'done') return void (answer = existing)
      erasures.put(request.id, (answer = queuedErasure(request, now, (existing?.runs ?? 0) + 1)))
      if ('project' in request.by) detachProject(this.tables, request.projectId)
    }))
    return publicRecord(answer!)
  }

  async continueErasure(id: string, budget: number, now: number, subjectKey?: Buffer): Promise<ErasureRecord> {
    const own = this.erasureTables
    const before = own.erasures.get(id)
    if (!before) throw new Error(`no erasure ${id}`)
    if (before.state === 'done') return publicRecord(before)
    if (before.phase === 'aggregates' && before.cursor === undefined && this.options.aggregates !== false) await this.foldEverythingLogged()
    let after: StoredErasure | undefined
    const step = () => {
      const erasure: StoredErasure = structuredClone(own.erasures.get(id)!)
      if (erasure.state === 'done') return (after = erasure)
      erasure.state = 'running'
      erasure.updatedAt = now
      let through = false
      switch (erasure.phase) {
        case 'sessions':
          through = eraseSessionsStep(this.tables, own, erasure, budget, subjectKey)
          break
        case 'signals':
          through = eraseSignalsStep(this.tables, own, erasure, budget, subjectKey)
          break
        case 'fold-log':
          through = eraseFoldLogStep(this.tables, erasure, budget)
          break
        case 'forget':
          through = forgetErasedStep(own, erasure, budget)
          break
        case 'project':
          eraseProjectStep(this.tables, erasure)
          through = true
          break
      }
      if (through) {
        const next = nextPhase(erasure)
        delete erasure.cursor
        if (next) erasure.phase = next
        else finishErasure(erasure, now)
      }
      own.erasures.put(id, erasure)
      after = erasure
    }
    if (before.phase === 'aggregates') {
      // Derived entries live in the aggregates environment; the request's record in the main one. The aggregates
      // commit first: a crash between the two repeats the step, which finds nothing more to remove.
      let aggregated: StoredErasure | undefined
      await this.settle(this.aggregates.transaction(() => {
        aggregated = structuredClone(own.erasures.get(id)!)
        aggregated.state = 'running'
        aggregated.updatedAt = now
        if (eraseAggregatesStep(this.tables, own, aggregated, budget)) {
          delete aggregated.cursor
          aggregated.phase = 'forget'
        }
      }), this.aggregates)
      await this.settle(this.write(() => void own.erasures.put(id, (after = aggregated!))))
    } else await this.settle(this.write(step))
    return publicRecord(after!)
  }

  /**
   * Folds every batch logged so far, reading the main environment as it is now (after the signals phase
   * committed): a fold that read an erased batch before it went either committed already (its entries are
   * in the derived table for the aggregates phase to find) or finds its cursors past them and counts nothing.
   */
  private async foldEverythingLogged(): Promise<void> {
    while ((await this.applyDerivations()) > 0);
  }

  getErasure(id: string): ErasureRecord | undefined {
    const stored = this.erasureTables.erasures.get(id)
    return stored && publicRecord(stored)
  }

  listErasures(projectId: string): ErasureRecord[] {
    const all = Array.from(this.erasureTables.erasures.getRange({}), ({ value }) => value)
    return all.filter((e) => e.projectId === projectId).map(publicRecord).sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
  }

  listRunningErasures(): ErasureRecord[] {
    return Array.from(this.erasureTables.erasures.getRange({}), ({ value }) => value).filter((e) => e.state !== 'done').map(publicRecord)
  }
}
