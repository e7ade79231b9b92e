/**
 * WRITER_THREADS=0 (the default: the front writes on its own thread) and
 * WRITER_THREADS=1 (a piscina writer thread per front) give the same answers
 * and the same stored records: an acknowledgement
 * after the commit, the idempotent (sk, seq), a signals body that is no batch
 * refused alone while its batch-mates are stored; and the body buffers it
 * reuses once a batch is committed (src/front/body-pool.ts) never mix one
 * chunk's bytes into another's.
 */
import { connect } from 'node:net'
import t from 'tap'
import { jsonChunk, meta, postChunk, postSignals } from '../helpers/http.js'
import { ingestCluster, isIngestError } from '../helpers/ingest.js'

const click = { url: 'https://shop.test/', ts: Date.now(), xRatio: 0.5, yDoc: 120, selector: 'button.buy', kind: 'click' }

for (const threads of ['0', '1']) {
  t.test(`chunks are stored once per (sk, seq) and counted, WRITER_THREADS=${threads}`, async (t) => {
    const { cluster, pk, projectId, store } = await ingestCluster(t, { env: { WRITER_THREADS: threads } })
    const bodies = Array.from({ length: 30 }, (_, i) => jsonChunk(1 + (i % 4)))
    // Sent at once so that they share transactions; seq 7 twice, as a retry would.
    const answers = await Promise.all(bodies.map((body, i) => postChunk(cluster.url, { pk, body, meta: meta({ sk: 'S', seq: i === 29 ? 7 : i }) })))
    for (const answer of answers) t.same(answer.json, { ok: true })
    t.equal(store.listChunks(projectId, 'S').length, 29)
    t.equal(store.getSession(projectId, 'S')!.chunkCount, 29)
    t.equal(store.projectStats(projectId).chunkCount, 29)
    t.same(Buffer.from(store.getChunk(projectId, 'S', 3)!), bodies[3])
  })

  t.test(`a signals body that is no batch is refused alone; its batch-mates are stored, WRITER_THREADS=${threads}`, async (t) => {
    const { cluster, pk, projectId, store } = await ingestCluster(t, { env: { WRITER_THREADS: threads } })
    const bodies = Array.from({ length: 20 }, (_, i) => (i % 4 === 0 ? '{' : JSON.stringify({ sk: `s${i}`, vid: 'v', clicks: [click] })))
    const answers = await Promise.all(bodies.map((body) => postSignals(cluster.url, pk, body)))
    answers.forEach((answer, i) => (i % 4 === 0 ? isIngestError(t, answer, 400, 'invalid_request', `body ${i}`) : t.same(answer.json, { ok: true }, `body ${i}`)))
    t.equal(Array.from(store.listSignals(projectId)).length, 15)
    t.equal(store.projectStats(projectId).signalBatches, 15)
  })
}

t.test('reused body buffers: wave after wave of chunks of many sizes, each stored byte for byte', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t, { env: { WRITER_THREADS: '0' } })
  const port = Number(new URL(cluster.url).port)
  // Distinct bytes per chunk and sizes across several size classes, so that a buffer given back too early or to two
  // requests shows as a chunk holding another's bytes.
  const bodyOf = (wave: number, i: number) => Buffer.from(JSON.stringify({ wave, i, fill: String.fromCharCode(65 + ((wave * 7 + i) % 26)).repeat(300 + ((wave * 131 + i * 977) % 40_000)) }))
  for (let wave = 0; wave < 6; wave++) {
    // A client that declares a body and goes away mid-way: its buffer must not end up in a stored chunk either.
    const quitter = connect(port, '127.0.0.1', () => {
      quitter.write(`POST /api/v1/ingest?pk=${pk} HTTP/1.1\r\nHost: x\r\nX-Svc-Meta: ${JSON.stringify(meta({ sk: 'Q', seq: wave }))}\r\nContent-Length: 30000\r\n\r\n${'Z'.repeat(10_000)}`)
      quitter.destroy()
    })
    quitter.on('error', () => {})
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => postChunk(cluster.url, { pk, body: bodyOf(wave, i), meta: meta({ sk: `W${wave}`, seq: i }) })))
    answers.forEach((answer, i) => t.same(answer.json, { ok: true }, `wave ${wave} chunk ${i}`))
  }
  let identical = 0
  for (let wave = 0; wave < 6; wave++) {
    for (let i = 0; i < 25; i++) if (Buffer.from(store.getChunk(projectId, `W${wave}`, i)!).equals(bodyOf(wave, i))) identical += 1
  }
  t.equal(identical, 150, 'all 150 chunks read back as sent')
  t.equal(store.listChunks(projectId, 'Q').length, 0, 'and nothing of the abandoned bodies was stored')
})
