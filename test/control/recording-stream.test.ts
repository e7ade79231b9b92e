/**
 * sessions.events streams a large recording: about 76 MB of gzip chunks
 * (101 MB once decompressed) go out as one JSON array while the control
 * worker's anonymous memory (its heaps, where a buffered answer would sit)
 * stays below the recording's stored size.
 */
import { randomBytes } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { clusterFor } from '../helpers/cluster.js'
import { controlPid, rssAnon } from '../helpers/process-memory.js'
import { seedProject } from '../helpers/seed.js'
import { postChunk } from '../helpers/read.js'

const CHUNKS = 80
const EVENTS_PER_CHUNK = 100
/** Random base64 compresses to about 3/4: 100 events of 12.6 KB make a chunk of about 950 KB, under the 1,000,000-byte cap. */
const EVENT_TEXT_BYTES = 12_600
/**
 * What the control worker may grow by while streaming: the recording's stored
 * size, let alone the 101 MB of events a buffered answer would hold at once.
 * Growth is not near zero, and does not depend on the recording's size: the
 * pieces passing through (each chunk's bytes as read, zlib's output) are
 * external buffers that V8 frees when its external-memory trigger fires,
 * about 64 MiB above what the last full collection left. Measured: 15 to 43 MB
 * with 56 chunks; the recording is made large enough that this ceiling stays
 * well under the bound.
 */

t.test('a 76 MB recording streams as one JSON array with the control worker\'s memory bounded', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const { apiKey, project } = await seedProject(cluster.dataDir)
  let stored = 0
  for (let seq = 0; seq < CHUNKS; seq++) {
    const events = Array.from({ length: EVENTS_PER_CHUNK }, (_, i) => ({ type: 3, timestamp: seq * 1000 + i, data: { n: seq * EVENTS_PER_CHUNK + i, text: randomBytes((EVENT_TEXT_BYTES * 3) / 4).toString('base64') } }))
    const body = gzipSync(JSON.stringify(events), { level: 1 })
    t.ok(body.byteLength < 1_000_000, `chunk ${seq} fits the cap`)
    stored += body.byteLength
    t.equal(await postChunk(cluster.url, project.publicKey, { sk: 'big', seq, encoding: 'gzip', eventCount: EVENTS_PER_CHUNK }, body), 200)
  }
  t.ok(stored > 75_000_000, `${(stored / 1e6).toFixed(1)} MB stored`)
  const GROWTH_BOUND = stored

  // A small recording first, so that the baseline includes the code and buffers any first call loads.
  t.equal(await postChunk(cluster.url, project.publicKey, { sk: 'small', seq: 0, encoding: 'gzip' }, gzipSync(JSON.stringify([{ type: 4, data: {} }]))), 200)
  const warm = await fetch(`${cluster.url}/api/v1/cli/sessions.events`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ projectId: project.id, sessionKey: 'small' }) })
  t.equal((await warm.json()).length, 1)

  const pid = controlPid(cluster.child.pid!)
  const baseline = rssAnon(pid)
  let peak = baseline
  const sampler = setInterval(() => (peak = Math.max(peak, rssAnon(pid))), 20)
  const res = await fetch(`${cluster.url}/api/v1/cli/sessions.events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ projectId: project.id, sessionKey: 'big' }),
  })
  t.equal(res.status, 200)
  const pieces: Buffer[] = []
  let received = 0
  for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>) {
    pieces.push(Buffer.from(piece))
    received += piece.byteLength
  }
  clearInterval(sampler)
  peak = Math.max(peak, rssAnon(pid))

  const events = JSON.parse(Buffer.concat(pieces).toString('utf8')) as { data: { n: number } }[]
  t.equal(events.length, CHUNKS * EVENTS_PER_CHUNK, `${(received / 1e6).toFixed(1)} MB of events, every one of them`)
  t.ok(events.every((e, i) => e.data.n === i), 'in order')
  const growth = peak - baseline
  t.ok(growth < GROWTH_BOUND, `control worker grew by ${(growth / 1e6).toFixed(1)} MB while streaming ${(received / 1e6).toFixed(1)} MB (bound ${(GROWTH_BOUND / 1e6).toFixed(1)} MB)`)
})
