/**
 * The fold thread's loop (src/control/fold-loop.ts) against a real store: it
 * waits only when less than a full fold is left, even when a read's fold took
 * part of what its own fold had read, and a stop cuts its wait short.
 */
import t from 'tap'
import { foldAgain, runFoldLoop } from '../../src/control/fold-loop.js'
import type { LmdbStore } from '../../src/store/lmdb/index.js'
import { until } from '../helpers/until.js'
import { countedClicks, oneClickBatch } from '../helpers/one-click.js'
import { tempLmdbStore } from '../helpers/store.js'

const batch = (n: number) => oneClickBatch('prj_loop', n)
const clicks = (store: LmdbStore) => countedClicks(store, 'prj_loop')
const append = (store: LmdbStore, count: number) => store.appendBatch(Array.from({ length: count }, (_, n) => batch(n)))

/** A fold that a read's fold of 2 overtakes: both read the same oldest entries, the read commits first. */
async function overtakenFold(store: LmdbStore, limit: number): Promise<number> {
  const [, mine] = await Promise.all([store.applyDerivations(2), store.applyDerivations(limit)])
  return mine
}

t.test('a fold a read overtook comes back short, and the loop goes on while a full fold is left', async (t) => {
  const store = tempLmdbStore(t)
  await append(store, 12)
  const folded = await overtakenFold(store, 5)
  t.equal(folded, 3, 'the read took 2 of the 5 entries this fold read')
  t.equal(store.derivationLag(), 7)
  t.ok(foldAgain(store, folded, 5), 'short, but 7 left: fold again at once')
  t.ok(foldAgain(store, 5, 5), 'a full fold: again')
  await store.applyDerivations(5)
  t.equal(store.derivationLag(), 2)
  t.notOk(foldAgain(store, 5 - 3, 5), 'short with 2 left: let batches gather')
})

t.test('the loop drains a backlog that reads keep overtaking, then waits, and a stop ends the wait', async (t) => {
  const store = tempLmdbStore(t)
  await append(store, 12)
  const stop = new AbortController()
  t.teardown(() => stop.abort())
  // A minute between folds: were the loop to wait after the first short fold, 7 batches would stay behind.
  const racing = { derivationLag: () => store.derivationLag(), applyDerivations: (limit?: number) => overtakenFold(store, limit ?? 5) }
  const loop = runFoldLoop(racing, { batches: 5, intervalMs: 60_000 }, stop.signal)
  await until('two overtaken folds', () => store.derivationLag() === 2, 10_000)
  t.equal(clicks(store), 10, 'ten batches counted, each once')
  const stopped = performance.now()
  stop.abort()
  await loop
  t.ok(performance.now() - stopped < 5_000, 'the stop cut the minute short')
  t.equal(store.derivationLag(), 2, 'less than a fold left waits for the next interval')
})
