/**
 * The shared suite's part on recording completeness (issue 35): what a
 * session record keeps about the parts of its recording that did not arrive
 * (src/store/session-losses.ts), the project's count of incomplete sessions,
 * and what the read API makes of them (src/recordings/completeness.ts).
 */
import type { Test } from 'tap'
import { completenessOf } from '../../src/recordings/completeness.js'
import { MAX_SESSION_LOSSES } from '../../src/store/session-losses.js'
import type { ChunkMeta, IngestItem, NewProject, RecordingLoss, Store } from '../../src/store/store.js'
import { matchExactly } from '../helpers/match.js'
import type { StoreFactory } from './store.case.js'

const T0 = 1_700_000_000_000
const URL_A = 'https://shop.test/a'

function project(): NewProject {
  const n = Math.random().toString(16).slice(2, 10)
  return { id: `prj_${n}`, orgId: 'org_1', name: `Site ${n}`, domain: null, pathRules: [], publicKey: `svc_pk_${n}`, createdAt: T0 }
}

/** Chunk `seq` of session s1, its events 10 s apart per seq: seq n spans T0 + 10n s to T0 + 10n s + 5 s. */
function chunk(projectId: string, seq: number, meta: Partial<ChunkMeta> = {}): IngestItem {
  const firstTs = T0 + seq * 10_000
  return { kind: 'chunk', projectId, receivedAt: T0, body: Buffer.from('[{"type":3}]'), meta: { sk: 's1', vid: 'v1', seq, encoding: 'json', firstTs, lastTs: firstTs + 5_000, url: URL_A, ...meta } }
}

function report(projectId: string, lost: RecordingLoss[], sk = 's1'): IngestItem {
  return { kind: 'signals', projectId, receivedAt: T0, batch: { sk, vid: 'v1', dropped: 0, views: [], clicks: [], errors: [], lost } }
}

const read = (store: Store, projectId: string) => completenessOf(store.getSession(projectId, 's1')!, () => store.listChunks(projectId, 's1'))
const incomplete = (store: Store, projectId: string) => store.projectStats(projectId).incompleteSessions ?? 0

export function completenessSuite(t: Test, open: StoreFactory): void {
  t.test('completeness: a hole in the seqs is named not_received between the events around it, and the project counts the session until it fills', async (t) => {
    const { store } = await open(t)
    const p = await store.createProject(project())
    await store.appendBatch([chunk(p.id, 0), chunk(p.id, 1)])
    t.equal(read(store, p.id).complete, true, 'seqs 0 and 1: complete')
    t.equal(incomplete(store, p.id), 0)
    await store.appendBatch([chunk(p.id, 4)])
    const c = read(store, p.id)
    t.equal(c.complete, false)
    matchExactly(t, c.missing, [{ reason: 'not_received', chunks: 2, fromSeq: 2, toSeq: 3, fromTs: T0 + 15_000, untilTs: T0 + 40_000 }])
    t.match(c, { missingChunks: 2, notReceived: 2, dropped: 0, refused: 0, tabClosed: 0, excludedPages: 0, recordingStartedAt: T0 })
    t.equal(incomplete(store, p.id), 1, 'the project counts it')
    await store.appendBatch([chunk(p.id, 2), chunk(p.id, 3)])
    t.equal(read(store, p.id).complete, true, 'the late chunks fill the hole')
    t.same(read(store, p.id).missing, [])
    t.equal(incomplete(store, p.id), 0, 'and the project count follows')
  })

  t.test('completeness: reports name the seqs they cover, the service\'s 413 before the tracker\'s word, and a report of a seq that arrived changes nothing', async (t) => {
    const { store } = await open(t)
    const p = await store.createProject(project())
    await store.appendBatch([chunk(p.id, 0), chunk(p.id, 5)])
    await store.appendBatch([
      report(p.id, [
        { reason: 'dropped', seq: 0, fromTs: T0, untilTs: T0 + 5_000 }, // arrived after all: no loss
        { reason: 'tab_closed', seq: 1, toSeq: 3, fromTs: T0 + 10_000, untilTs: T0 + 36_000 },
        { reason: 'refused_too_large', seq: 2, fromTs: T0 + 20_000, untilTs: T0 + 25_000, bytes: 1_200_000 },
        { reason: 'dropped', seq: 3, fromTs: T0 + 30_000, untilTs: T0 + 35_000 },
        { reason: 'tab_closed', seq: 6, toSeq: 7, fromTs: T0 + 60_000, untilTs: T0 + 80_000 },
      ]),
    ])
    const c = read(store, p.id)
    t.equal(c.complete, false)
    matchExactly(t, c.missing, [
      { reason: 'tab_closed', chunks: 1, fromSeq: 1, toSeq: 1, fromTs: T0 + 10_000, untilTs: T0 + 36_000 },
      { reason: 'refused_too_large', chunks: 1, fromSeq: 2, toSeq: 2, fromTs: T0 + 20_000, untilTs: T0 + 25_000 },
      { reason: 'dropped', chunks: 1, fromSeq: 3, toSeq: 3 },
      { reason: 'not_received', chunks: 1, fromSeq: 4, toSeq: 4, fromTs: T0 + 35_000, untilTs: T0 + 50_000 },
      { reason: 'tab_closed', chunks: 2, fromSeq: 6, toSeq: 7, fromTs: T0 + 60_000, untilTs: T0 + 80_000 },
    ])
    t.match(c, { missingChunks: 6, tabClosed: 3, refused: 1, dropped: 1, notReceived: 1 })
    await store.appendBatch([1, 2, 3, 4, 6, 7].map((seq) => chunk(p.id, seq)))
    t.equal(read(store, p.id).complete, true, 'every reported seq arrived: complete')
    t.equal(incomplete(store, p.id), 0)
  })

  t.test('completeness: chunks dropped before they had a seq are counted per page view; pages the capture settings left out are listed but leave the session complete', async (t) => {
    const { store } = await open(t)
    const p = await store.createProject(project())
    await store.appendBatch([chunk(p.id, 0), chunk(p.id, 1)])
    await store.appendBatch([report(p.id, [{ reason: 'excluded', pageIndex: 1, url: 'https://shop.test/account', fromTs: T0 + 12_000 }])])
    const left = read(store, p.id)
    t.equal(left.complete, true, 'an excluded page is the project\'s choice, not a loss')
    matchExactly(t, left.missing, [{ reason: 'excluded', chunks: null, pageIndex: 1, url: 'https://shop.test/account', fromTs: T0 + 12_000, fromSeq: null }])
    t.equal(left.excludedPages, 1)
    t.equal(incomplete(store, p.id), 0)
    await store.appendBatch([
      report(p.id, [
        { reason: 'dropped', pageIndex: 2, fromTs: T0 + 20_000, untilTs: T0 + 21_000, events: 40 },
        { reason: 'dropped', pageIndex: 2, fromTs: T0 + 22_000, untilTs: T0 + 23_000, events: 30 },
      ]),
    ])
    const dropped = read(store, p.id)
    t.equal(dropped.complete, false)
    t.match(dropped, { dropped: 2, missingChunks: 2, excludedPages: 1 })
    matchExactly(t, dropped.missing.slice(1), [{ reason: 'dropped', chunks: 2, pageIndex: 2, fromSeq: null, fromTs: T0 + 20_000, untilTs: T0 + 23_000 }])
    t.equal(incomplete(store, p.id), 1)
  })

  t.test('completeness: a report is kept once, however often it comes; one for a session without a record is not kept; a batch of reports only stores no signal batch', async (t) => {
    const { store } = await open(t)
    const p = await store.createProject(project())
    await store.appendBatch([chunk(p.id, 0)])
    const closing: RecordingLoss = { reason: 'tab_closed', seq: 1, toSeq: 2, fromTs: T0 + 10_000, untilTs: T0 + 30_000 }
    t.same(await store.appendBatch([report(p.id, [closing]), report(p.id, [closing])]), ['stored', 'stored'])
    t.same(await store.appendBatch([report(p.id, [closing]), report(p.id, [{ reason: 'dropped', pageIndex: 0 }], 'nobody')]), ['stored', 'stored'])
    t.equal(store.getSession(p.id, 's1')!.losses!.length, 1, 'kept once')
    t.equal(store.getSession(p.id, 'nobody'), undefined, 'no session made up for a report')
    t.equal([...store.listSignals(p.id)].length, 0, 'no signal batch stored for reports alone')
    t.equal(incomplete(store, p.id), 1, 'counted once')
  })

  t.test(`completeness: past ${MAX_SESSION_LOSSES} reports a session lets answered ones go first, then counts what it cannot keep`, async (t) => {
    const { store } = await open(t)
    const p = await store.createProject(project())
    await store.appendBatch([chunk(p.id, 0), chunk(p.id, 1)])
    // Reports about seqs that all arrived, then pages left out: the first are let go to make room.
    await store.appendBatch([report(p.id, [{ reason: 'dropped', seq: 0 }, { reason: 'dropped', seq: 1 }])])
    const pages = Array.from({ length: MAX_SESSION_LOSSES + 5 }, (_, i): RecordingLoss => ({ reason: 'sampled_out', pageIndex: 10 + i }))
    for (let i = 0; i < pages.length; i += 20) await store.appendBatch([report(p.id, pages.slice(i, i + 20))])
    const session = store.getSession(p.id, 's1')!
    t.equal(session.losses!.length, MAX_SESSION_LOSSES)
    t.notOk(session.losses!.some((l) => l.seq !== undefined), 'the answered reports went first')
    t.equal(session.lossesOmitted, 5, 'what did not fit is counted')
    t.equal(read(store, p.id).omitted, 5)
    t.equal(read(store, p.id).complete, true)
  })

  t.test('completeness: a client that jumps to seq 2,000,000,000 costs one part, not a walk over the seqs', async (t) => {
    const { store } = await open(t)
    const p = await store.createProject(project())
    await store.appendBatch([chunk(p.id, 0), chunk(p.id, 2_000_000_000, { firstTs: T0 + 60_000, lastTs: T0 + 61_000 })])
    const c = read(store, p.id)
    matchExactly(t, c.missing, [{ reason: 'not_received', chunks: 1_999_999_999, fromSeq: 1, toSeq: 1_999_999_999 }])
  })
}
