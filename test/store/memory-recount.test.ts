/** The recount property (insights-recount.case.ts) against the in-memory implementation. */
import t from 'tap'
import { openMemoryStore } from '../../src/store/memory/index.js'
import { recountSuite } from './insights-recount.case.js'

recountSuite(t, async () => openMemoryStore())
