/** The overview suite (overview.case.ts) against the LMDB implementation: the fold's buckets, each test in its own environment. */
import t from 'tap'
import { tempLmdbStore } from '../helpers/store.js'
import { overviewSuite } from './overview.case.js'

overviewSuite(t, async (t) => tempLmdbStore(t))
