/** The shared read-side suite (insights.case.ts) against the in-memory implementation. */
import t from 'tap'
import { openMemoryStore } from '../../src/store/memory/index.js'
import { insightsSuite } from './insights.case.js'

insightsSuite(t, async () => openMemoryStore())
