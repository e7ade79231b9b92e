/**
 * Folding stored signal batches into the aggregates (src/store/lmdb/fold-log.ts,
 * aggregate-batch.ts): each logged batch counted exactly once however folds are sliced,
 * race or stop, the limit shared between writers, and a batch that cannot be
 * folded left out alone.
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openLmdbStore, type LmdbStore } from '../../src/store/lmdb/index.js'
import { countedClicks, DAY, NOW, oneClickBatch, PAGE } from '../helpers/one-click.js'
import { tempLmdbStore } from '../helpers/store.js'

const batch = (n: number) => oneClickBatch('prj_fold', n)
const clicks = (store: LmdbStore) => countedClicks(store, 'prj_fold')

t.test('a fold takes the oldest logged batches up to its limit, and each only once', async (t) => {
  const store = tempLmdbStore(t)
  await store.appendBatch([batch(1), batch(2), batch(3)])
  t.equal(store.derivationLag(), 3, 'stored batches wait, logged')
  t.equal(clicks(store), 0, 'and are not in the aggregates yet')
  t.equal(await store.applyDerivations(2), 2)
  t.equal(store.derivationLag(), 1)
  t.equal(clicks(store), 2)
  t.equal(await store.applyDerivations(), 1)
  t.equal(await store.applyDerivations(), 0, 'nothing left')
  t.equal(clicks(store), 3)
  t.same(
    store.topElements('prj_fold', { ...DAY, pages: [PAGE], limit: 5 }).map((e) => [e.selector, e.clicks]),
    [['#buy', 3]],
  )
})

t.test('two folds racing over the same entries count each batch once', async (t) => {
  const store = tempLmdbStore(t)
  await store.appendBatch([batch(1), batch(2), batch(3), batch(4)])
  // All read the same entries before any writes: the later ones find the cursor past them and skip them.
  const folded = await Promise.all([store.applyDerivations(), store.applyDerivations(), store.applyDerivations(3)])
  t.equal(folded.reduce((a, b) => a + b, 0), 4, 'four batches folded in all')
  t.equal(clicks(store), 4, 'and counted once each')
  t.equal(store.derivationLag(), 0)
})

t.test('a fold is counted with its cursor or not at all: a store closed and reopened goes on from the cursor', async (t) => {
  const path = mkdtempSync(join(tmpdir(), 'svc-store-'))
  t.teardown(() => rmSync(path, { recursive: true, force: true }))
  const open = () => openLmdbStore({ path, mapSize: 256 * 1024 * 1024, durability: 'commit' })
  let store = open()
  await store.appendBatch([batch(1), batch(2), batch(3)])
  t.equal(await store.applyDerivations(2), 2)
  const logged = [...store.tables.foldLog.getKeys({})] as [string, number][]
  t.same(
    [...store.tables.foldCursors.getRange({})].map(({ key, value }) => [key, value]),
    [[logged[1][0], logged[1][1]]],
    'one writer, its cursor at the second of its three entries',
  )
  await store.close()

  store = open()
  t.equal(clicks(store), 2, 'what the fold counted survives')
  t.equal(store.derivationLag(), 1)
  t.equal(await store.applyDerivations(), 1, 'the next fold counts only the batch after the cursor')
  t.equal(clicks(store), 3, 'each batch once')
  await store.appendBatch([batch(4)])
  t.equal(await store.applyDerivations(), 1)
  t.equal(clicks(store), 4)
  await store.close()
})

t.test('the fold shares its limit between writers, each taken in its own order', async (t) => {
  const store = tempLmdbStore(t)
  // Two other writers' logs, as two ingest threads would leave them: one with a backlog, one with a single batch.
  const log = async (writer: string, n: number, seq: number) => {
    const item = batch(n)
    const key = ['prj_fold', item.receivedAt, `s${n}`, 1, 1, n]
    await store.tables.signals.put(key, (item as { batch: unknown }).batch as never)
    await store.tables.foldLog.put([writer, seq], key)
  }
  for (let i = 1; i <= 6; i++) await log('a', i, i)
  await log('b', 10, 1)
  t.equal(store.derivationLag(), 7)
  t.equal(await store.applyDerivations(4), 4, 'the limit holds')
  t.same(
    [...store.tables.foldCursors.getRange({})].map(({ key, value }) => [key, value]),
    [['a', 3], ['b', 1]],
    'the short log taken whole, the long one cut to a prefix of what is left',
  )
  t.equal(await store.applyDerivations(), 3)
  t.equal(clicks(store), 7)
})

t.test('a batch the fold cannot take is left out alone; the rest of its fold counts', async (t) => {
  const store = tempLmdbStore(t)
  await store.appendBatch([batch(1)])
  // A stored record no ingest writer would write (clicks is no list): the fold throws on it.
  const badKey = ['prj_fold', NOW + 2, 'bad', 1, 1, 1]
  await store.tables.signals.put(badKey, { sk: 'bad', vid: 'v', dropped: 0, views: [], errors: [], clicks: 5 } as never)
  await store.tables.foldLog.put(['bad-writer', 1], badKey)
  await store.appendBatch([batch(3)])
  t.equal(store.derivationLag(), 3)
  t.equal(await store.applyDerivations(), 3, 'the fold goes through')
  t.equal(store.derivationLag(), 0, 'the bad batch is not retried forever')
  t.equal(clicks(store), 2, 'both good batches counted')
  t.ok(store.tables.signals.get(badKey), 'the raw batch is kept')
})

t.test('with aggregation switched off, nothing is logged', async (t) => {
  const store = tempLmdbStore(t, { aggregates: false })
  await store.appendBatch([batch(1)])
  t.equal(store.derivationLag(), 0)
  t.equal(await store.applyDerivations(), 0)
  t.equal(clicks(store), 0)
})
