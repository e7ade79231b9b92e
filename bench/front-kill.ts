/**
 * SIGKILL one front of a two-front cluster
 * under ingest load, `kills` times, and count how often another process
 * exits with it (MDB_PANIC in the surviving front), how long the killed
 * front takes to listen again, and whether every acknowledged chunk reads
 * back byte-identical. Traffic goes to 127.0.0.1 only.
 *
 * Usage: npm run build --silent && npx tsup --config bench/tsup.config.ts
 *        node dist/bench/front-kill.js [kills=20] [senders=16] [seed] [main.js of the build under test] [random|sync]
 * `sync` kills each front inside LMDB's disk sync (stopped there with gdb) instead of at a random moment.
 * Prints one JSON line of figures; exits 1 when a process other than the killed one exited or an ack was lost.
 */
import { rmSync } from 'node:fs'
import { startCluster, tempDataDir } from '../test/helpers/cluster.js'
import { collateralExits, droppedLines, killOneFront, type KillPoint, missingAcked, panicLines, startLoad } from '../test/helpers/front-kill.js'
import { random } from '../test/helpers/random.js'
import { seedProject, storeAt } from '../test/helpers/seed.js'

const kills = Number(process.argv[2] ?? 20)
const senders = Number(process.argv[3] ?? 16)
const seed = Number(process.argv[4] ?? Date.now() % 1_000_000)
const main = process.argv[5] || undefined
const point = (process.argv[6] ?? 'random') as KillPoint

const dataDir = tempDataDir('svc-front-kill-')
const cluster = await startCluster({ workers: 2, dataDir, main })
const { project } = await seedProject(dataDir)
const store = storeAt(dataDir)
const load = startLoad(cluster.url, project.publicKey, senders)
const next = random(seed)
const rounds: Array<{ restartMs: number; collateral: number }> = []
let error: string | undefined
try {
  for (let round = 0; round < kills; round++) {
    const before = collateralExits(cluster.output()).length
    const { restartMs } = await killOneFront(cluster, round, next, point)
    rounds.push({ restartMs, collateral: collateralExits(cluster.output()).length - before })
    console.error(JSON.stringify({ round: round + 1, ...rounds.at(-1), acked: load.acked.length }))
  }
  // A surviving front that panicked may exit only after its next failed commit: give it a moment under load.
  await new Promise((resolve) => setTimeout(resolve, 1000))
} catch (caught) {
  error = String(caught)
}
await load.stop()
const output = cluster.output()
await cluster.stop()
const missing = missingAcked(store, project.id, load.acked)
await store.close()
rmSync(dataDir, { recursive: true, force: true })

const restarts = rounds.map((r) => r.restartMs).sort((a, b) => a - b)
const figures = {
  seed,
  point,
  kills: rounds.length,
  killsWithCollateralExit: rounds.filter((r) => r.collateral > 0).length,
  collateralExits: collateralExits(output).map((l) => ({ name: l.name, code: l.code, signal: l.signal })),
  panicLines: panicLines(output),
  droppedLines: droppedLines(output),
  sent: load.sent,
  acked: load.acked.length,
  failedRequests: load.failed,
  ackedMissing: missing.length,
  restartMsP50: restarts[Math.floor(restarts.length / 2)],
  restartMsMax: restarts.at(-1),
  missingSample: missing.slice(0, 3),
  error,
}
console.log(JSON.stringify(figures))
process.exit(figures.collateralExits.length > 0 || missing.length > 0 || error ? 1 : 0)
