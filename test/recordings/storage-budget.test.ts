/**
 * The disk budget (STORAGE_BUDGET, issue 32): three projects write three
 * times the budget through the real ingest path; the store's files never
 * pass the budget by more than 5%, the oldest recordings go first and from
 * the project holding the most, the newest sessions of every project stay
 * readable, and /metrics and the log say what was deleted.
 */
import t from 'tap'
import { rmSync } from 'node:fs'
import { evictionBounds } from '../../src/recordings/budget.js'
import { call } from '../helpers/api.js'
import { startCluster } from '../helpers/cluster.js'
import { seedProject, storeAt } from '../helpers/seed.js'
import { sampleStoreFiles, storeFileBytes, writeRecordings } from '../helpers/storage-load.js'

const MB = 1024 * 1024
const BUDGET = 20 * MB

t.test('20 MB budget, 60 MB written: files within budget + 5%, oldest first from the largest project, newest of each readable', async (t) => {
  const cluster = await startCluster({ workers: 1, env: { STORAGE_BUDGET: '20MB' } })
  const store = storeAt(cluster.dataDir)
  t.teardown(async () => {
    await store.close()
    await cluster.stop()
    rmSync(cluster.dataDir, { recursive: true, force: true })
  })
  const busy = await seedProject(cluster.dataDir, 'Busy', 'owner@busy.test')
  const steady = await seedProject(cluster.dataDir, 'Steady', 'owner@steady.test')
  const quiet = await seedProject(cluster.dataDir, 'Quiet', 'owner@quiet.test')

  const files = sampleStoreFiles(cluster.dataDir)
  const load = await writeRecordings({
    url: cluster.url,
    projects: [{ pk: busy.project.publicKey, weight: 12 }, { pk: steady.project.publicKey, weight: 6 }, { pk: quiet.project.publicKey, weight: 0.5 }],
    totalBytes: 3 * BUDGET,
    chunkBytes: 100 * 1024,
    chunksPerSession: 5,
    writers: 4,
  })
  // The check runs every 250 ms: let the last one go by before reading what stayed.
  await new Promise((resolve) => setTimeout(resolve, 1000))
  const peak = files.stop()
  t.comment(`written ${(load.bytes / MB).toFixed(1)} MB; peak data files ${(peak.size / MB).toFixed(1)} MB (${(peak.allocated / MB).toFixed(1)} MB allocated) against a ${BUDGET / MB} MB budget; answers ${JSON.stringify(load.statuses)}`)

  t.same(Object.keys(load.statuses).filter((s) => s !== '200' && s !== '429'), [], 'every chunk acknowledged (or asked to come back): never a 5xx')
  t.ok(peak.size <= BUDGET * 1.05, `the data files stay within the budget + 5% (${peak.size} bytes)`)

  const pkToProject = new Map([busy, steady, quiet].map((s) => [s.project.publicKey, s.project.id]))
  const held = [busy, steady, quiet].reduce((sum, s) => sum + store.projectStats(s.project.id).bytes, 0)
  t.ok(held <= BUDGET, `chunk bytes held within the budget (${held})`)
  // Eviction frees down to its lower bound (lowered as the files grew past 95% of the budget), a session (500 KB) more at most.
  const { to } = evictionBounds(BUDGET, storeFileBytes(cluster.dataDir).size)
  t.ok(held >= to - 500 * 1024, `eviction frees what the budget needs, not everything (${held} bytes held, bound ${to})`)

  // Oldest first: within each project, every deleted session finished before every kept one.
  for (const seeded of [busy, steady, quiet]) {
    const mine = load.sessions.filter((s) => pkToProject.get(s.pk) === seeded.project.id).sort((a, b) => a.doneAt - b.doneAt)
    const purged = mine.map((s) => store.getSession(seeded.project.id, s.sk)?.purgedAt !== undefined)
    const firstKept = purged.indexOf(false)
    t.ok(firstKept >= 0, `${seeded.project.name}: its newest sessions are kept`)
    t.ok(purged.slice(firstKept + 2).every((p) => !p), `${seeded.project.name}: the deleted sessions are its oldest`)
    // Its newest session reads back whole through the API.
    const newest = mine[mine.length - 1]
    const chunk = await call(cluster.url, '/cli/sessions.chunk', { token: seeded.apiKey, body: { projectId: seeded.project.id, sessionKey: newest.sk, seq: 4 } })
    t.equal(chunk.status, 200, `${seeded.project.name}: its newest session's last chunk reads back`)
  }
  // Fairness: the quiet project, far under its share, lost nothing; the busy one gave up the most.
  const quietStats = store.projectStats(quiet.project.id)
  t.equal(quietStats.bytes, load.sessions.filter((s) => s.pk === quiet.project.publicKey).length * 5 * 100 * 1024, 'the quiet project keeps every recording')

  const metrics = await fetch(`${cluster.url}/metrics`).then((r) => r.text())
  t.match(metrics, new RegExp(`svc_storage_evicted_sessions_total\\{project="${busy.project.id}"\\} [1-9]`), '/metrics counts the busy project\'s evictions')
  t.match(metrics, new RegExp(`svc_storage_bytes\\{project="${quiet.project.id}",kind="chunks"\\} ${quietStats.bytes}\\b`), '/metrics has the chunk bytes by project')
  t.match(metrics, new RegExp(`svc_storage_bytes_per_recorded_minute\\{project="${busy.project.id}"\\} 614400\\b`), '/metrics has the bytes per recorded minute (100 KB per 10 s chunk: 600 KB a minute)')
  t.match(metrics, /svc_storage_budget_bytes 20971520\b/, '/metrics has the budget')
  t.match(cluster.output(), /storage budget: deleted the oldest recordings/, 'a log line says so')
})
