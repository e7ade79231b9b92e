/** The recount property (insights-recount.case.ts) against the LMDB implementation. */
import t from 'tap'
import { tempLmdbStore } from '../helpers/store.js'
import { recountSuite } from './insights-recount.case.js'

recountSuite(t, async (t) => tempLmdbStore(t, { mapSize: 512 * 1024 * 1024 }))
