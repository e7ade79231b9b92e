/** The shared erasure suite (erasure.case.ts) against the LMDB implementation, each test in its own environment. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { openLmdbStore } from '../../src/store/lmdb/index.js'
import type { Store } from '../../src/store/store.js'
import { erasureSuite } from './erasure.case.js'

erasureSuite(t, async (t) => {
  const path = mkdtempSync(join(tmpdir(), 'svc-erasure-'))
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
})
