/** The shared store suite against the LMDB implementation, each test in its own environment. */
import t from 'tap'
import { reopenableLmdbStore } from '../helpers/store.js'
import { storeSuite } from './store.case.js'

storeSuite(t, async (t) => reopenableLmdbStore(t, 'svc-store-'))
