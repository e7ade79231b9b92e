/** Chooses the store implementation from the configuration. LMDB is the embedded default and, for now, the only one. */
import type { Config } from '../config.js'
import { openLmdbStore } from './lmdb/index.js'
import type { Store } from './store.js'

export type StoreConfig = Pick<Config, 'dataDir' | 'mapSizeBytes' | 'durability'> & Partial<Pick<Config, 'aggregateSignals' | 'maxPagesPerProject'>>

export function openStore(config: StoreConfig): Store {
  return openLmdbStore({ path: config.dataDir, mapSize: config.mapSizeBytes, durability: config.durability, aggregates: config.aggregateSignals, maxPagesPerProject: config.maxPagesPerProject })
}
