/** The ingest sink suite (sink.case.ts) on the embedded mode's write queue: the writer pool on this thread, a real LMDB. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createWriteBatch } from '../../src/ingest-sink/write-batch.js'
import { inThreadPool, WriteQueue } from '../../src/ingest-sink/write-queue.js'
import { openLmdbStore } from '../../src/store/lmdb/index.js'
import { sinkSuite } from './sink.case.js'

sinkSuite(t, async (t, bounds = {}) => {
  const path = mkdtempSync(join(tmpdir(), 'svc-sink-'))
  const store = openLmdbStore({ path, mapSize: 64 * 1024 * 1024, durability: 'commit' })
  t.teardown(async () => {
    await store.close()
    rmSync(path, { recursive: true, force: true })
  })
  const project = await store.createProject({ id: 'prj_sink', orgId: 'org', name: 'Site', domain: null, pathRules: [], publicKey: 'svc_pk_sink', createdAt: Date.now() })
  const sink = new WriteQueue(inThreadPool(createWriteBatch(store)), { maxItems: 64, maxBytes: 4 << 20, maxInFlight: 1, maxQueuedItems: bounds.maxQueuedItems ?? 512, maxQueuedBytes: bounds.maxQueuedBytes ?? 1 << 26 })
  // Acknowledged means committed: nothing to wait for.
  return { sink, store, projectId: project!.id, settled: async () => undefined }
})
