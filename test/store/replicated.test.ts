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
import { ensureOrgAndUser } from '../../src/accounts/credentials.js'
import { Applier } from '../../src/journal/applier.js'
import { openJournal } from '../../src/journal/connect.js'
import { NatsLog } from '../../src/journal/nats-log.js'
import { replicatedStore } from '../../src/journal/replicated-store.js'
import { DEFAULT_LAYOUT } from '../../src/journal/streams.js'
import { openLmdbStore } from '../../src/store/lmdb/index.js'
import type { Store } from '../../src/store/store.js'
import { testLogSeal } from '../helpers/log-secret.js'
import { natsCluster } from '../helpers/nats.js'
import { storeSuite } from './store.case.js'

// Each test's log is a namespace of streams, outside the node user's subjects: the operator user writes them.
const nats = await natsCluster(t, 1)
let logs = 0

storeSuite(t, async (t) => {
  const path = mkdtempSync(join(tmpdir(), 'svc-store-'))
  const options = { path, mapSize: 256 * 1024 * 1024, durability: 'commit' as const }
  const layout = { ...DEFAULT_LAYOUT, partitions: 1, replicas: 1, namespace: `t${++logs}` }
  const open = async () => {
    const local = openLmdbStore(options)
    const journal = new NatsLog(await openJournal(nats.settings('operator'), layout, 30_000))
    const applier = new Applier(local, journal, layout, { seal: testLogSeal, chunkBytesInLog: true })
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

t.test('two nodes naming one new organisation at once make one: the log decides, not either node', async (t) => {
  const layout = { ...DEFAULT_LAYOUT, partitions: 1, replicas: 1, namespace: `t${++logs}` }
  const node = async () => {
    const path = mkdtempSync(join(tmpdir(), 'svc-store-'))
    const local = openLmdbStore({ path, mapSize: 256 * 1024 * 1024, durability: 'commit' })
    const journal = new NatsLog(await openJournal(nats.settings('operator'), layout, 30_000))
    const applier = new Applier(local, journal, layout, { seal: testLogSeal, chunkBytesInLog: true })
    applier.start()
    await applier.caughtUp(30_000)
    t.teardown(async () => {
      await applier.stop()
      await journal.close()
      await local.close()
      rmSync(path, { recursive: true, force: true })
    })
    return { local, applier, store: replicatedStore(local, applier, 10_000) }
  }
  const a = await node()
  const b = await node()
  // Both calls start before either is applied: a check of each node's own copy would find no Globex on either.
  const [onA, onB] = await Promise.all([ensureOrgAndUser(a.store, 'Globex', 'one@globex.test'), ensureOrgAndUser(b.store, 'Globex', 'two@globex.test')])
  t.equal(onA.org.id, onB.org.id, 'both callers got the same organisation')
  await a.applier.caughtUp(10_000)
  await b.applier.caughtUp(10_000)
  for (const { local } of [a, b]) {
    t.equal(local.findOrgByName('Globex')?.id, onA.org.id)
    t.same(local.listUsers(onA.org.id).map((u) => [u.email, u.role]).sort(), [['one@globex.test', onA.user.role], ['two@globex.test', onB.user.role]].sort())
  }
  t.same([onA.user.role, onB.user.role].sort(), ['member', 'owner'], 'the first applied is the owner')
})
