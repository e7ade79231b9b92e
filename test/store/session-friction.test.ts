/**
 * A session's friction feed (friction.list with `sessionKey`, the replay's
 * markers) reads the session's own index in the aggregates (`sf`, `se`), not
 * the project's friction within the session's span: on a busy project a
 * session spanning days read every other session's items in those days
 * (bench/RESULTS.md, "The longest read": 1.3 s). LMDB only: the memory store
 * answers the same (insights.case.ts, insights-recount.case.ts) by filtering.
 */
import t from 'tap'
import { HOUR_MS } from '../../src/store/insights.js'
import type { LmdbStore } from '../../src/store/lmdb/index.js'
import type { Tables } from '../../src/store/lmdb/tables.js'
import type { Click } from '../../src/store/store.js'
import { foldAll } from '../helpers/fold.js'
import { tempLmdbStore } from '../helpers/store.js'
import { signals } from './insights.case.js'

const H0 = Date.UTC(2026, 0, 5, 10)
const CART = 'https://shop.test/cart'
const DAY = { since: H0 - HOUR_MS, until: H0 + 24 * HOUR_MS }
const rage = (ts: number): Click => ({ url: CART, ts, xRatio: 0.5, yDoc: 100, vw: 1440, selector: '#buy', kind: 'rage', n: 3 })

/** Counts the entries the derived table's ranges hand out while `read` runs. */
function entriesRead<T>(store: LmdbStore, read: () => T): { value: T; entries: number } {
  const derived = (store as unknown as { tables: Tables }).tables.derived
  const getRange = derived.getRange
  let entries = 0
  derived.getRange = function (this: typeof derived, options) {
    const inner = getRange.call(this, options)
    return {
      *[Symbol.iterator]() {
        for (const entry of inner) {
          entries += 1
          yield entry
        }
      },
    } as unknown as ReturnType<typeof getRange>
  }
  try {
    return { value: read(), entries }
  } finally {
    derived.getRange = getRange
  }
}

async function seeded(store: LmdbStore): Promise<string> {
  const p = await store.createProject({ id: 'prj_sf', orgId: 'org_1', name: 'Site', domain: null, pathRules: [], publicKey: 'svc_pk_sf0123456789', createdAt: H0 })
  // One session at either end of ten hours, 300 others with friction and errors in between.
  const items = [
    signals(p.id, H0, { sk: 'mine', clicks: [rage(H0)], errors: [{ url: CART, ts: H0 + 5 * 60_000, message: 'TypeError: mine' }] }),
    signals(p.id, H0 + 10 * HOUR_MS, { sk: 'mine', clicks: [rage(H0 + 10 * HOUR_MS)] }),
    ...Array.from({ length: 300 }, (_, i) =>
      signals(p.id, H0 + HOUR_MS + i * 60_000, { sk: `other${i}`, clicks: [rage(H0 + HOUR_MS + i * 60_000)], errors: [{ url: CART, ts: H0 + HOUR_MS + i * 60_000, message: 'TypeError: theirs' }] }),
    ),
  ]
  await store.appendBatch(items)
  await foldAll(store)
  return p.id
}

t.test('a session\'s friction is read from its own index: what it reads does not grow with the project\'s friction in its span', async (t) => {
  const store = tempLmdbStore(t)
  const projectId = await seeded(store)
  const { value, entries } = entriesRead(store, () => store.listFriction(projectId, { ...DAY, limit: 50, sessionKey: 'mine' }))
  t.same(value.items.map((i) => [i.kind, i.ts, i.sessionKey]), [
    ['rage', H0 + 10 * HOUR_MS, 'mine'],
    ['jsError', H0 + 5 * 60_000, 'mine'],
    ['rage', H0, 'mine'],
  ])
  t.match(value.items[1], { message: 'TypeError: mine', count: 1 })
  t.ok(entries <= 3, `${entries} index entries read for the session's 3 items, beside 600 of other sessions in its span`)

  const paged = store.listFriction(projectId, { ...DAY, limit: 1, sessionKey: 'mine' })
  t.same(paged.items.map((i) => i.ts), [H0 + 10 * HOUR_MS])
  const next = store.listFriction(projectId, { ...DAY, limit: 5, sessionKey: 'mine', after: paged.next })
  t.same(next.items.map((i) => i.ts), [H0 + 5 * 60_000, H0], 'its cursor goes on where the page ended')
  t.same(store.listFriction(projectId, { ...DAY, limit: 5, sessionKey: 'mine', pages: ['shop.test/nowhere'] }).items, [], 'the page filter still holds')
})

t.test('a session folded before the index existed is answered the same, by scanning its span', async (t) => {
  const store = tempLmdbStore(t)
  const projectId = await seeded(store)
  const indexed = store.listFriction(projectId, { ...DAY, limit: 50, sessionKey: 'mine' })
  const derived = (store as unknown as { tables: Tables }).tables.derived
  const key = [projectId, 0, 'ss', 'mine']
  const { ix: _ix, ...record } = derived.get(key) as { ix?: 1 }
  await derived.put(key, record)
  const { value, entries } = entriesRead(store, () => store.listFriction(projectId, { ...DAY, limit: 50, sessionKey: 'mine' }))
  t.same(value, indexed, 'the same answer')
  t.ok(entries > 300, `${entries} entries read: the scan the index saves`)
})

t.test('erasing a session removes its index entries with it', async (t) => {
  const store = tempLmdbStore(t)
  const projectId = await seeded(store)
  const derived = (store as unknown as { tables: Tables }).tables.derived
  const naming = () => Array.from(derived.getKeys({ start: [projectId], end: [projectId, '\uffff'] })).filter((key) => ['sf', 'se'].includes(String((key as unknown[])[2])) && (key as unknown[])[3] === 'mine')
  t.equal(naming().length, 3, 'two friction items and one error occurrence indexed')
  await store.startErasure({ id: 'er_mine', projectId, by: { sessionKey: 'mine' } }, H0)
  for (let steps = 0; store.getErasure('er_mine')!.state !== 'done' && steps < 1_000; steps++) await store.continueErasure('er_mine', 50, H0 + HOUR_MS)
  t.equal(store.getErasure('er_mine')!.state, 'done')
  t.same(naming(), [], 'none left')
  t.equal(store.listFriction(projectId, { ...DAY, limit: 500 }).items.filter((i) => i.sessionKey === 'mine').length, 0)
  t.equal(store.listFriction(projectId, { ...DAY, limit: 500, sessionKey: 'other7' }).items.length, 2, 'another session keeps its own')
})
