/** The shared read-side suite (insights.case.ts) against the LMDB implementation, each test in its own environment. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { openLmdbStore } from '../../src/store/lmdb/index.js'
import { insightsSuite } from './insights.case.js'

insightsSuite(t, async (t) => {
  const path = mkdtempSync(join(tmpdir(), 'svc-insights-'))
  const store = openLmdbStore({ path, mapSize: 256 * 1024 * 1024, durability: 'commit' })
  t.teardown(async () => {
    await store.close()
    rmSync(path, { recursive: true, force: true })
  })
  return store
})
