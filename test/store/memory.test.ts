/** The shared store suite against the in-memory implementation; reopening hands the same data to a new store, as a restart would. */
import t from 'tap'
import { MemoryData, openMemoryStore } from '../../src/store/memory/index.js'
import type { Store } from '../../src/store/store.js'
import { storeSuite } from './store.case.js'

storeSuite(t, async () => {
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
