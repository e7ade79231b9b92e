/**
 * The part of the store that keeps the aggregates derived from signal
 * batches (src/store/insights.ts says what they are) and reads them back.
 * Derivation may run behind ingest: a backend says how far behind it is, and
 * applies what is pending when asked, so that a reader sees what a client sent.
 */
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
} from './insights.js'
import type { PageSlice } from './records.js'
import type { Overview, OverviewQuery } from './aggregates/overview.js'

export interface InsightStore {
  /**
   * Brings up to `limit` of the oldest stored batches not yet in the
   * aggregates into them (a backend picks a default); resolves to how many
   * (0: none was pending). The fold thread calls it in a loop; readers call
   * it first, so that what a client sent is in what it reads.
   */
  applyDerivations(limit?: number): Promise<number>
  /** How many stored batches the aggregates do not hold yet. */
  derivationLag(): number

  /** Sessions newest first (by start), filtered, one page per call. */
  listSessionPage(projectId: string, query: SessionListQuery): SessionListSlice
  sessionSignals(projectId: string, sk: string): SessionSignals
  /** Keys of every page signals landed on, under the rules of the live aggregates; or a slice of them (records.ts's PageSlice). */
  listSignalPages(projectId: string, slice?: PageSlice): string[]
  heatmap(projectId: string, query: HeatmapQuery): ClickHeatmap | ScrollHeatmap
  topElements(projectId: string, query: ElementsQuery): ElementRow[]
  listFriction(projectId: string, query: FrictionQuery): FrictionSlice
  /** Rows of the pages with activity in the range, most viewed first; of the given `pages` only, when set (a reader takes a large project in slices). */
  pageInsights(projectId: string, query: TimeRange & { pages?: readonly string[] }): PageInsight[]
  /** The overview's figures, series and top pages (aggregates/overview.ts), from buckets the fold keeps. */
  overview(projectId: string, query: OverviewQuery): Overview
}
