/**
 * WRITER_THREADS=0: the front writes on its own thread, with the same answers
 * and the same stored records as through the writer pool: an acknowledgement
 * after the commit, the idempotent (sk, seq), a signals body that is no batch
 * refused alone while its batch-mates are stored.
 */
import t from 'tap'
import { jsonChunk, meta, postChunk, postSignals } from '../helpers/http.js'
import { ingestCluster, isIngestError } from '../helpers/ingest.js'

const click = { url: 'https://shop.test/', ts: Date.now(), xRatio: 0.5, yDoc: 120, selector: 'button.buy', kind: 'click' }

t.test('chunks are stored once per (sk, seq) and counted, with no writer thread', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t, { env: { WRITER_THREADS: '0' } })
  const bodies = Array.from({ length: 30 }, (_, i) => jsonChunk(1 + (i % 4)))
  // Sent at once so that they share transactions; seq 7 twice, as a retry would.
  const answers = await Promise.all(bodies.map((body, i) => postChunk(cluster.url, { pk, body, meta: meta({ sk: 'S', seq: i === 29 ? 7 : i }) })))
  for (const answer of answers) t.same(answer.json, { ok: true })
  t.equal(store.listChunks(projectId, 'S').length, 29)
  t.equal(store.getSession(projectId, 'S')!.chunkCount, 29)
  t.equal(store.projectStats(projectId).chunkCount, 29)
  t.same(Buffer.from(store.getChunk(projectId, 'S', 3)!), bodies[3])
})

t.test('a signals body that is no batch is refused alone; its batch-mates are stored', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t, { env: { WRITER_THREADS: '0' } })
  const bodies = Array.from({ length: 20 }, (_, i) => (i % 4 === 0 ? '{' : JSON.stringify({ sk: `s${i}`, vid: 'v', clicks: [click] })))
  const answers = await Promise.all(bodies.map((body) => postSignals(cluster.url, pk, body)))
  answers.forEach((answer, i) => (i % 4 === 0 ? isIngestError(t, answer, 400, 'invalid_request', `body ${i}`) : t.same(answer.json, { ok: true }, `body ${i}`)))
  t.equal(Array.from(store.listSignals(projectId)).length, 15)
  t.equal(store.projectStats(projectId).signalBatches, 15)
})
