/** The shared erasure suite (erasure.case.ts) against the LMDB implementation, each test in its own environment. */
import t from 'tap'
import { reopenableLmdbStore } from '../helpers/store.js'
import { erasureSuite } from './erasure.case.js'

erasureSuite(t, async (t) => reopenableLmdbStore(t, 'svc-erasure-'))
