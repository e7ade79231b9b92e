/** The overview suite (overview.case.ts) against the in-memory implementation. */
import t from 'tap'
import { openMemoryStore } from '../../src/store/memory/index.js'
import { overviewSuite } from './overview.case.js'

overviewSuite(t, async () => openMemoryStore())
