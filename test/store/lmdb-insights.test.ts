/** The shared read-side suite (insights.case.ts) against the LMDB implementation, each test in its own environment. */
import t from 'tap'
import { tempLmdbStore } from '../helpers/store.js'
import { insightsSuite } from './insights.case.js'

insightsSuite(t, async (t) => tempLmdbStore(t))
