/**
 * A gzip bomb read back: a 146 KB chunk whose one event
 * inflates to 150 MB, ingested through a real cluster, comes back from
 * sessions.events as a small, valid JSON array: the chunk is inflated only up
 * to its limit and a svc.chunk_cut event stands for the rest, every other event
 * of the session is byte-identical, and the control worker's memory stays flat.
 */
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { MAX_CHUNK_INFLATED_BYTES } from '../../src/recordings/events.js'
import { sharedCluster } from '../helpers/cluster.js'
import { gzipBomb } from '../helpers/gzip-bomb.js'
import { controlPid, statusBytes } from '../helpers/process-memory.js'
import { callRaw, postChunk } from '../helpers/read.js'
import { seedProject } from '../helpers/seed.js'

const BOMB_BYTES = 150 * 1024 * 1024
/**
 * What the control worker may grow by while it reads the bomb back: the
 * 64 MiB it inflates at most pass through as zlib's external buffers, which
 * V8 frees when its external-memory trigger fires (about 64 MiB above the last
 * full collection, see recording-stream.test.ts), and the 16 MiB event cap is
 * never reached because the chunk's limit is. Before the bounds it grew by
 * 442 MB (175 to 617 MB) on this bomb.
 */
const GROWTH_BOUND = 100 * 1024 * 1024

const event = (n: number) => JSON.stringify({ type: 3, data: { source: 1, n }, timestamp: 1_700_000_000_000 + n })

t.test('a 146 KB gzip bomb is read back as a bounded answer, the other events intact, the control worker flat', async (t) => {
  const cluster = await sharedCluster({ workers: 1 })
  const { apiKey, project } = await seedProject(cluster.dataDir)
  const before = [event(0), event(1)]
  const inBombChunk = event(2)
  const after = [event(3), event(4)]
  const bomb = await gzipBomb(`[${inBombChunk},{"type":2,"timestamp":1700000000003,"data":{"pad":"`, BOMB_BYTES, `"}},${event(99)}]`)
  t.ok(bomb.length < 160_000, `the bomb is ${(bomb.length / 1000).toFixed(0)} KB of gzip for ${BOMB_BYTES / 2 ** 20} MiB`)

  t.equal(await postChunk(cluster.url, project.publicKey, { sk: 'bomb', seq: 0, encoding: 'gzip', eventCount: 2 }, gzipSync(`[${before.join(',')}]`)), 200)
  t.equal(await postChunk(cluster.url, project.publicKey, { sk: 'bomb', seq: 1, encoding: 'gzip', eventCount: 3 }, bomb), 200, 'the bomb is stored as sent')
  t.equal(await postChunk(cluster.url, project.publicKey, { sk: 'bomb', seq: 2, encoding: 'json', eventCount: 2 }, Buffer.from(`[${after.join(',')}]`)), 200)

  // A small read first, so that the baseline includes the code and buffers any first call loads.
  t.equal(await postChunk(cluster.url, project.publicKey, { sk: 'small', seq: 0, encoding: 'gzip' }, gzipSync(`[${event(0)}]`)), 200)
  t.equal((await callRaw(cluster.url, '/cli/sessions.events', apiKey, { projectId: project.id, sessionKey: 'small' })).status, 200)

  const pid = controlPid(cluster.child.pid!)
  const baseline = { anon: statusBytes(pid, 'RssAnon'), rss: statusBytes(pid, 'VmRSS') }
  const peak = { ...baseline }
  const sample = () => {
    peak.anon = Math.max(peak.anon, statusBytes(pid, 'RssAnon'))
    peak.rss = Math.max(peak.rss, statusBytes(pid, 'VmRSS'))
  }
  const sampler = setInterval(sample, 10)
  const started = performance.now()
  const answer = await callRaw(cluster.url, '/cli/sessions.events', apiKey, { projectId: project.id, sessionKey: 'bomb' })
  const took = performance.now() - started
  clearInterval(sampler)
  sample()

  t.equal(answer.status, 200)
  t.ok(answer.bytes.length < 4096, `the answer is ${answer.bytes.length} bytes, read in ${took.toFixed(0)} ms`)
  const text = answer.bytes.toString('utf8')
  const events = JSON.parse(text)
  t.equal(events.length, 6, 'five events and one marker')
  const cutMarker = JSON.stringify({ type: 5, timestamp: 1_700_000_000_002, data: { tag: 'svc.chunk_cut', payload: { seq: 1, limit: MAX_CHUNK_INFLATED_BYTES } } })
  t.equal(text, `[${[...before, inBombChunk, cutMarker, ...after].join(',')}]`, 'the other events byte-identical, the rest of the bomb\'s chunk replaced by svc.chunk_cut')

  const grewAnon = peak.anon - baseline.anon
  const grewRss = peak.rss - baseline.rss
  t.ok(grewAnon < GROWTH_BOUND, `control worker anonymous memory grew by ${(grewAnon / 2 ** 20).toFixed(1)} MiB (bound ${GROWTH_BOUND / 2 ** 20} MiB; VmRSS ${(baseline.rss / 2 ** 20).toFixed(0)} → peak ${(peak.rss / 2 ** 20).toFixed(0)} MiB, +${(grewRss / 2 ** 20).toFixed(1)})`)
  t.ok(grewRss < GROWTH_BOUND + 2 * 2 ** 20, 'VmRSS too, with the bomb chunk\'s pages of the LMDB map on top')

  // Read again and again: the bound holds per read, nothing accumulates.
  for (let i = 0; i < 3; i++) {
    const again = performance.now()
    const same = await callRaw(cluster.url, '/cli/sessions.events', apiKey, { projectId: project.id, sessionKey: 'bomb' })
    t.equal(same.bytes.toString('utf8'), text, `read ${i + 2} in ${(performance.now() - again).toFixed(0)} ms, the same answer`)
  }
  sample()
  t.ok(peak.anon - baseline.anon < GROWTH_BOUND, `after 4 reads: +${((peak.anon - baseline.anon) / 2 ** 20).toFixed(1)} MiB at the peak`)
})

t.test('maxBytes caps the answer at an event boundary; a cap below its minimum is refused', async (t) => {
  const cluster = await sharedCluster({ workers: 1 })
  const { apiKey, project } = await seedProject(cluster.dataDir)
  const all = Array.from({ length: 400 }, (_, n) => event(n))
  t.equal(await postChunk(cluster.url, project.publicKey, { sk: 's', seq: 0, encoding: 'gzip', eventCount: 200 }, gzipSync(`[${all.slice(0, 200).join(',')}]`)), 200)
  t.equal(await postChunk(cluster.url, project.publicKey, { sk: 's', seq: 1, encoding: 'json', eventCount: 200 }, Buffer.from(`[${all.slice(200).join(',')}]`)), 200)

  const capped = await callRaw(cluster.url, '/cli/sessions.events', apiKey, { projectId: project.id, sessionKey: 's', maxBytes: 8192 })
  t.equal(capped.status, 200)
  t.ok(capped.bytes.length <= 8192, `${capped.bytes.length} bytes`)
  const events = JSON.parse(capped.bytes.toString('utf8'))
  const last = events.pop()
  t.same(last.data, { tag: 'svc.answer_truncated', payload: { maxBytes: 8192 } })
  t.ok(events.length > 50, `${events.length} whole events`)
  t.ok(capped.bytes.toString('utf8').startsWith(`[${all.slice(0, events.length).join(',')},`), 'the first events, byte-identical')

  const whole = await callRaw(cluster.url, '/cli/sessions.events', apiKey, { projectId: project.id, sessionKey: 's', maxBytes: 1_000_000 })
  t.equal(whole.bytes.toString('utf8'), `[${all.join(',')}]`, 'a cap above the recording changes nothing')

  const refused = await callRaw(cluster.url, '/cli/sessions.events', apiKey, { projectId: project.id, sessionKey: 's', maxBytes: 10 })
  t.equal(refused.status, 400)
  t.equal(JSON.parse(refused.bytes.toString('utf8')).code, 'invalid_request')
})
