/** The shared erasure suite (erasure.case.ts) against the in-memory implementation; reopening hands the same data to a new store. */
import t from 'tap'
import { MemoryData, openMemoryStore } from '../../src/store/memory/index.js'
import type { Store } from '../../src/store/store.js'
import { erasureSuite } from './erasure.case.js'

erasureSuite(t, async () => {
  const data = new MemoryData()
  let store: Store = openMemoryStore(data)
  return {
    store,
    async reopen() {
      await store.close()
      store = openMemoryStore(data)
      return store
    },
  }
})
