/**
 * The shared suite of erasure (src/store/erasure-store.ts, issue 34): every
 * implementation runs it through a test file beside this one
 * (test/store/lmdb-erasure.test.ts). What both agree on: the erased sessions,
 * their chunks, signals, friction items, error occurrences and element labels
 * are gone, other sessions stay, and the request resumes after a reopen.
 */
import type { Test } from 'tap'
import { groupUrl } from '../../src/grouping/group.js'
import { HOUR_MS } from '../../src/store/insights.js'
import type { ChunkMeta, Click, ErasureRecord, ErasureSubject, IngestItem, NewProject, Store } from '../../src/store/store.js'
import { foldAll } from '../helpers/fold.js'
import { addCounts, type ErasureCountCursor } from '../../src/store/erasure-store.js'
import { hashSubject } from '../../src/store/erasure-subjects.js'
import { READ_LIMITS, ReadBudget } from '../../src/store/read-budget.js'
import { signals } from './insights.case.js'

export interface ErasureStoreUnderTest {
  store: Store
  /** Closes `store` and opens the same data again, as a restarted process would. */
  reopen(): Promise<Store>
}

export type ErasureStoreFactory = (t: Test) => Promise<ErasureStoreUnderTest>

const H0 = Date.UTC(2026, 0, 5, 10)
const MIN = 60_000
const DAY = { since: H0 - 12 * HOUR_MS, until: H0 + 12 * HOUR_MS }
const CART = 'https://shop.test/cart'

function project(): NewProject {
  const n = Math.random().toString(16).slice(2, 10)
  return { id: `prj_${n}`, orgId: 'org_1', name: `Site ${n}`, domain: null, pathRules: [], publicKey: `svc_pk_${n}`, createdAt: H0 }
}

function chunk(projectId: string, meta: Partial<ChunkMeta> & { sk: string }, seq = 0): IngestItem {
  return {
    kind: 'chunk',
    projectId,
    receivedAt: H0 + seq,
    body: Buffer.from(`[{"type":4,"data":{"who":"${meta.sk}"}}]`),
    page: { ...groupUrl(CART, []), firstSeenAt: H0 },
    meta: { vid: `v-${meta.sk}`, seq, encoding: 'json', pageIndex: 0, url: CART, startedAt: H0, firstTs: H0, lastTs: H0 + MIN, ...meta },
  }
}

const click = (over: Partial<Click> = {}): Click => ({ url: CART, ts: H0 + MIN, xRatio: 0.5, yDoc: 100, vw: 1440, selector: '#buy', ...over })

/** Three sessions: ada (user u1, visitor va), bob (user u2, visitor va), cy (no identity); each with two chunks, a rage click and an error. */
async function seeded(store: Store): Promise<string> {
  const p = await store.createProject(project())
  const sessions = [
    { sk: 'ada', vid: 'va', identity: { userId: 'u1' }, startedAt: H0 },
    { sk: 'bob', vid: 'va', identity: { userId: 'u2' }, startedAt: H0 + 2 * HOUR_MS },
    { sk: 'cy', vid: 'vc', startedAt: H0 + 4 * HOUR_MS },
  ]
  const items: IngestItem[] = []
  for (const s of sessions) {
    items.push(chunk(p.id, s, 0), chunk(p.id, s, 1))
    items.push(
      signals(p.id, H0 + MIN, {
        sk: s.sk,
        vid: s.vid,
        clicks: [click({ kind: 'rage', n: 3, ts: H0 + MIN + s.startedAt - H0, label: `label of ${s.sk}` })],
        errors: [{ url: CART, ts: H0 + 2 * MIN, message: 'TypeError: x is undefined' }],
        views: [{ url: CART, startedAt: H0 + MIN, vw: 1440 }],
      }),
    )
  }
  await store.appendBatch(items)
  await foldAll(store)
  return p.id
}

/** Steps the erasure to its end, a few entries at a time, as the control worker does. */
async function finish(store: Store, id: string, budget = 2, subjectKey?: Buffer): Promise<{ record: ErasureRecord; steps: number }> {
  let record = store.getErasure(id)!
  let steps = 0
  while (record.state !== 'done' && steps < 10_000) {
    record = await store.continueErasure(id, budget, H0 + HOUR_MS, subjectKey)
    steps += 1
  }
  return { record, steps }
}

const sessionKeys = (store: Store, projectId: string) => store.listSessionPage(projectId, { limit: 50 }).sessions.map((s) => s.session.sk).sort()
const signalKeys = (store: Store, projectId: string) => Array.from(store.listSignals(projectId), (s) => s.batch.sk).sort()
const frictionKeys = (store: Store, projectId: string) => [...new Set(store.listFriction(projectId, { ...DAY, limit: 50 }).items.map((i) => i.sessionKey))].sort()

export function erasureSuite(t: Test, open: ErasureStoreFactory): void {
  t.test('erasing by session key removes its record, chunks, signals, friction items and error occurrences, and nothing of the others', async (t) => {
    const { store } = await open(t)
    const p = await seeded(store)
    t.same(frictionKeys(store, p), ['ada', 'bob', 'cy'], 'before: every session has friction')
    const statsBefore = store.projectStats(p)
    const started = await store.startErasure({ id: 'er_1', projectId: p, by: { sessionKey: 'ada' } }, H0)
    t.match(started, { id: 'er_1', state: 'queued', runs: 1, removed: { sessions: 0 } })
    const { record } = await finish(store, 'er_1')
    t.match(record, { state: 'done', subject: 'sessionKey', removed: { sessions: 1, chunks: 2, signalBatches: 1 } })
    t.equal(record.by, undefined, 'once done, the request no longer names the session')
    t.ok(record.removed.bytes > 0)

    t.equal(store.getSession(p, 'ada'), undefined)
    t.same(store.listChunks(p, 'ada'), [])
    t.equal(store.getChunk(p, 'ada', 0), undefined)
    t.same(sessionKeys(store, p), ['bob', 'cy'])
    t.same(signalKeys(store, p), ['bob', 'cy'])
    t.same(frictionKeys(store, p), ['bob', 'cy'], 'friction items and error groups name only sessions left')
    t.same(store.listFriction(p, { ...DAY, limit: 10, sessionKey: 'ada' }).items, [])
    t.equal(store.sessionSignals(p, 'ada').clicks, 0)
    t.ok(store.getChunk(p, 'bob', 1), 'another session keeps its chunks')

    const stats = store.projectStats(p)
    t.equal(stats.sessionCount, statsBefore.sessionCount - 1)
    t.equal(stats.chunkCount, statsBefore.chunkCount - 2)
    t.equal(stats.bytes, statsBefore.bytes - record.removed.bytes)
    t.equal(stats.signalBatches, statsBefore.signalBatches - 1)

    // An erased session keeps nothing of its batches' ids: a batch sent again under one is stored afresh.
    const again = signals(p, H0 + 3 * MIN, { sk: 'ada', vid: 'va', batchId: 'ada.0', views: [{ url: CART, startedAt: H0 + 3 * MIN, vw: 1440 }] })
    t.same(await store.appendBatch([again]), ['stored'])
    await store.startErasure({ id: 'er_1b', projectId: p, by: { sessionKey: 'ada' } }, H0)
    await finish(store, 'er_1b')
    t.same(await store.appendBatch([signals(p, H0 + 4 * MIN, { sk: 'ada', vid: 'va', batchId: 'ada.0', views: [{ url: CART, startedAt: H0 + 4 * MIN, vw: 1440 }] })]), ['stored'], 'its id was erased with it')
  })

  t.test('erasing by user id, by visitor id and by a query with a page removes exactly the sessions each names', async (t) => {
    const cases: [ErasureSubject, string[]][] = [
      [{ userId: 'u2' }, ['ada', 'cy']],
      [{ visitorId: 'va' }, ['cy']],
      [{ query: { from: H0 + HOUR_MS, until: H0 + 5 * HOUR_MS, page: groupUrl(CART, []).key } }, ['ada']],
      [{ query: { from: H0, until: H0 + 5 * HOUR_MS, page: 'shop.test/elsewhere' } }, ['ada', 'bob', 'cy']],
    ]
    for (const [by, left] of cases) {
      const { store } = await open(t)
      const p = await seeded(store)
      await store.startErasure({ id: 'er_x', projectId: p, by }, H0)
      const { record } = await finish(store, 'er_x')
      t.same(sessionKeys(store, p), left, JSON.stringify(by))
      t.same(signalKeys(store, p), left)
      t.same(frictionKeys(store, p), left)
      t.equal(record.sessionsExamined >= 3 - left.length, true)
    }
  })

  t.test('a session, visitor or user named by keyed hash: the same sessions go as named in the clear, a dry run counts the same, the record holds only the hash, and without the key nothing matches', async (t) => {
    const key = Buffer.alloc(32, 7)
    const cases: [ErasureSubject, string[]][] = [
      [{ sessionKey: 'ada' }, ['bob', 'cy']],
      [{ userId: 'u2' }, ['ada', 'cy']],
      [{ visitorId: 'va' }, ['cy']],
    ]
    for (const [by, left] of cases) {
      const { store } = await open(t)
      const p = await seeded(store)
      const hashed = hashSubject(key, p, by)
      const kind = Object.keys(by)[0]
      t.same(Object.keys(hashed).sort(), ['hash', 'hashOf'], `${kind}: a hash in place of the id`)
      t.same(store.countErasure(p, hashed, undefined, undefined, key), store.countErasure(p, by), `${kind}: a dry run counts the same`)
      t.same([...store.erasedPlaces(p, hashed, key).sessions], [...store.erasedPlaces(p, by).sessions], `${kind}: the same sessions named`)
      t.throws(() => store.countErasure(p, hashed), `${kind}: without the key, no scan`)
      const started = await store.startErasure({ id: 'er_h', projectId: p, by: hashed }, H0)
      t.same(started.by, hashed, `${kind}: the record holds the hash`)
      await t.rejects(store.continueErasure('er_h', 2, H0), `${kind}: a step without the key refuses`)
      t.same(sessionKeys(store, p), ['ada', 'bob', 'cy'], `${kind}: and removed nothing`)
      const { record } = await finish(store, 'er_h', 2, key)
      t.match(record, { state: 'done', subject: kind, removed: { sessions: 3 - left.length, chunks: 2 * (3 - left.length), signalBatches: 3 - left.length } })
      t.equal(record.by, undefined, `${kind}: once done, not even the hash`)
      t.same(sessionKeys(store, p), left, `${kind}: the sessions left`)
      t.same(signalKeys(store, p), left)
      t.same(frictionKeys(store, p), left)
    }
  })

  t.test('an erased session\'s click label leaves the element leaderboard', async (t) => {
    const { store } = await open(t)
    const p = await seeded(store)
    t.ok(store.topElements(p, { ...DAY, limit: 5 }).some((row) => row.label?.startsWith('label of')), 'before: the latest label shows')
    for (const sk of ['ada', 'bob', 'cy']) {
      await store.startErasure({ id: `er_${sk}`, projectId: p, by: { sessionKey: sk } }, H0)
      await finish(store, `er_${sk}`)
    }
    t.same(store.topElements(p, { ...DAY, limit: 5 }).filter((row) => row.label !== undefined), [])
  })

  t.test('a dry run counts what would go and removes nothing', async (t) => {
    const { store } = await open(t)
    const p = await seeded(store)
    const expected = { sessions: 2, chunks: 4, bytes: store.getSession(p, 'ada')!.bytes + store.getSession(p, 'bob')!.bytes, signalBatches: 2 }
    t.same(store.countErasure(p, { visitorId: 'va' }), { counts: expected }, 'one call, under the default budget')
    t.same(store.countErasure(p, { userId: 'nobody' }), { counts: { sessions: 0, chunks: 0, bytes: 0, signalBatches: 0 } })
    // Two entries a step: three sessions and three batches take three steps, each within its budget, and add up the same.
    const total = { sessions: 0, chunks: 0, bytes: 0, signalBatches: 0 }
    const taken: number[] = []
    let next: ErasureCountCursor | undefined
    do {
      const budget = new ReadBudget({ ...READ_LIMITS, entries: 2 })
      const step = store.countErasure(p, { visitorId: 'va' }, next, budget)
      taken.push(budget.entries)
      addCounts(total, step.counts)
      next = step.next
    } while (next && taken.length < 20)
    t.same(total, expected, 'step by step, the same counts')
    t.same(taken, [2, 2, 2], 'two entries a step, never more')
    t.same(sessionKeys(store, p), ['ada', 'bob', 'cy'])
  })

  t.test('the same request again answers the same erasure while it runs, and once done removes nothing more', async (t) => {
    const { store } = await open(t)
    const p = await seeded(store)
    const request = { id: 'er_1', projectId: p, by: { userId: 'u1' } }
    await store.startErasure(request, H0)
    t.match(await store.startErasure(request, H0 + 1), { state: 'queued', runs: 1, createdAt: H0 })
    await finish(store, 'er_1')
    const again = await store.startErasure(request, H0 + 2)
    t.match(again, { id: 'er_1', runs: 2, state: 'queued' })
    const { record } = await finish(store, 'er_1')
    t.match(record, { state: 'done', removed: { sessions: 0, chunks: 0, bytes: 0, signalBatches: 0, aggregateEntries: 0 } })
    t.same(sessionKeys(store, p), ['bob', 'cy'])
    t.same(store.listErasures(p).map((e) => e.id), ['er_1'])
  })

  t.test('deleting a project: gone at once for readers and ingest, then everything recorded in it, and nothing of another project', async (t) => {
    const { store } = await open(t)
    const p = await seeded(store)
    const other = await seeded(store)
    const { publicKey } = store.getProject(p)!
    await store.putSetupToken({ id: 'st_1', projectId: p, digestHex: '00', createdAt: H0, expiresAt: H0 + HOUR_MS })
    await store.appendBatch([{ kind: 'style', projectId: p, receivedAt: H0, hash: 'a'.repeat(64), body: Buffer.from('gzipped text') }])
    t.ok(store.getStyle(p, 'a'.repeat(64)), 'a stylesheet stored')
    await store.startErasure({ id: 'er_p', projectId: p, orgId: 'org_1', by: { project: true } }, H0)
    t.equal(store.getProject(p), undefined, 'the project is gone at once')
    t.equal(store.projectIdForPublicKey(publicKey), undefined, 'and its public key records nothing more')
    t.notOk(store.listProjects('org_1').some((project) => project.id === p))
    const { record } = await finish(store, 'er_p', 5)
    t.match(record, { state: 'done', subject: 'project', orgId: 'org_1', removed: { sessions: 3, chunks: 6, signalBatches: 3 } })
    t.same(sessionKeys(store, p), [])
    t.same(signalKeys(store, p), [])
    t.same(store.listFriction(p, { ...DAY, limit: 10 }).items, [])
    t.same(store.topElements(p, { ...DAY, limit: 10 }), [])
    t.same(store.pageInsights(p, DAY), [])
    t.same(store.listPages(p), [])
    t.same(store.listSetupTokens(p), [])
    t.equal(store.getStyle(p, 'a'.repeat(64)), undefined, 'its stylesheets went too')
    t.match(store.projectStats(p), { sessionCount: 0, chunkCount: 0, bytes: 0, signalBatches: 0 })
    t.same(sessionKeys(store, other), ['ada', 'bob', 'cy'], 'another project keeps everything')
    t.same(frictionKeys(store, other), ['ada', 'bob', 'cy'])
    t.equal(store.listPages(other).length, 1)
  })

  t.test('an erasure stopped part-way resumes after a reopen and completes', async (t) => {
    const under = await open(t)
    const p = await seeded(under.store)
    await under.store.startErasure({ id: 'er_1', projectId: p, by: { visitorId: 'va' } }, H0)
    await under.store.continueErasure('er_1', 1, H0)
    const store = await under.reopen()
    t.same(store.listRunningErasures().map((e) => e.id), ['er_1'], 'still to do after the restart')
    const { record } = await finish(store, 'er_1')
    t.match(record, { state: 'done', removed: { sessions: 2, chunks: 4, signalBatches: 2 } })
    t.same(sessionKeys(store, p), ['cy'])
    t.same(store.listRunningErasures(), [])
  })
}
