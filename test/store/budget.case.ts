/**
 * The shared suite's part for deleting recordings by size and by a project's
 * own retention (src/store/recording-store.ts): evictRecordings, oldest first
 * from the project holding the most, and purgeRecordingsBefore under a
 * project's retentionDays. Run by storeSuite (store.case.ts) for every implementation.
 */
import type { Test } from 'tap'
import type { IngestItem, Store } from '../../src/store/store.js'
import type { StoreFactory } from './store.case.js'

const T0 = 1_700_000_000_000
const DAY = 24 * 3_600_000
const KB = 1024

/** A chunk of `size` bytes received at `receivedAt`, spanning a minute of recording. */
function chunk(projectId: string, sk: string, seq: number, receivedAt: number, size = 10 * KB): IngestItem {
  return {
    kind: 'chunk',
    projectId,
    receivedAt,
    body: Buffer.alloc(size, seq),
    meta: { sk, vid: 'v1', seq, encoding: 'json', url: 'https://shop.test/', firstTs: receivedAt + seq * 60_000, lastTs: receivedAt + (seq + 1) * 60_000 },
  }
}

async function newProject(store: Store, name: string) {
  return store.createProject({ id: `prj_${name}`, orgId: 'org_1', name, domain: null, pathRules: [], publicKey: `svc_pk_${name}`, createdAt: T0 })
}

export function budgetSuite(t: Test, open: StoreFactory): void {
  t.test('eviction deletes whole sessions, oldest first from the project holding the most, until enough is freed', async (t) => {
    const { store } = await open(t)
    const big = await newProject(store, 'big')
    const small = await newProject(store, 'small')
    // big: 6 sessions of 20 KB, received in order; small: 2 sessions of 20 KB, the oldest of all.
    await store.appendBatch([chunk(small.id, 'small-0', 0, T0), chunk(small.id, 'small-0', 1, T0)])
    for (let i = 0; i < 6; i++) await store.appendBatch([chunk(big.id, `big-${i}`, 0, T0 + (i + 1) * 1000), chunk(big.id, `big-${i}`, 1, T0 + (i + 1) * 1000)])
    await store.appendBatch([chunk(small.id, 'small-1', 0, T0 + 10_000), chunk(small.id, 'small-1', 1, T0 + 10_000)])
    t.equal(store.projectStats(big.id).recordedMs, 6 * 2 * 60_000, 'recorded minutes counted per session span')

    const result = await store.evictRecordings(50 * KB, T0 + DAY)
    t.same(result, { sessionsPurged: 3, chunksDeleted: 6, bytesDeleted: 60 * KB, byProject: { [big.id]: { sessions: 3, bytes: 60 * KB } } }, 'three sessions of the big project free 50 KB')
    t.same(['big-0', 'big-1', 'big-2', 'big-3'].map((sk) => store.getSession(big.id, sk)?.purgedAt), [T0 + DAY, T0 + DAY, T0 + DAY, undefined], 'its oldest first')
    t.equal(store.getChunk(big.id, 'big-0', 0), undefined, 'the bytes are gone')
    t.equal(store.listChunks(big.id, 'big-0').length, 2, 'the chunk list stays')
    t.ok(store.getChunk(small.id, 'small-0', 0), 'the small project keeps even the oldest session of all')
    t.match(store.projectStats(big.id), { bytes: 60 * KB, recordedMs: 3 * 2 * 60_000, sessionCount: 6 }, 'counters follow')

    // Now both hold 60 and 40 KB: the largest gives first, then whichever is largest after each session.
    const more = await store.evictRecordings(60 * KB, T0 + DAY)
    t.same(more.byProject, { [big.id]: { sessions: 2, bytes: 40 * KB }, [small.id]: { sessions: 1, bytes: 20 * KB } }, 'fairly: from the largest each time')
    t.equal(store.getSession(small.id, 'small-0')?.purgedAt, T0 + DAY, 'the small project\'s oldest goes once it is as large')
    t.ok(store.getChunk(small.id, 'small-1', 0))

    const rest = await store.evictRecordings(1_000 * KB, T0 + DAY)
    t.equal(rest.bytesDeleted, 40 * KB, 'asked for more than held: everything left goes, and no more')
    t.same(await store.evictRecordings(1 * KB, T0 + DAY), { sessionsPurged: 0, chunksDeleted: 0, bytesDeleted: 0, byProject: {} }, 'nothing twice')

    // A late chunk of a deleted recording is acknowledged, its bytes not kept: nothing would ever delete them.
    t.same(await store.appendBatch([chunk(big.id, 'big-0', 2, T0 + DAY)]), ['stored'])
    t.equal(store.getChunk(big.id, 'big-0', 2), undefined)
    t.equal(store.projectStats(big.id).bytes, 0)
  })

  t.test('a project\'s own retention, shorter than the deployment\'s, purges its recordings sooner; others keep theirs', async (t) => {
    const { store } = await open(t)
    const short = await newProject(store, 'short')
    const usual = await newProject(store, 'usual')
    t.equal((await store.updateProject(short.id, { retentionDays: 7 }))?.retentionDays, 7)
    await store.appendBatch([chunk(short.id, 'a', 0, T0), chunk(usual.id, 'b', 0, T0), chunk(short.id, 'c', 0, T0 + 5 * DAY)])
    // Day 10, deployment retention 30 days: only the short project's session of day 0 is past its 7 days.
    t.match(await store.purgeRecordingsBefore(T0 + 10 * DAY - 30 * DAY, T0 + 10 * DAY), { sessionsPurged: 1 })
    t.equal(store.getSession(short.id, 'a')?.purgedAt, T0 + 10 * DAY)
    t.equal(store.getSession(usual.id, 'b')?.purgedAt, undefined, 'the other project keeps the deployment\'s retention')
    t.equal(store.getSession(short.id, 'c')?.purgedAt, undefined, 'within 7 days: kept')
    t.match(await store.purgeRecordingsBefore(T0 + 13 * DAY - 30 * DAY, T0 + 13 * DAY), { sessionsPurged: 1 }, 'day 13: the day-5 session goes too')
    // Cleared (null), the project is back to the deployment's retention.
    t.equal((await store.updateProject(short.id, { retentionDays: null }))?.retentionDays, null)
    await store.appendBatch([chunk(short.id, 'd', 0, T0 + 13 * DAY)])
    t.match(await store.purgeRecordingsBefore(T0 + 25 * DAY - 30 * DAY, T0 + 25 * DAY), { sessionsPurged: 0 })
  })
}
