import t from 'tap'
import { groupUrl } from '../../src/grouping/group.js'
import type { IngestItem } from '../../src/store/store.js'
import { call, ingestChunk } from '../helpers/api.js'
import { clusterFor, startCluster, tempDataDir } from '../helpers/cluster.js'
import { seedProject, storeAt } from '../helpers/seed.js'

const SESSIONS = 3000
const TENANTS = 50

/** Stores sessions the way the ingest writer does, with pages grouped under no rules. */
async function seedSessions(dataDir: string, projectId: string, count: number): Promise<void> {
  const store = storeAt(dataDir)
  const now = Date.now()
  for (let start = 0; start < count; start += 500) {
    const items: IngestItem[] = []
    for (let i = start; i < Math.min(count, start + 500); i++) {
      const url = `https://app.test/tenant-${i % TENANTS}/settings/${i}`
      const page = { ...groupUrl(url, []), firstSeenAt: now }
      items.push({ kind: 'chunk', projectId, receivedAt: now, page, body: Buffer.from('[{}]'), meta: { sk: `s-${String(i).padStart(5, '0')}`, vid: 'v', seq: 0, encoding: 'json', url, pageIndex: 0 } })
      const clickPage = { ...groupUrl(`${url}?tab=1`, []), firstSeenAt: now }
      items.push({ kind: 'signals', projectId, receivedAt: now + i, pages: [clickPage], batch: { sk: `s-${i}`, vid: 'v', dropped: 0, views: [], errors: [], clicks: [{ url: `${url}?tab=1`, ts: now, xRatio: 0.5, yDoc: 10, page: clickPage.key }] } })
    }
    await store.appendBatch(items)
  }
  await store.close()
}

async function statusOf(url: string, apiKey: string, projectId: string) {
  const res = await fetch(`${url}/api/v1/cli/projects.backfill.status?projectId=${projectId}`, { headers: { authorization: `Bearer ${apiKey}` } })
  return { status: res.status, body: await res.json() }
}

async function until<T>(probe: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (ok(value) || Date.now() > deadline) return value
    await new Promise((r) => setTimeout(r, 15))
  }
}

t.test('a backfill of thousands of sessions killed midway resumes and accounts for every session', async (t) => {
  const dataDir = tempDataDir()
  const seeded = await seedProject(dataDir, 'Backfill Org', 'b@backfill.test')
  await seedSessions(dataDir, seeded.project.id, SESSIONS)

  // Slow steps, so that the kill lands in the middle.
  const first = await startCluster({ workers: 1, dataDir, env: { BACKFILL_BATCH: '25', BACKFILL_PAUSE_MS: '20' } })
  t.teardown(() => first.stop())
  const rules = await call(first.url, '/cli/projects.path-rules', { token: seeded.apiKey, body: { projectId: seeded.project.id, rules: ['/{tenant}/settings/*'] } })
  t.equal(rules.status, 200)
  const started = await call(first.url, '/cli/projects.backfill', { token: seeded.apiKey, body: { projectId: seeded.project.id } })
  t.equal(started.status, 200)
  t.match(started.body, { state: 'running', done: false, pagesBefore: TENANTS, sessionsTotal: SESSIONS })
  const again = await call(first.url, '/cli/projects.backfill', { token: seeded.apiKey, body: { projectId: seeded.project.id } })
  t.equal(again.body.startedAt, started.body.startedAt, 'a second call joins the running backfill')

  // Ingest goes on while it runs.
  for (let i = 0; i < 5; i++) t.equal(await ingestChunk(first.url, seeded.project.publicKey, `during-${i}`), 200)

  const midway = await until(() => statusOf(first.url, seeded.apiKey, seeded.project.id), (s) => s.body.sessionsRekeyed >= 300)
  t.ok(midway.body.sessionsRekeyed < SESSIONS, `killed midway (${midway.body.sessionsRekeyed} of ${SESSIONS} re-keyed)`)
  await first.kill()

  const second = await clusterFor(t, { workers: 1, dataDir })
  const after = await statusOf(second.url, seeded.apiKey, seeded.project.id)
  t.ok(after.body.sessionsRekeyed >= midway.body.sessionsRekeyed, 'progress survived the kill')
  const done = await until(() => statusOf(second.url, seeded.apiKey, seeded.project.id), (s) => s.body.done)
  t.match(done.body, { state: 'done', done: true, phase: 'done', pagesBefore: TENANTS })
  t.ok(done.body.sessionsRekeyed >= SESSIONS, 'every stored session was re-keyed (resumed steps may count one batch twice)')

  const store = storeAt(dataDir)
  t.teardown(() => store.close())
  const sessions = [...store.listSessions(seeded.project.id)]
  t.equal(sessions.length, SESSIONS + 5, 'no session lost, ingest during the backfill kept')
  const seededSessions = sessions.filter((s) => s.sk.startsWith('s-'))
  t.equal(seededSessions.length, SESSIONS)
  t.ok(seededSessions.every((s) => s.pages.length === 1 && s.pages[0].page === 'app.test/{tenant}/settings/:id'), 'every seeded session is under the new rules')
  const clicks = [...store.listSignals(seeded.project.id)].flatMap((s) => s.batch.clicks)
  t.equal(clicks.length, SESSIONS)
  t.ok(clicks.every((c) => c.page === 'app.test/{tenant}/settings/:id'), 'signals re-keyed by the same page')
  const pages = store.listPages(seeded.project.id).map((p) => p.key).sort()
  t.same(pages, ['app.test/{tenant}/settings/:id', 'shop.test/'], 'the old pages are purged; pages ingested meanwhile stay')
  t.equal(done.body.pagesAfter, 2)
})

t.test('backfill validates its input and hides other organisations\' projects', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const a = await seedProject(cluster.dataDir, 'BA', 'a@ba.test')
  const b = await seedProject(cluster.dataDir, 'BB', 'b@bb.test')
  const bad = await call(cluster.url, '/cli/projects.backfill', { token: a.apiKey, body: {} })
  t.same([bad.status, bad.body.code], [400, 'invalid_request'])
  const other = await call(cluster.url, '/cli/projects.backfill', { token: a.apiKey, body: { projectId: b.project.id } })
  t.same([other.status, other.body.code], [404, 'not_found'])
  const otherStatus = await statusOf(cluster.url, a.apiKey, b.project.id)
  t.same([otherStatus.status, otherStatus.body.code], [404, 'not_found'])
  const noQuery = await fetch(`${cluster.url}/api/v1/cli/projects.backfill.status`, { headers: { authorization: `Bearer ${a.apiKey}` } })
  t.same([noQuery.status, (await noQuery.json()).code], [400, 'invalid_request'])
  const none = await statusOf(cluster.url, a.apiKey, a.project.id)
  t.same(none.body, { projectId: a.project.id, state: 'none', done: false })
  const empty = await call(cluster.url, '/cli/projects.backfill', { token: a.apiKey, body: { projectId: a.project.id } })
  t.equal(empty.status, 200)
  const finished = await until(() => statusOf(cluster.url, a.apiKey, a.project.id), (s) => s.body.done)
  t.match(finished.body, { done: true, pagesBefore: 0, pagesAfter: 0, sessionsTotal: 0 })
})
