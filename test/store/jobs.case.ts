/**
 * The shared suite's jobs part (src/store/recording-store.ts): retention's
 * purge and the backfill that re-keys a project's pages. Run by storeSuite
 * (store.case.ts) for every implementation.
 */
import type { Test } from 'tap'
import { groupUrl } from '../../src/grouping/group.js'
import { compileRules } from '../../src/grouping/rules.js'
import type { IngestItem, Store } from '../../src/store/store.js'
import type { StoreFactory } from './store.case.js'

const T0 = 1_700_000_000_000
const DAY = 24 * 3_600_000

function chunk(projectId: string, sk: string, seq: number, receivedAt: number, url = 'https://shop.test/acme/settings'): IngestItem {
  return {
    kind: 'chunk',
    projectId,
    receivedAt,
    body: Buffer.from(`[{"seq":${seq}}]`),
    page: { ...groupUrl(url, []), firstSeenAt: receivedAt },
    meta: { sk, vid: 'v1', seq, encoding: 'json', pageIndex: seq, url, firstTs: receivedAt, lastTs: receivedAt },
  }
}

async function newProject(store: Store, n: number) {
  return store.createProject({ id: `prj_jobs${n}`, orgId: 'org_1', name: `Jobs ${n}`, domain: null, pathRules: [], publicKey: `svc_pk_jobs${n}`, createdAt: T0 })
}

export function jobsSuite(t: Test, open: StoreFactory): void {
  t.test('purging before a time deletes the bytes of inactive sessions only, and keeps what they were', async (t) => {
    const { store } = await open(t)
    const p = await newProject(store, 1)
    await store.appendBatch([chunk(p.id, 'old', 0, T0), chunk(p.id, 'old', 1, T0 + 1), chunk(p.id, 'active', 0, T0), chunk(p.id, 'new', 0, T0 + 10 * DAY)])
    await store.appendBatch([chunk(p.id, 'active', 1, T0 + 10 * DAY)])
    const bytes = (sk: string) => store.listChunks(p.id, sk).reduce((sum, c) => sum + c.size, 0)
    const before = store.projectStats(p.id).bytes
    const result = await store.purgeRecordingsBefore(T0 + 5 * DAY, T0 + 11 * DAY)
    t.same(result, { sessionsPurged: 1, chunksDeleted: 2, bytesDeleted: bytes('old') })
    t.equal(store.getChunk(p.id, 'old', 0), undefined)
    t.equal(store.getSession(p.id, 'old')?.purgedAt, T0 + 11 * DAY)
    t.equal(store.listChunks(p.id, 'old').length, 2, 'the chunk list says what the recording was')
    t.ok(store.getChunk(p.id, 'active', 0), 'a session active after the cutoff keeps its bytes')
    t.equal(store.getSession(p.id, 'active')?.purgedAt, undefined)
    t.equal(store.projectStats(p.id).bytes, before - result.bytesDeleted)
    t.same(await store.purgeRecordingsBefore(T0 + 5 * DAY, T0 + 12 * DAY), { sessionsPurged: 0, chunksDeleted: 0, bytesDeleted: 0 }, 'nothing twice')
    const later = await store.purgeRecordingsBefore(T0 + 20 * DAY, T0 + 21 * DAY)
    t.equal(later.sessionsPurged, 2, 'once inactive long enough, the others go too')
  })

  t.test('a backfill re-keys sessions and the page index, is listed while it runs, and resumes after a restart', async (t) => {
    const handle = await open(t)
    let store = handle.store
    const p = await newProject(store, 2)
    const urls = ['https://shop.test/acme/settings', 'https://shop.test/globex/settings', 'https://shop.test/initech/settings']
    for (const [i, url] of urls.entries()) await store.appendBatch([chunk(p.id, `s${i}`, 0, T0 + i, url)])
    t.equal(store.countPages(p.id), 3)
    const rules = ['/{tenant}/settings']
    const started = await store.startBackfill(p.id, rules, T0 + DAY)
    t.match(started, { projectId: p.id, state: 'running', rules, pagesBefore: 3, sessionsTotal: 3, sessionsRekeyed: 0 })
    t.notOk('cursor' in started, 'where it resumes stays inside the store')
    t.same(await store.startBackfill(p.id, ['/other'], T0 + DAY + 1), started, 'a second start answers the running one')
    t.same(store.listRunningBackfills().map((b) => b.projectId), [p.id])

    const compiled = compileRules(rules).rules
    const rekey = (url: string) => ({ ...groupUrl(url, compiled), firstSeenAt: 0 })
    let state = await store.continueBackfill(p.id, 1, rekey, T0 + DAY + 2)
    t.equal(state.state, 'running')
    store = await handle.reopen()
    t.same(store.getBackfill(p.id), state, 'the state as the last step left it, after a restart')
    t.same(store.listRunningBackfills().map((b) => b.projectId), [p.id])
    for (let steps = 0; state.state === 'running' && steps < 50; steps++) state = await store.continueBackfill(p.id, 1, rekey, T0 + DAY + 3)
    t.match(state, { state: 'done', phase: 'done', sessionsRekeyed: 3, pagesBefore: 3, pagesAfter: 1, finishedAt: T0 + DAY + 3 })
    const tenant = groupUrl(urls[0], compiled).key
    t.same(store.listPages(p.id).map((pg) => pg.key), [tenant], 'one page for every tenant')
    for (const i of [0, 1, 2]) t.same(store.getSession(p.id, `s${i}`)?.pages.map((pg) => pg.page), [tenant])
    t.same(store.listRunningBackfills(), [])
    t.same(store.getBackfill(p.id), state)
  })
}
