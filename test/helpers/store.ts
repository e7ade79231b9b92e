/** A fresh LMDB store in its own temporary directory, closed and deleted when the test ends. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openLmdbStore, type LmdbOptions, type LmdbStore } from '../../src/store/lmdb/index.js'
import type { Store } from '../../src/store/store.js'

export function tempLmdbStore(t: { teardown(fn: () => unknown): void }, options: Partial<Omit<LmdbOptions, 'path'>> = {}): LmdbStore {
  const path = mkdtempSync(join(tmpdir(), 'svc-store-'))
  const store = openLmdbStore({ path, mapSize: 256 * 1024 * 1024, durability: 'commit', ...options })
  t.teardown(async () => {
    await store.close()
    rmSync(path, { recursive: true, force: true })
  })
  return store
}

/** Like tempLmdbStore, and `reopen()` closes it and opens the same files again, as a restart would. */
export function reopenableLmdbStore(t: { teardown(fn: () => unknown): void }, prefix = 'svc-store-'): { store: Store; reopen(): Promise<Store> } {
  const path = mkdtempSync(join(tmpdir(), prefix))
  const options = { path, mapSize: 256 * 1024 * 1024, durability: 'commit' as const }
  let store: Store = openLmdbStore(options)
  t.teardown(async () => {
    await store.close()
    rmSync(path, { recursive: true, force: true })
  })
  return {
    store,
    async reopen() {
      await store.close()
      store = openLmdbStore(options)
      return store
    },
  }
}
