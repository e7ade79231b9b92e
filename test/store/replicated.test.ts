/**
 * The shared store suite against the cluster mode's store: every mutation a
 * log entry on a real NATS server, applied to LMDB by the applier and
 * answered from there (src/journal/). Each test has its own log (a namespace
 * of streams) and its own LMDB environment; reopening starts a new applier on
 * the same environment, which goes on from the position it recorded.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { Applier } from '../../src/journal/applier.js'
import { openJournal } from '../../src/journal/connect.js'
import { replicatedStore } from '../../src/journal/replicated-store.js'
import { DEFAULT_LAYOUT } from '../../src/journal/streams.js'
import { openLmdbStore } from '../../src/store/lmdb/index.js'
import type { Store } from '../../src/store/store.js'
import { natsCluster } from '../helpers/nats.js'
import { storeSuite } from './store.case.js'

const nats = await natsCluster(t, 1)
let logs = 0

storeSuite(t, async (t) => {
  const path = mkdtempSync(join(tmpdir(), 'svc-store-'))
  const options = { path, mapSize: 256 * 1024 * 1024, durability: 'commit' as const }
  const layout = { ...DEFAULT_LAYOUT, partitions: 1, replicas: 1, namespace: `t${++logs}` }
  const open = async () => {
    const local = openLmdbStore(options)
    const journal = await openJournal(nats.url, layout, 30_000)
    const applier = new Applier(local, journal, layout)
    applier.start()
    await applier.caughtUp(30_000)
    const close = async () => {
      await applier.stop()
      await journal.close()
      await local.close()
    }
    return { store: replicatedStore(local, applier, 10_000), close }
  }
  let current = await open()
  t.teardown(async () => {
    await current.close()
    rmSync(path, { recursive: true, force: true })
  })
  return {
    store: current.store as Store,
    async reopen() {
      await current.close()
      current = await open()
      return current.store
    },
  }
})
