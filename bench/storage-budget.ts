/**
 * The disk budget's soak (issue 32): starts the service with STORAGE_BUDGET,
 * writes `total` bytes of recordings through the real ingest path (three
 * projects, 12:6:1 of the sessions, 100 KB incompressible chunks, 5 per
 * session, 4 writers), samples the store's data files every 50 ms, and
 * prints the peak against the budget, what each project kept, and whether
 * each project's newest session still reads back.
 *
 * Usage: npm run bench:budget -- [budget=200MB] [total MB=2048]
 * Prints one JSON line; bench/RESULTS.md, "Storage budget", records a run.
 */
import { rmSync } from 'node:fs'
import { call } from '../test/helpers/api.js'
import { startCluster } from '../test/helpers/cluster.js'
import { seedProject, storeAt } from '../test/helpers/seed.js'
import { sampleStoreFiles, writeRecordings } from '../test/helpers/storage-load.js'
import { budgetBytes } from '../src/recordings/budget.js'
import { loadConfig } from '../src/config.js'

const MB = 1024 * 1024
const budgetSetting = process.argv[2] ?? '200MB'
const totalMb = Number(process.argv[3] ?? 2048)
const config = loadConfig({ STORAGE_BUDGET: budgetSetting })
const budget = budgetBytes(config.storageBudget!, config.dataDir)

const cluster = await startCluster({ workers: 1, env: { STORAGE_BUDGET: budgetSetting } })
try {
  const projects = [await seedProject(cluster.dataDir, 'Busy', 'owner@busy.test'), await seedProject(cluster.dataDir, 'Steady', 'owner@steady.test'), await seedProject(cluster.dataDir, 'Quiet', 'owner@quiet.test')]
  // The files' size each time another tenth of the total is written: whether they level off or creep.
  let written = 0
  let fileNow = 0
  const timeline: [number, number][] = []
  const files = sampleStoreFiles(cluster.dataDir, 50, (size) => void (fileNow = size))
  const started = Date.now()
  const load = await writeRecordings({
    url: cluster.url,
    projects: projects.map((p, i) => ({ pk: p.project.publicKey, weight: [12, 6, 1][i] })),
    totalBytes: totalMb * MB,
    chunkBytes: 100 * 1024,
    chunksPerSession: 5,
    writers: 4,
    onWritten: (bytes) => {
      if (Math.floor((bytes * 10) / (totalMb * MB)) > Math.floor((written * 10) / (totalMb * MB))) timeline.push([Math.round(bytes / MB), +(fileNow / MB).toFixed(1)])
      written = bytes
    },
  })
  const seconds = (Date.now() - started) / 1000
  await new Promise((resolve) => setTimeout(resolve, 1000))
  const peak = files.stop()
  const store = storeAt(cluster.dataDir)
  const kept: Record<string, unknown> = {}
  for (const seeded of projects) {
    const mine = load.sessions.filter((s) => s.pk === seeded.project.publicKey).sort((a, b) => a.doneAt - b.doneAt)
    const newest = mine[mine.length - 1]
    const read = await call(cluster.url, '/cli/sessions.chunk', { token: seeded.apiKey, body: { projectId: seeded.project.id, sessionKey: newest.sk, seq: 4 } })
    kept[seeded.project.name] = {
      sessions: mine.length,
      kept: mine.filter((s) => store.getSession(seeded.project.id, s.sk)?.purgedAt === undefined).length,
      chunkMB: +(store.projectStats(seeded.project.id).bytes / MB).toFixed(1),
      newestReads: read.status === 200,
    }
  }
  await store.close()
  console.log(JSON.stringify({
    budgetMB: +(budget / MB).toFixed(1),
    writtenMB: +(load.bytes / MB).toFixed(1),
    seconds: +seconds.toFixed(1),
    peakFileMB: +(peak.size / MB).toFixed(1),
    peakAllocatedMB: +(peak.allocated / MB).toFixed(1),
    peakOverBudget: +(peak.size / budget).toFixed(3),
    statuses: load.statuses,
    fileMBByWrittenMB: timeline,
    projects: kept,
  }))
} finally {
  await cluster.stop()
  rmSync(cluster.dataDir, { recursive: true, force: true })
}
