/** What the store takes on disk, read from LMDB's own page counts and the files' sizes (no scan of the recordings). */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import type { Database } from 'lmdb'
import type { ProjectStats, StorageUse } from '../records.js'
import type { Key, Tables } from './tables.js'

interface PageStats {
  pageSize: number
  treeBranchPageCount: number
  treeLeafPageCount: number
  overflowPages: number
}

/** Pages a named database holds, in bytes. */
function bytesOf(table: Database<unknown, Key>): number {
  const stats = table.getStats() as PageStats
  return stats.pageSize * (stats.treeBranchPageCount + stats.treeLeafPageCount + stats.overflowPages)
}

function fileSize(path: string): number {
  try {
    return statSync(path).size
  } catch {
    // Not created yet (a store opened read-only before its first write): nothing on disk.
    return 0
  }
}

export function storageUse(tables: Tables, path: string): StorageUse {
  const projects = new Map<string, ProjectStats>()
  for (const { key, value } of tables.projectStats.getRange({})) projects.set(key as string, value)
  return {
    projects,
    signalsBytes: bytesOf(tables.signals as Database<unknown, Key>),
    aggregatesBytes: bytesOf(tables.derived as Database<unknown, Key>),
    fileBytes: fileSize(join(path, 'data.mdb')) + fileSize(join(path, 'aggregates', 'data.mdb')),
  }
}
