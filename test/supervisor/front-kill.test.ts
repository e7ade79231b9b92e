/**
 * A front killed under ingest load takes nothing else with it:
 * the other front and the control worker keep running (no exit the
 * primary reports but the SIGKILLs we sent), the killed front is restarted and
 * serves again, and every chunk acknowledged by either front, before, during
 * or after the kills, reads back byte-identical.
 *
 * Half the kills land at a random moment, half (when gdb is installed) while
 * the victim syncs the disk: the moment a dying writer poisoned the others
 * under lmdb-js's overlappingSync, and one a random kill rarely hits.
 */
import t from 'tap'
import { clusterFor } from '../helpers/cluster.js'
import { collateralExits, hasGdb, killOneFront, missingAcked, panicLines, startLoad, until } from '../helpers/front-kill.js'
import { meta, postChunk } from '../helpers/http.js'
import { random } from '../helpers/random.js'
import { seedProject, storeAt } from '../helpers/seed.js'

const KILLS = 6
const SENDERS = 24

// Six restarts (each waits out the primary's backoff) and the read-back of every acknowledged chunk: past tap's 120 s on a busy machine.
t.setTimeout(300_000)

t.test('SIGKILL of one front under load never takes down another process nor loses an acknowledged chunk', async (t) => {
  const cluster = await clusterFor(t, { workers: 2 })
  const { project } = await seedProject(cluster.dataDir)
  const store = storeAt(cluster.dataDir)
  t.teardown(() => store.close())
  const seed = Date.now() % 1_000_000
  t.comment(`seed ${seed}`)
  const next = random(seed)
  const gdb = hasGdb()
  if (!gdb) t.comment('gdb not installed: every kill at a random moment')

  const load = startLoad(cluster.url, project.publicKey, SENDERS)
  t.teardown(() => load.stop())
  await until(() => load.acked.length >= 50, 30_000)
  const restarts: number[] = []
  for (let round = 0; round < KILLS; round++) {
    const point = gdb && round % 2 === 0 ? 'sync' : 'random'
    const { pid, restartMs } = await killOneFront(cluster, round, next, point)
    restarts.push(restartMs)
    t.same(collateralExits(cluster.output()), [], `kill ${round + 1} (front ${pid}, ${point}): no other process exited; replaced in ${restartMs} ms`)
  }
  // A poisoned front fails on its next commit: keep the load on long enough for that to show.
  const ackedAfterKills = load.acked.length
  await until(() => load.acked.length >= ackedAfterKills + 100, 20_000)
  await load.stop()

  t.same(collateralExits(cluster.output()), [], 'only the killed fronts exited')
  t.equal(panicLines(cluster.output()), 0, 'no MDB_PANIC nor fatal error in the output')
  const answer = await postChunk(cluster.url, { pk: project.publicKey, meta: meta({ sk: 'after-kills', seq: 0 }) })
  t.equal(answer.status, 200, 'the port answers after the last restart')
  t.same(answer.json, { ok: true })
  t.ok(load.acked.length > ackedAfterKills, `${load.acked.length} chunks acknowledged of ${load.sent} sent (${load.failed} failed with the killed fronts)`)
  t.comment(`restart after SIGKILL: ${restarts.join(', ')} ms`)
  t.same(missingAcked(store, project.id, load.acked), [], 'every acknowledged chunk reads back byte-identical')
})
