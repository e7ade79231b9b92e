/**
 * What every part of the LMDB store shares: the two environments, their
 * tables, and how a write transaction is settled.
 *
 * Writes go through lmdb-js asynchronous transactions: the promise resolves
 * when the transaction has committed (visible to every process and safe from a
 * killed process); with durability "flush" we also wait for `flushed`, when
 * the OS reports the data synced to the disk.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { Database, RootDatabase } from 'lmdb'
import type { JournalPosition } from '../records.js'
import { StorageUnavailable } from '../store.js'
import { causeOf, isFatalStorageFailure, isStorageFailure } from './failures.js'
import { DEFAULT_MAX_PAGES } from '../aggregates/pages.js'
import { MAX_KEY_PART } from './keys.js'
import { RegistryCache } from './registry-cache.js'
import { openTables, SHAPED_TABLES, type Key, type Tables } from './tables.js'

export interface LmdbOptions {
  path: string
  /** Upper bound of the memory map, bytes. */
  mapSize: number
  durability: 'commit' | 'flush'
  /** Log stored signal batches for the fold thread to count into the aggregates (fold-log.ts); off only to measure what they cost. Default on. */
  aggregates?: boolean
  /** Pages a project holds at most; past it new pages count under `(other)` (aggregates/pages.ts). Default DEFAULT_MAX_PAGES. */
  maxPagesPerProject?: number
}

/** A log entry being applied (applyJournalled): its position, and whether a write has recorded it yet. */
interface Journalled {
  applied: JournalPosition
  entryId?: string
  recorded: boolean
}

/** Applied control entries are remembered beside the positions, under keys no stream name can take. */
const entryKey = (entryId: string) => `entry:${entryId}`

export abstract class LmdbEnvironment {
  readonly tables: Tables
  /** What this store knows its aggregates' registries hold (registry-cache.ts). */
  protected readonly registry = new RegistryCache()
  /** The entry applied by the calls in this asynchronous context, if any: calls made elsewhere meanwhile never see it. */
  private readonly journalled = new AsyncLocalStorage<Journalled>()

  /**
   * Two environments: the main one (`path`) and the aggregates' (`path/aggregates`,
   * derived-keys.ts). Each has its own write lock, so folding signals into the
   * aggregates never holds up an ingest commit; a step that writes both writes
   * the aggregates first, idempotently.
   */
  constructor(
    protected readonly root: RootDatabase,
    protected readonly aggregates: RootDatabase,
    protected readonly options: LmdbOptions,
  ) {
    this.tables = openTables(root, aggregates)
  }

  /** The page cap (aggregates/pages.ts). */
  protected get maxPages(): number {
    return this.options.maxPagesPerProject ?? DEFAULT_MAX_PAGES
  }

  protected async settle(write: Promise<unknown>, root = this.root): Promise<void> {
    try {
      await write
    } catch (error) {
      // A transaction that did not commit took any record shape it saved with it.
      this.forgetUnsavedShapes()
      const cause = await causeOf(error)
      throw isStorageFailure(cause) ? new StorageUnavailable(cause, isFatalStorageFailure(cause)) : cause
    }
    if (this.options.durability === 'flush') await root.flushed
  }

  /**
   * After a transaction or child transaction aborted: the record shapes it
   * saved to a table's shared list (STRUCTURES) were rolled back with it, but
   * the table's encoder still counts them as saved, and would write values
   * that point at them and that no other process, nor a later start, could
   * read. msgpackr's own flag makes the encoder reload the list from the
   * table before its next value, minting and saving such shapes again.
   */
  protected forgetUnsavedShapes(): void {
    for (const table of SHAPED_TABLES.map((name) => this.tables[name])) {
      const structures = (table as unknown as { encoder?: { structures?: { uninitialized?: boolean } } }).encoder?.structures
      if (structures) structures.uninitialized = true
    }
  }


  /**
   * Inside a write transaction: `run` over all items in one child transaction;
   * if that throws, over each item alone in its own, and `failed` for an item
   * that throws alone, so that one bad item fails alone.
   *
   * Why child transactions (transactionSync inside a transaction; we open
   * without cache or write map, which would disable them): lmdb-js commits
   * whatever an asynchronous transaction callback put before it threw, so a
   * throw would leave half an item and its batch-mates written while every
   * one of them is told it failed.
   */
  protected eachAloneOnFailure<I, R>(root: RootDatabase, items: I[], run: (items: I[]) => R[], failed: (item: I, error: unknown) => R): R[] {
    try {
      let results: R[] = []
      root.transactionSync(() => {
        results = run(items)
      })
      return results
    } catch {
      // The rare path.
      this.forgetUnsavedShapes()
      return items.map((item) => {
        try {
          let result: R | undefined
          root.transactionSync(() => {
            result = run([item])[0]
          })
          return result as R
        } catch (error) {
          this.forgetUnsavedShapes()
          return failed(item, error)
        }
      })
    }
  }

  /**
   * A write transaction of the main environment. Inside applyJournalled, its
   * first one also records the entry's log position once `write` has run
   * without throwing: the change and the position commit together or not at all.
   */
  protected write(write: () => unknown): Promise<unknown> {
    const journalled = this.journalled.getStore()
    if (!journalled || journalled.recorded) return this.root.transaction(write)
    return this.root.transaction(() => {
      const result = write()
      this.recordInTxn(journalled)
      return result
    })
  }

  /**
   * Applies one control entry of the log (src/journal/applier.ts): `run` makes
   * the store calls the entry names, and the entry's position commits in the
   * same transaction as their first write (or alone, when they write nothing),
   * so a node that crashes between the two never applies the entry twice.
   */
  async applyJournalled<T>(applied: JournalPosition, run: () => Promise<T>, entryId?: string): Promise<T> {
    const journalled: Journalled = { applied, entryId, recorded: false }
    let result: T
    try {
      result = await this.journalled.run(journalled, run)
    } catch (error) {
      // Storage failed: nothing committed, and the follower applies the entry again. Any other failure is the call's own.
      if (!(error instanceof StorageUnavailable) && !journalled.recorded) await this.settle(this.root.transaction(() => this.recordInTxn(journalled)))
      throw error
    }
    if (!journalled.recorded) await this.settle(this.root.transaction(() => this.recordInTxn(journalled)))
    return result
  }

  journalEntryApplied(entryId: string): boolean {
    return this.tables.journalPositions.get(entryKey(entryId)) !== undefined
  }

  private recordInTxn(journalled: Journalled): void {
    const { stream, seq } = journalled.applied
    this.tables.journalPositions.put(stream, seq)
    if (journalled.entryId !== undefined) this.tables.journalPositions.put(entryKey(journalled.entryId), seq)
    journalled.recorded = true
  }

  /** Merges `patch` into the record at `id` inside one write transaction. */
  protected async update<V extends object>(table: Database<V, string>, id: string, patch: Partial<V>): Promise<V | undefined> {
    let updated: V | undefined
    await this.settle(
      this.write(() => {
        const current = table.get(id)
        if (!current) return
        updated = { ...current, ...patch }
        table.put(id, updated)
      }),
    )
    return updated
  }

  protected idsUnder(index: Database<true, Key>, prefix: string): string[] {
    return Array.from(index.getKeys({ start: [prefix], end: [prefix, MAX_KEY_PART] }), (key) => (key as [string, string])[1])
  }
}
