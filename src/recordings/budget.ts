/**
 * The disk budget (STORAGE_BUDGET): the control worker keeps the chunk bytes
 * the store holds below the budget by deleting whole recordings, oldest
 * first from the project holding the most (store.evictRecordings); session
 * metadata, signals and aggregates stay, as after retention.
 *
 * Measured on the store's own counters, not on the files: LMDB files never
 * shrink, the pages a delete frees are reused by later writes. So eviction
 * starts below the budget and frees further (evictionBounds), leaving room
 * for what ingest writes between two checks and for the metadata, signals
 * and free pages the data file holds beside the recordings; and the files'
 * size is watched too (the file guard).
 * Ingest is never refused for the budget: the check runs every 50
 * milliseconds, ahead of what a node can write in that time.
 */
import { statfsSync } from 'node:fs'
import type { StorageBudget } from '../config.js'
import { log } from '../log.js'
import { metrics } from '../metrics/registry.js'
import type { EvictionResult, Store } from '../store/store.js'
import { schedulePeriodic } from '../periodic.js'

/**
 * Headroom kept free under the budget, as a share of it and at least a fixed
 * amount: what ingest writes between two checks and while an eviction waits
 * for the write lock (a front commits up to WRITE_BATCH_BYTES, 4 MiB, at
 * once), and the freed pages LMDB cannot reuse yet (a page freed by a
 * transaction is reusable only once no reader still sees it). Eviction
 * starts above budget - headroom and frees down to a further tenth of the
 * budget below that, so it runs in batches.
 */
const HEADROOM_SHARE = 0.25
const HEADROOM_MIN_BYTES = 8 * 1024 * 1024
const BATCH_SHARE = 0.1

/**
 * The file guard. Freed pages are reused only where a run of them is long
 * enough for the value written: a 100 KB chunk needs 26 contiguous pages,
 * and single index pages taken from the free runs break them up, so the
 * data file creeps past what the live bytes need (bench/RESULTS.md,
 * "Storage budget"). Past FILE_GUARD of the budget, every byte the files
 * grew lowers both bounds by GUARD_SLOPE bytes, down to GUARD_FLOOR of the
 * budget: more free pages, longer runs. The files never shrink, so the
 * bounds they set hold across restarts with no state kept. The floor stays:
 * the files also hold signals and metadata, which eviction does not delete.
 */
const FILE_GUARD = 0.95
const GUARD_SLOPE = 4
const GUARD_FLOOR = 0.4

/** Chunk bytes above which eviction starts, and down to which it frees, with the data files at `fileBytes`. */
export function evictionBounds(budget: number, fileBytes = 0): { above: number; to: number } {
  const headroom = Math.max(budget * HEADROOM_SHARE, HEADROOM_MIN_BYTES)
  const guarded = GUARD_SLOPE * Math.max(0, fileBytes - budget * FILE_GUARD)
  const above = Math.max(budget - headroom - guarded, Math.min(budget * GUARD_FLOOR, budget - headroom), 0)
  return { above, to: Math.max(0, above - budget * BATCH_SHARE) }
}

/** How often the chunk bytes are checked, ms: a check reads a few counters and two file sizes, and a node writes a few MB in that time. */
export const BUDGET_CHECK_MS = 50

/** The budget in bytes: as given, or the share of the disk DATA_DIR is on (its size, not what is free). */
export function budgetBytes(budget: StorageBudget, dataDir: string): number {
  if ('bytes' in budget) return budget.bytes
  const disk = statfsSync(dataDir)
  return Math.floor((disk.blocks * disk.bsize * budget.percentOfDisk) / 100)
}

/** One check: evicts down to the lower bound once the chunk bytes passed the upper one (evictionBounds); undefined when nothing had to go. */
export async function enforceBudget(store: Store, budget: number, now: number): Promise<EvictionResult | undefined> {
  const use = store.storageUse()
  let held = 0
  for (const stats of use.projects.values()) held += stats.bytes
  const bounds = evictionBounds(budget, use.fileBytes)
  if (held <= bounds.above) return undefined
  const result = await store.evictRecordings(held - bounds.to, now)
  for (const [projectId, evicted] of Object.entries(result.byProject)) {
    metrics.evictedSessions.labels(projectId).inc(evicted.sessions)
    metrics.evictedBytes.labels(projectId).inc(evicted.bytes)
  }
  log.info('storage budget: deleted the oldest recordings', { budgetBytes: budget, heldBytes: held, fileBytes: use.fileBytes, sessions: result.sessionsPurged, bytes: result.bytesDeleted, byProject: result.byProject })
  return result
}

/** Checks every `intervalMs`; returns a function that stops it. */
export function scheduleBudget(store: Store, budget: number, intervalMs = BUDGET_CHECK_MS, now: () => number = Date.now): () => void {
  metrics.storageBudget.set(budget)
  return schedulePeriodic('storage budget check', intervalMs, () => enforceBudget(store, budget, now()).then(() => undefined))
}
