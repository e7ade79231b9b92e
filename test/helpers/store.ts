/** A fresh LMDB store in its own temporary directory, closed and deleted when the test ends. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openLmdbStore, type LmdbOptions, type LmdbStore } from '../../src/store/lmdb/index.js'

export function tempLmdbStore(t: { teardown(fn: () => unknown): void }, options: Partial<Omit<LmdbOptions, 'path'>> = {}): LmdbStore {
  const path = mkdtempSync(join(tmpdir(), 'svc-store-'))
  const store = openLmdbStore({ path, mapSize: 256 * 1024 * 1024, durability: 'commit', ...options })
  t.teardown(async () => {
    await store.close()
    rmSync(path, { recursive: true, force: true })
  })
  return store
}
