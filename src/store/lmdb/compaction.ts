/**
 * Compaction: how an erasure's bytes leave DATA_DIR (issue 34, /docs/privacy).
 *
 * Deleting from LMDB is not enough. A deleted value's bytes stay in the file:
 * in freed pages until they are reused, and in the unused middle of live
 * pages (a node removed or moved by a split leaves its bytes there). Zeroing
 * values before deleting them and then filling the free pages with zeros left
 * some erased values readable in freed pages LMDB never handed out again; a
 * compacting copy (mdb_env_copy2 with MDB_CP_COMPACT) writes only live pages,
 * but copies branch pages as they are, and a deleted key that once divided
 * two leaves stays there as their separator (26 of the 2,000 deleted keys of
 * a 20,000-entry table in test/store/compaction.test.ts). So the store is rebuilt
 * instead: every live entry of every table put, in order, into a fresh
 * environment, whose separators are then keys that exist.
 *
 * The rebuild replaces data.mdb, which every process must then open anew: the
 * primary pauses every child (each closes its environments and holds its
 * writes), compacts both environments here, and resumes them
 * (src/supervisor/compaction-round.ts). It runs with no process holding the
 * environment, so nothing written during the copy is lost.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { open } from 'lmdb'
import { environmentOptions } from './index.js'
import { removeLiveBoard } from '../../live/board.js'

/** When the last compaction ended, ms since the epoch: what erasures finished before it are scrubbed by. */
const MARK_FILE = 'compacted-at'
/** Present while an erasure waits for a compaction: a primary starting finds it and compacts before anything opens the store. */
const WANTED_FILE = 'compaction-wanted'

export function wantCompaction(dataDir: string): void {
  writeFileSync(join(dataDir, WANTED_FILE), '', { mode: 0o600 })
}

export function compactionWanted(dataDir: string): boolean {
  return existsSync(join(dataDir, WANTED_FILE))
}

export function lastCompactionAt(dataDir: string): number {
  try {
    return Number(readFileSync(join(dataDir, MARK_FILE), 'utf8')) || 0
  } catch {
    // Never compacted.
    return 0
  }
}

/** The environments of a store in `dataDir`: the main one and the aggregates' (index.ts). */
const environmentsOf = (dataDir: string) => [dataDir, join(dataDir, 'aggregates')]

/**
 * Compacts each environment into a fresh file and puts it in the old one's
 * place. Only while no process has the environment open. Answers the bytes
 * before and after, for the log.
 */
export async function compactStore(dataDir: string, mapSize: number, now = Date.now()): Promise<{ before: number; after: number }> {
  let before = 0
  let after = 0
  for (const path of environmentsOf(dataDir)) {
    const file = join(path, 'data.mdb')
    if (!existsSync(file)) continue
    await refuseIfHeld(path, mapSize)
  }
  for (const path of environmentsOf(dataDir)) {
    const file = join(path, 'data.mdb')
    if (!existsSync(file)) continue
    const scratch = join(path, 'compacting')
    rmSync(scratch, { recursive: true, force: true })
    mkdirSync(scratch, { mode: 0o700 })
    await rebuild(path, scratch, mapSize)
    before += sizeOf(file)
    after += sizeOf(join(scratch, 'data.mdb'))
    // A rename replaces the file whole: a crash leaves either the old file or the compacted one.
    chmodSync(join(scratch, 'data.mdb'), 0o600)
    renameSync(join(scratch, 'data.mdb'), file)
    rmSync(scratch, { recursive: true, force: true })
  }
  // Sessions seen and watched in the last minutes, erased ones among them: the next chunks and watches put back the rest.
  // Every child has closed the board too (LiveBoard.suspend), so no process maps the files removed.
  removeLiveBoard(dataDir)
  writeFileSync(join(dataDir, MARK_FILE), String(now), { mode: 0o600 })
  rmSync(join(dataDir, WANTED_FILE), { force: true })
  return { before, after }
}

/** Another process has the store open (`npm run admin`, a backup script): the file it maps must not be replaced under it. */
export class StoreHeldElsewhere extends Error {
  override name = 'StoreHeldElsewhere'
  constructor(readonly pids: number[]) {
    super(`processes ${pids.join(', ')} have the store open; compacting later`)
  }
}

/**
 * Throws StoreHeldElsewhere when a process other than this one holds a reader slot of the environment at `path`.
 * The service's own processes have closed theirs for the round; one that has not would go on reading the old file,
 * and write into it what nobody would see again. LMDB frees the slots of processes that died (readerCheck).
 */
async function refuseIfHeld(path: string, mapSize: number): Promise<void> {
  const env = open({ path, mapSize, maxDbs: 64, ...environmentOptions('flush') })
  try {
    env.readerCheck()
    // Lines of "pid thread txnid" after a heading; a slot of a thread without a transaction lists its pid too.
    const pids = [...new Set(env.readerList().split('\n').map((line) => Number(line.trim().split(/\s+/)[0])))].filter((pid) => Number.isInteger(pid) && pid > 0 && pid !== process.pid)
    if (pids.length) throw new StoreHeldElsewhere(pids)
  } finally {
    await env.close()
  }
}

/** A batch's bytes at most: chunks are up to 1 MB each, and a batch is held in memory until its transaction. */
const BATCH_BYTES = 16 * 1024 * 1024
const BATCH_ENTRIES = 10_000

/**
 * Puts every entry of every named table of the environment at `path` into a
 * fresh one at `scratch`, key and value bytes as they are (shared record
 * shapes included: they are entries too), and checks the counts.
 */
async function rebuild(path: string, scratch: string, mapSize: number): Promise<void> {
  const raw = { keyEncoding: 'binary', encoding: 'binary' } as const
  const source = open({ path, mapSize, maxDbs: 64, ...environmentOptions('flush') })
  const target = open({ path: scratch, mapSize, maxDbs: 64, ...environmentOptions('flush') })
  try {
    // The unnamed table holds the named tables' names and nothing else (every table of the store is named).
    for (const name of Array.from(source.getKeys()) as string[]) {
      const from = source.openDB(name, raw)
      const to = target.openDB(name, raw)
      let batch: [Buffer, Buffer][] = []
      let bytes = 0
      const flush = () => {
        const entries = batch
        batch = []
        bytes = 0
        to.transactionSync(() => {
          for (const [key, value] of entries) to.putSync(key, value)
        })
      }
      for (const { key, value } of from.getRange({})) {
        const entry: [Buffer, Buffer] = [Buffer.from(key as Buffer), Buffer.from(value as Buffer)]
        batch.push(entry)
        bytes += entry[0].length + entry[1].length
        if (batch.length >= BATCH_ENTRIES || bytes >= BATCH_BYTES) flush()
      }
      flush()
      if (to.getCount() !== from.getCount()) throw new Error(`compaction: table ${name} has ${to.getCount()} entries rebuilt of ${from.getCount()}`)
    }
  } finally {
    await Promise.all([source.close(), target.close()])
  }
}

function sizeOf(file: string): number {
  return statSync(file).size
}
