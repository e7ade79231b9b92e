/**
 * The aggregates part of the LMDB store: folding logged signal batches into
 * them after the acknowledgement (fold-log.ts, aggregate-batch.ts), and
 * reading them back (queries.ts, friction-queries.ts, session-queries.ts).
 */
import { log } from '../../log.js'
import type { PageSlice } from '../records.js'
import type {
  ClickHeatmap,
  ElementRow,
  ElementsQuery,
  FrictionSlice,
  FrictionQuery,
  HeatmapQuery,
  PageInsight,
  ScrollHeatmap,
  SessionListSlice,
  SessionListQuery,
  SessionSignals,
  TimeRange,
} from '../insights.js'
import { LmdbErasure } from './erasure-store.js'
import { isStorageFailure } from './failures.js'
import { advanceCursors, foldLogged, readUnfolded, unfoldedCount } from './fold-log.js'
import { friction } from './friction-queries.js'
import { overview } from './overview-queries.js'
import type { Overview, OverviewQuery } from '../aggregates/overview.js'
import { derivedPages, heatmap, pageInsights, topElements } from './queries.js'
import { sessionPage, sessionSignals } from './session-queries.js'

/** Batches one fold takes at most: past ~2,000 the per-transaction bucket writes no longer shrink (bench/store-settings.md). */
const FOLD_LIMIT = 4_000

export abstract class LmdbInsights extends LmdbErasure {
  /** Folds logged batches into the aggregates, in one aggregates transaction (fold-log.ts). */
  async applyDerivations(limit = FOLD_LIMIT): Promise<number> {
    // Both environments as they are now: the log as the writers left it, the cursors as the last fold left them.
    this.root.resetReadTxn()
    this.aggregates.resetReadTxn()
    const logged = readUnfolded(this.tables, limit)
    if (logged.length === 0) return 0
    let folded: boolean[] = []
    await this.settle(
      this.aggregates.transaction(() => {
        // One child transaction around the whole fold: when storage fails (disk full), it undoes every entry and the
        // cursors alike, and the fold thread retries it later, instead of setting healthy batches aside for good.
        this.aggregates.transactionSync(() => {
          folded = this.eachAloneOnFailure(this.aggregates, logged, (some) => foldLogged(this.tables, this.registry, some, this.maxPages), (entry, error) => {
            if (isStorageFailure(error)) throw error
            // Not retried forever: its raw batch stays, outside the aggregates.
            log.error('signals batch could not be folded; left out of the aggregates', { error: String(error), writer: entry.writer, seq: entry.seq })
            return true
          })
          advanceCursors(this.tables, logged.filter((_, i) => folded[i]))
        })
      }),
      this.aggregates,
    )
    return folded.filter(Boolean).length
  }

  derivationLag(): number {
    this.root.resetReadTxn()
    this.aggregates.resetReadTxn()
    return unfoldedCount(this.tables)
  }

  // ---- reading back ----

  listSessionPage(projectId: string, query: SessionListQuery): SessionListSlice {
    return sessionPage(this.tables, projectId, query)
  }

  sessionSignals(projectId: string, sk: string): SessionSignals {
    return sessionSignals(this.tables, projectId, sk)
  }

  listSignalPages(projectId: string, slice?: PageSlice): string[] {
    return derivedPages(this.tables, projectId, slice)
  }

  heatmap(projectId: string, query: HeatmapQuery): ClickHeatmap | ScrollHeatmap {
    return heatmap(this.tables, projectId, query)
  }

  topElements(projectId: string, query: ElementsQuery): ElementRow[] {
    return topElements(this.tables, projectId, query)
  }

  listFriction(projectId: string, query: FrictionQuery): FrictionSlice {
    return friction(this.tables, projectId, query)
  }

  pageInsights(projectId: string, query: TimeRange & { pages?: readonly string[] }): PageInsight[] {
    return pageInsights(this.tables, projectId, query)
  }

  overview(projectId: string, query: OverviewQuery): Overview {
    return overview(this.tables, projectId, query)
  }
}
