/**
 * Which stored signal batches the fold has still to count into the
 * aggregates (aggregate-batch.ts): an append-only log per writer, read from
 * cursors.
 *
 * Each ingest writer thread appends `[writer, seq] → signals key` in the
 * transaction that stores the batch (main environment, table `foldLog`), with
 * `seq` counting up in the order its transactions run, which is the order
 * they commit: when a reader sees a writer's entry, it sees every earlier one
 * that will ever commit. A fold takes, per writer, the entries after that
 * writer's cursor (aggregates environment, table `foldCursors`), counts their
 * batches and moves the cursors in the same aggregates transaction. So a batch
 * is counted exactly once whatever crashes or races (two folds reading the
 * same entries: the second finds the cursor past them inside its transaction
 * and skips them), and the fold never takes the main environment's write
 * lock, which the fronts' commits wait on (bench/store-settings.md).
 *
 * Nothing deletes from the log: it is kept, as the raw batches it points at
 * are (retention removes recordings, not signals), at about 2% of their size.
 * When signals get a retention of their own, their entries go with them.
 */
import { threadId } from 'node:worker_threads'
import type { SignalsRecord } from '../records.js'
import { AggregateBatch } from './aggregate-batch.js'
import type { RegistryCache } from './registry-cache.js'
import { MAX_KEY_PART } from './keys.js'
import type { Key, Tables } from './tables.js'

/**
 * This thread's log: its start time, process and thread, so that a restarted
 * writer (a new process, maybe with a reused pid) starts a log of its own.
 */
const WRITER = `${Date.now().toString(36)}.${process.pid}.${threadId}`
let seq = 0

/** Inside the ingest transaction that stores the batch: logs it for the fold. */
export function logForFold(tables: Tables, signalsKey: Key): void {
  seq += 1
  tables.foldLog.put([WRITER, seq], signalsKey)
}

/** A logged batch still to fold. */
export interface LoggedBatch {
  writer: string
  seq: number
  signalsKey: Key
}

/** The writers that have a log, one key read each (a skip scan). */
function* writers(tables: Tables): Generator<string> {
  let start: Key | undefined
  for (;;) {
    const [first] = tables.foldLog.getKeys({ start, limit: 1 })
    if (!first) return
    const writer = (first as [string, number])[0]
    yield writer
    start = [writer, MAX_KEY_PART]
  }
}

/** The seq of the last of a writer's entries folded (0: none yet). */
const cursorOf = (tables: Tables, writer: string): number => tables.foldCursors.get(writer) ?? 0

const logAfter = (writer: string, cursor: number) => ({ start: [writer, cursor + 1], end: [writer, MAX_KEY_PART] })

/**
 * Up to `limit` batches still to fold, oldest received first: from each
 * writer a run of entries straight after its cursor (a fold must take a
 * prefix of each log, or its cursor would skip what it left out), the limit
 * shared between writers so that none waits behind another's backlog.
 */
export function readUnfolded(tables: Tables, limit: number): LoggedBatch[] {
  const runs: LoggedBatch[][] = []
  for (const writer of writers(tables)) {
    const run: LoggedBatch[] = []
    for (const { key, value } of tables.foldLog.getRange({ ...logAfter(writer, cursorOf(tables, writer)), limit })) {
      run.push({ writer, seq: (key as [string, number])[1], signalsKey: value })
    }
    if (run.length > 0) runs.push(run)
  }
  // Share the limit: the shortest runs are taken whole, the longer ones cut to what is left between them.
  runs.sort((a, b) => a.length - b.length)
  let left = limit
  const pending = runs.flatMap((run, i) => {
    const taken = run.slice(0, Math.floor(left / (runs.length - i)))
    left -= taken.length
    return taken
  })
  return pending.sort((a, b) => receivedAtOf(a.signalsKey) - receivedAtOf(b.signalsKey))
}

/** Signals keys are [projectId, receivedAt, …] (append.ts). */
const receivedAtOf = (signalsKey: Key) => (signalsKey as [string, number])[1]

/**
 * Inside an aggregates write transaction: folds the logged batches that no
 * fold has counted yet (the cursors, read here, are the committed ones) and
 * answers for each whether this fold counted it; the caller then moves the
 * cursors past them (`advanceCursors`) in the same transaction.
 *
 * Each batch is read and decoded just before it is counted, so that its
 * objects die young: read all first, a fold of 2,000 batches kept ~20 MB of
 * them alive until its end, which the garbage collector paid for. A batch a
 * backfill re-keyed meanwhile is folded as read: the generation the backfill
 * builds has it already (marked), and the live one is replaced at the
 * backfill's end.
 */
export function foldLogged(tables: Tables, registry: RegistryCache, logged: LoggedBatch[], maxPages: number): boolean[] {
  const batch = new AggregateBatch(tables, registry, maxPages)
  const cursors = new Map<string, number>()
  const folded = logged.map(({ writer, seq: at, signalsKey }) => {
    if (!cursors.has(writer)) cursors.set(writer, cursorOf(tables, writer))
    if (at <= cursors.get(writer)!) return false
    const stored: SignalsRecord | undefined = tables.signals.get(signalsKey)
    if (stored) batch.addStored((signalsKey as [string])[0], signalsKey, stored)
    return true
  })
  batch.flush()
  return folded
}

/** Inside the same aggregates transaction: each writer's cursor to the last of its entries this fold took. */
export function advanceCursors(tables: Tables, taken: LoggedBatch[]): void {
  const last = new Map<string, number>()
  for (const { writer, seq: at } of taken) last.set(writer, Math.max(at, last.get(writer) ?? 0))
  for (const [writer, at] of last) {
    if (at > cursorOf(tables, writer)) tables.foldCursors.put(writer, at)
  }
}

/** How many logged batches are still to fold: the fold's lag. */
export function unfoldedCount(tables: Tables): number {
  let count = 0
  for (const writer of writers(tables)) count += tables.foldLog.getKeysCount(logAfter(writer, cursorOf(tables, writer)))
  return count
}
