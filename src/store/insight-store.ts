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
  /** Keys of every page signals landed on, under the rules of the live aggregates. */
  listSignalPages(projectId: string): string[]
  heatmap(projectId: string, query: HeatmapQuery): ClickHeatmap | ScrollHeatmap
  topElements(projectId: string, query: ElementsQuery): ElementRow[]
  listFriction(projectId: string, query: FrictionQuery): FrictionSlice
  pageInsights(projectId: string, query: TimeRange): PageInsight[]
}
