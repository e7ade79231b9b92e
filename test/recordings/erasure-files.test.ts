/**
 * Gone means gone, in the files (issue 34): sessions recorded with unique
 * markers (in the page text of JSON chunks, stored as they arrive, in the
 * page URL's query, in a rage click's label, in the session keys and visitor
 * ids and, for the user, in the user id given to `identify`) are erased, one by session key and two by user id, and
 * a project holding another is deleted; the service is stopped in the middle of the erasures and started again; once
 * they are done and the store compacted, no file under DATA_DIR holds a
 * marker, while a session kept holds its own, and no API answers anything of
 * the erased sessions. Each marker is first shown to be in the files, so that
 * the search can fail. Error messages, kept as counts that name no session,
 * carry no marker (/docs/privacy).
 */
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { lastCompactionAt } from '../../src/store/lmdb/compaction.js'
import { call } from '../helpers/api.js'
import { startCluster, tempDataDir, type Cluster } from '../helpers/cluster.js'
import { seedProject, storeAt, type Seeded } from '../helpers/seed.js'
import { events, postChunk, postSignals } from '../helpers/read.js'

const NOW = Date.now()
const mark = (what: string) => `${what}-${randomBytes(8).toString('hex')}`
const MARKS = { a: mark('MARKA'), b: mark('MARKB'), user: mark('MARKUSER'), project: mark('MARKPROJECT'), kept: mark('KEPT') }
// The erased sessions' keys and visitor ids (`v-<key>`) carry their markers too: identifiers in table keys must go as well.
const SK = { a: `s-a-${MARKS.a}`, b1: `s-b1-${MARKS.b}`, b2: `s-b2-${MARKS.b}` }

/** Every file under `dir`, read whole: the store's environments, its lock files, anything else the service wrote. */
function filesHolding(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle)
  const found: string[] = []
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name)
    if (statSync(path).isFile() && readFileSync(path).includes(bytes)) found.push(name)
  }
  return found
}

/** Retries through the moments the service is restarting (a compaction stops it). */
async function until<T>(what: () => Promise<T>, done: (value: T) => boolean, ms = 15_000): Promise<T | undefined> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    try {
      const value = await what()
      if (done(value)) return value
    } catch {
      // connection refused while the service restarts
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return undefined
}

async function record(cluster: Cluster, pk: string, sk: string, userId: string, marker: string): Promise<number[]> {
  const url = `https://shop.test/account?note=${marker}`
  const events = [{ type: 3, timestamp: NOW - 50_000, data: { source: 0, texts: [{ id: 7, value: `Dear ${marker}, your order` }] } }]
  const chunk = await postChunk(cluster.url, pk, { sk, seq: 0, url, startedAt: NOW - 60_000, firstTs: NOW - 60_000, lastTs: NOW - 1_000, identity: { userId } }, Buffer.from(JSON.stringify(events)))
  const signals = await postSignals(cluster.url, pk, {
    sk,
    vid: `v-${sk}`,
    views: [{ url, startedAt: NOW - 60_000, activeMs: 5_000 }],
    clicks: [{ url, ts: NOW - 30_000, xRatio: 0.5, yDoc: 10, kind: 'rage', n: 3, selector: '#pay', label: `Pay ${marker}` }],
    errors: [{ url, ts: NOW - 20_000, message: 'TypeError: x is undefined' }],
    // What search finds a session by (console text, failed request) goes with it too.
    console: [{ ts: NOW - 15_000, level: 'error', text: `Order of ${marker} failed` }],
    requests: [{ ts: NOW - 10_000, method: 'POST', url: `https://api.shop.test/orders/${marker}`, status: 503 }],
  })
  return [chunk, signals]
}

t.test('an erased session\'s markers are in no file under DATA_DIR after the erasure and its compaction, across a restart in the middle', async (t) => {
  const dataDir = tempDataDir()
  // Small slow steps: the erasures are still running when the service is stopped.
  // No least interval: the compaction the restart runs first would otherwise hold back the erasures finishing after it.
  const options = { workers: 1, dataDir, env: { COMPACTION_INTERVAL_MS: '0', BACKFILL_BATCH: '3', BACKFILL_PAUSE_MS: '25' } }
  let cluster = await startCluster(options)
  t.teardown(async () => {
    await cluster.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })
  const { apiKey, project } = await seedProject(dataDir)
  const deleted = await seedProject(dataDir, 'Gone', 'owner@gone.test')
  const post = (route: string, body: unknown, token = apiKey) => call(cluster.url, route, { token, body })
  t.same(await record(cluster, project.publicKey, SK.a, 'u-a', MARKS.a), [200, 200])
  t.same(await record(cluster, project.publicKey, SK.b1, MARKS.user, MARKS.b), [200, 200])
  t.same(await record(cluster, project.publicKey, SK.b2, MARKS.user, MARKS.b), [200, 200])
  t.same(await record(cluster, project.publicKey, 's-kept', 'u-kept', MARKS.kept), [200, 200])
  t.same(await record(cluster, deleted.project.publicKey, 's-p', 'u-p', MARKS.project), [200, 200])
  const range = { since: NOW - 3_600_000, until: NOW + 60_000 }
  const folded = await until(() => post('/cli/friction.list', { projectId: project.id, ...range }), (a) => a.body.items?.filter((i: any) => i.kind === 'rage').length === 4)
  t.ok(folded, 'the fold counted every session\'s rage click')
  for (const [what, marker] of Object.entries(MARKS)) t.not(filesHolding(dataDir, marker).length, 0, `before: marker ${what} is in the files`)

  const bySession = await post('/cli/erasures.create', { projectId: project.id, by: { sessionKey: SK.a } })
  const byUser = await post('/cli/erasures.create', { projectId: project.id, by: { userId: MARKS.user } })
  t.same([bySession.status, byUser.status], [200, 200])
  const projectDeleted = await post('/cli/projects.delete', { projectId: deleted.project.id }, deleted.apiKey)
  t.equal(projectDeleted.status, 200, 'and a whole project is deleted')
  const ids = [bySession.body.erasure.id, byUser.body.erasure.id]
  const running = await until(() => post('/cli/erasures.get', { erasureId: ids[1] }), (a) => a.body.erasure?.state === 'running' && a.body.erasure.phase !== 'sessions')
  t.ok(running, 'the erasure by user id is under way')
  t.not(running?.body.erasure.state, 'done')
  await cluster.stop()
  cluster = await startCluster(options)

  for (const [id, token] of [...ids.map((id) => [id, apiKey]), [projectDeleted.body.erasure.id, deleted.apiKey]]) {
    const done = await until(() => post('/cli/erasures.get', { erasureId: id }, token), (a) => a.body.erasure?.state === 'done' && a.body.erasure.scrubbed === true, 30_000)
    t.ok(done, `erasure ${id} finished after the restart, and a compaction ran after it`)
  }
  const erasures = (await until(() => post('/cli/erasures.list', { projectId: project.id }), (a) => a.status === 200))!.body.erasures
  t.same(erasures.map((e: any) => [e.subject, e.removed.sessions]).sort(), [['sessionKey', 1], ['userId', 2]])

  for (const what of ['a', 'b', 'user', 'project'] as const) t.same(filesHolding(dataDir, MARKS[what]), [], `after: marker ${what} is in no file`)
  t.not(filesHolding(dataDir, MARKS.kept).length, 0, 'the session kept still holds its own marker')

  const sessions = await post('/cli/sessions.list', { projectId: project.id })
  t.same(sessions.body.sessions.map((s: any) => s.sessionKey), ['s-kept'])
  const byUserList = await post('/cli/sessions.list', { projectId: project.id, userId: MARKS.user })
  t.same([byUserList.status, byUserList.body.sessions], [200, []])
  for (const sk of [SK.a, SK.b1, SK.b2]) {
    const chunks = await post('/cli/sessions.chunks', { projectId: project.id, sessionKey: sk })
    t.same([chunks.status, chunks.body.code], [404, 'not_found'], `sessions.chunks ${sk}`)
    const events = await post('/cli/sessions.events', { projectId: project.id, sessionKey: sk })
    t.same([events.status, events.body.code], [404, 'not_found'], `sessions.events ${sk}`)
    const chunk = await post('/cli/sessions.chunk', { projectId: project.id, sessionKey: sk, seq: 0 })
    t.same([chunk.status, chunk.body.code], [404, 'not_found'], `sessions.chunk ${sk}`)
  }
  const friction = await post('/cli/friction.list', { projectId: project.id, ...range })
  t.same([...new Set(friction.body.items.map((i: any) => i.sessionKey))], ['s-kept'], 'friction items (and their Watch links) name only the session kept')
  const elements = await post('/cli/elements.list', { projectId: project.id, ...range })
  t.notOk(JSON.stringify(elements.body).includes('MARK'), 'the element leaderboard shows no erased label')
  const clickedBy = await post('/cli/sessions.list', { projectId: project.id, page: 'shop.test/account', selector: '#pay' })
  t.same(clickedBy.body.sessions?.map((s: any) => s.sessionKey), ['s-kept'], 'an element\'s sessions are only the one kept')
})

/**
 * Erasure without an outage (issue 42): a client records continuously for
 * the erasing organisation and for another while 10 erasures run one after
 * another, each compacted at once (the default) with every process paused,
 * none stopped, and never two compactions closer than COMPACTION_INTERVAL_MS.
 */
t.test('10 erasures in a row, each compacted online: 0 refused connections, 0 5xx, every acknowledged chunk reads back, each erased marker in no file', async (t) => {
  const dataDir = tempDataDir()
  const interval = 300
  const cluster = await startCluster({ workers: 1, dataDir, env: { COMPACTION_INTERVAL_MS: String(interval) } })
  t.teardown(async () => {
    await cluster.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })
  const erasing = await seedProject(dataDir)
  const other = await seedProject(dataDir, 'Other', 'owner@other.test')
  // A deployment's processes are the only ones with the store open while it is compacted: the seeding one lets go.
  await storeAt(dataDir).close()

  const statuses: Record<string, number> = {}
  const failures: string[] = []
  const acknowledged = new Map<string, { token: string; projectId: string; seqs: number[] }>()
  /** When each chunk was answered 200. */
  const ackedAt: number[] = []
  let sending = true
  const count = (what: string, status: number) => (statuses[`${what} ${status}`] = (statuses[`${what} ${status}`] ?? 0) + 1)
  /** One tracker's traffic: a chunk then a signals batch, over and over, 25 chunks a session; errors by code. */
  async function sendContinuously(seeded: Seeded, name: string): Promise<void> {
    for (let n = 0; sending; n++) {
      const sk = `s-live-${name}-${Math.floor(n / 25)}`
      const seq = n % 25
      try {
        const chunk = await postChunk(cluster.url, seeded.project.publicKey, { sk, seq, firstTs: Date.now() - 1_000, lastTs: Date.now() }, Buffer.from(JSON.stringify(events(seq * 10, 10))))
        count('chunk', chunk)
        if (chunk === 200) {
          ackedAt.push(Date.now())
          const session = acknowledged.get(sk) ?? { token: seeded.apiKey, projectId: seeded.project.id, seqs: [] }
          session.seqs.push(seq)
          acknowledged.set(sk, session)
        }
        count('signals', await postSignals(cluster.url, seeded.project.publicKey, { sk, vid: `v-${sk}`, views: [{ url: 'https://shop.test/', startedAt: Date.now() - 1_000, activeMs: 500 }] }))
      } catch (error) {
        failures.push(String((error as { cause?: { code?: string } }).cause?.code ?? error))
      }
    }
  }
  const clients = [sendContinuously(erasing, 'erasing'), sendContinuously(other, 'other')]

  const post = (route: string, body: unknown) => call(cluster.url, route, { token: erasing.apiKey, body })
  const started = Date.now()
  const compactedAt: number[] = []
  /** Each erasure's stretch of time: from recording its session to its compaction seen done. */
  const windows: [from: number, to: number][] = []
  for (let i = 0; i < 10; i++) {
    const from = Date.now()
    const marker = mark(`MARK${i}X`)
    const sk = `s-gone-${marker}`
    t.same(await record(cluster, erasing.project.publicKey, sk, `u-${i}`, marker), [200, 200], `erasure ${i}: its session is recorded`)
    t.not(filesHolding(dataDir, marker).length, 0, `erasure ${i}: before, its marker is in the files`)
    const created = await post('/cli/erasures.create', { projectId: erasing.project.id, by: { sessionKey: sk } })
    t.equal(created.status, 200, `erasure ${i} is accepted`)
    const done = await until(() => post('/cli/erasures.get', { erasureId: created.body.erasure.id }), (a) => a.body.erasure?.state === 'done' && a.body.erasure.scrubbed === true)
    t.ok(done, `erasure ${i} is done and a compaction ran after it`)
    t.same(filesHolding(dataDir, marker), [], `erasure ${i}: after its compaction, its marker is in no file`)
    compactedAt.push(lastCompactionAt(dataDir))
    windows.push([from, Date.now()])
  }
  const gaps = compactedAt.slice(1).map((at, i) => at - compactedAt[i])
  t.ok(gaps.every((gap) => gap >= interval), `one compaction per erasure, never two within COMPACTION_INTERVAL_MS (${interval} ms): ${gaps.join(', ')} ms apart`)
  const elapsed = Date.now() - started
  sending = false
  await Promise.all(clients)

  t.same(failures, [], 'no request failed: 0 refused connections (ECONNREFUSED), 0 reset')
  t.same(Object.keys(statuses).sort(), ['chunk 200', 'signals 200'], `every ingest request was answered 200: ${JSON.stringify(statuses)}`)
  // Throughout, not a rate: a machine's speed decides how many, not whether ingest went on during each erasure and its compaction.
  const idle = windows.map(([from, to], i) => ({ i, acked: ackedAt.filter((at) => at >= from && at <= to).length })).filter((w) => w.acked === 0)
  t.same(idle, [], `chunks were acknowledged during every erasure and its compaction (${statuses['chunk 200']} chunks in ${elapsed} ms)`)
  for (const [sk, session] of acknowledged) {
    const listed = await call(cluster.url, '/cli/sessions.chunks', { token: session.token, body: { projectId: session.projectId, sessionKey: sk } })
    t.equal(listed.status, 200)
    const stored = new Set(listed.body.chunks.map((c: { seq: number }) => c.seq))
    t.same(session.seqs.filter((seq) => !stored.has(seq)), [], `every acknowledged chunk of ${sk} reads back`)
  }
  t.match(cluster.output(), /children resumed after the compaction/, 'the compactions paused the children')
  t.notMatch(cluster.output(), /child exited/, 'and no child stopped')
})
