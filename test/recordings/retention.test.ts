import t from 'tap'
import { purgeExpired } from '../../src/recordings/retention.js'
import type { IngestItem } from '../../src/store/store.js'
import { tempDataDir } from '../helpers/cluster.js'
import { seedProject, storeAt } from '../helpers/seed.js'

const DAY = 24 * 60 * 60 * 1000

t.test('retention purges old recordings; session metadata and signals survive', async (t) => {
  const dataDir = tempDataDir()
  const { project } = await seedProject(dataDir)
  const store = storeAt(dataDir)
  t.teardown(() => store.close())
  const base = Date.UTC(2026, 0, 1)
  const chunk = (sk: string, seq: number, receivedAt: number): IngestItem => ({
    kind: 'chunk', projectId: project.id, receivedAt, body: Buffer.from(`[{"n":${seq}}]`),
    meta: { sk, vid: 'v', seq, encoding: 'json', url: 'https://a.test/x', firstTs: receivedAt, lastTs: receivedAt },
  })
  // old: recorded on day 0; active: started day 0, still recording on day 40; recent: day 35.
  await store.appendBatch([chunk('old', 0, base), chunk('old', 1, base + 1000), chunk('active', 0, base), chunk('recent', 0, base + 35 * DAY)])
  await store.appendBatch([chunk('active', 1, base + 40 * DAY)])
  await store.appendBatch([{ kind: 'signals', projectId: project.id, receivedAt: base, batch: { sk: 'old', vid: 'v', dropped: 0, views: [{ url: 'https://a.test/x', startedAt: base }], clicks: [], errors: [] } }])
  const bytesBefore = store.projectStats(project.id).bytes

  // Day 31 by a controllable clock: only "old" is past 30 days of inactivity.
  const day31 = await purgeExpired(store, 30, base + 31 * DAY)
  t.match(day31, { sessionsPurged: 1, chunksDeleted: 2 })
  t.equal(store.getChunk(project.id, 'old', 0), undefined, 'recording bytes gone')
  t.equal(store.getChunk(project.id, 'old', 1), undefined)
  const old = store.getSession(project.id, 'old')
  t.ok(old, 'the session metadata survives')
  t.equal(old!.purgedAt, base + 31 * DAY, 'and says it was purged')
  t.equal(old!.chunkCount, 2)
  t.equal(store.listChunks(project.id, 'old').length, 2, 'what the recording was is still known')
  t.ok(store.getChunk(project.id, 'active', 0), 'a session still active after the cutoff keeps its recording')
  t.ok(store.getChunk(project.id, 'recent', 0))
  t.equal([...store.listSignals(project.id)].length, 1, 'signals survive the purge')
  t.equal(store.projectStats(project.id).bytes, bytesBefore - day31.bytesDeleted)
  t.equal(store.projectStats(project.id).sessionCount, 3, 'sessions still count')

  t.match(await purgeExpired(store, 30, base + 31 * DAY), { sessionsPurged: 0 }, 'a second pass finds nothing')
  const day71 = await purgeExpired(store, 30, base + 71 * DAY)
  t.equal(day71.sessionsPurged, 2, 'later, the active and recent sessions age out too')
  t.equal(store.getChunk(project.id, 'active', 1), undefined)
})
