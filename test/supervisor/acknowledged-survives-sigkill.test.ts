/**
 * Nothing acknowledged is lost: chunks sent concurrently to a two-front
 * cluster, the cluster SIGKILLed (every process of it at once) while they are
 * still coming, and every chunk that had been answered 200 is in the store,
 * byte for byte, when it is opened again.
 */
import { rmSync } from 'node:fs'
import t from 'tap'
import { startCluster, tempDataDir } from '../helpers/cluster.js'
import { meta, postChunk } from '../helpers/http.js'
import { seedProject, storeAt } from '../helpers/seed.js'

interface Acked {
  sk: string
  seq: number
  body: Buffer
}

const SENDERS = 16
/** Acknowledgements to wait for before the kill: enough that the kill lands mid-stream, with writes in flight. */
const BEFORE_KILL = 400

function bodyFor(sk: string, seq: number): Buffer {
  return Buffer.from(JSON.stringify([{ type: 3, sk, seq, data: 'x'.repeat(2000 + ((seq * 97) % 6000)) }]))
}

t.test('every chunk acknowledged before a SIGKILL of the cluster is in the store afterwards', async (t) => {
  const dataDir = tempDataDir()
  const cluster = await startCluster({ workers: 2, dataDir })
  const { project } = await seedProject(dataDir)
  const store = storeAt(dataDir)
  t.teardown(async () => {
    await cluster.kill()
    await store.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const acked: Acked[] = []
  let sent = 0
  let killed = false
  const senders = Array.from({ length: SENDERS }, async (_, i) => {
    const sk = `sess-${i}`
    for (let seq = 0; !killed; seq++) {
      const body = bodyFor(sk, seq)
      sent += 1
      try {
        const answer = await postChunk(cluster.url, { pk: project.publicKey, body, meta: meta({ sk, seq, vid: `vis-${i}` }) })
        if (answer.status === 200 && answer.json?.ok === true) acked.push({ sk, seq, body })
      } catch {
        return // the cluster is gone: this request was never acknowledged
      }
    }
  })
  while (acked.length < BEFORE_KILL) await new Promise((resolve) => setImmediate(resolve))
  await cluster.kill()
  killed = true
  await Promise.all(senders)
  t.ok(acked.length >= BEFORE_KILL, `${acked.length} chunks acknowledged of ${sent} sent`)

  const projectId = store.projectIdForPublicKey(project.publicKey)
  t.equal(projectId, project.id)
  let missing = 0
  for (const { sk, seq, body } of acked) {
    const stored = store.getChunk(project.id, sk, seq)
    if (!stored || Buffer.compare(Buffer.from(stored), body) !== 0) missing += 1
  }
  t.equal(missing, 0, 'every acknowledged (pk, sk, seq) is stored with its bytes')
  // Each session's record counts at least what was acknowledged for it (a chunk committed but not yet answered may add to it).
  for (let i = 0; i < SENDERS; i++) {
    const sk = `sess-${i}`
    const ackedHere = acked.filter((a) => a.sk === sk).length
    const session = store.getSession(project.id, sk)
    t.ok((session?.chunkCount ?? 0) >= ackedHere, `${sk}: ${session?.chunkCount ?? 0} chunks recorded, ${ackedHere} acknowledged`)
    t.equal(session?.chunkCount ?? 0, store.listChunks(project.id, sk).length, `${sk}: the record agrees with the chunks stored`)
  }
})

t.test('a cluster started again on the data of a SIGKILLed one serves and stores', async (t) => {
  const dataDir = tempDataDir()
  const first = await startCluster({ workers: 1, dataDir })
  const { project } = await seedProject(dataDir)
  const store = storeAt(dataDir)
  let second: Awaited<ReturnType<typeof startCluster>> | undefined
  t.teardown(async () => {
    await first.kill()
    await second?.stop()
    await store.close()
    rmSync(dataDir, { recursive: true, force: true })
  })
  // Kill it while it writes, so that the writer may die holding LMDB's write lock.
  const inFlight = Array.from({ length: 50 }, (_, seq) => postChunk(first.url, { pk: project.publicKey, meta: meta({ sk: 'before', seq }) }).catch(() => undefined))
  await first.kill()
  await Promise.all(inFlight)

  second = await startCluster({ workers: 1, dataDir })
  const answer = await postChunk(second.url, { pk: project.publicKey, meta: meta({ sk: 'after-restart', seq: 0 }) })
  t.equal(answer.status, 200)
  t.same(answer.json, { ok: true })
  t.equal(store.getSession(project.id, 'after-restart')?.chunkCount, 1)
})
