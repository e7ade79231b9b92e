/**
 * The write queue is bounded: past INGEST_QUEUE_ITEMS a front
 * answers 429 overloaded with Retry-After at once instead of buffering, and
 * what it answered 200 is stored. A bound of 2 requests and 200 clients at
 * once make the queue overflow on any machine.
 */
import t from 'tap'
import { jsonChunk, meta, postChunk, postSignals } from '../helpers/http.js'
import { ingestCluster, isIngestError } from '../helpers/ingest.js'

const CLIENTS = 200

t.test('past its bound the queue sheds load with 429 overloaded and Retry-After; every 200 is stored, every 429 is not', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t, { env: { INGEST_QUEUE_ITEMS: '2' } })
  const bodies = Array.from({ length: CLIENTS }, (_, seq) => Buffer.concat([jsonChunk(50).subarray(0, -1), Buffer.from(`,{"seq":${seq}}]`)]))
  const answers = await Promise.all(bodies.map((body, seq) => postChunk(cluster.url, { pk, body, meta: meta({ sk: 'busy', seq }) })))
  const shed = answers.flatMap((answer, seq) => (answer.status === 200 ? [] : [seq]))
  t.ok(shed.length > 0, `some of ${CLIENTS} simultaneous chunks were shed (${shed.length})`)
  t.ok(shed.length < CLIENTS, 'and some were stored')
  for (const seq of shed) {
    isIngestError(t, answers[seq], 429, 'overloaded', `chunk ${seq}`)
    t.equal(answers[seq].headers['retry-after'], '1', `chunk ${seq}: Retry-After 1 s, the queue drains quickly`)
    t.match(answers[seq].headers['access-control-expose-headers'], /\bRetry-After\b/, `chunk ${seq}: a tracker on another origin may read it`)
  }
  for (const [seq, answer] of answers.entries()) {
    const stored = store.getChunk(projectId, 'busy', seq)
    if (answer.status === 200) t.same(stored && Buffer.from(stored), bodies[seq], `chunk ${seq}: acknowledged and stored`)
    else t.equal(stored, undefined, `chunk ${seq}: refused and not stored`)
  }

  const signals = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => postSignals(cluster.url, pk, { sk: `busy-${i}`, vid: 'v' })))
  const signalsShed = signals.filter((answer) => answer.status !== 200)
  t.ok(signalsShed.length > 0, `/signals shares the bound (${signalsShed.length} of ${CLIENTS} shed)`)
  for (const answer of signalsShed) isIngestError(t, answer, 429, 'overloaded', '/signals')

  // Load gone, room again: the shed chunks sent once more are stored.
  for (const seq of shed) t.same((await postChunk(cluster.url, { pk, body: bodies[seq], meta: meta({ sk: 'busy', seq }) })).json, { ok: true })
  t.equal(store.listChunks(projectId, 'busy').length, CLIENTS, 'every chunk stored once')
})
