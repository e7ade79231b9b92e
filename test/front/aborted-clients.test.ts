/**
 * Clients that go away mid-request must never take a front down: a body that
 * stops halfway, and hundreds of connections aborted at every stage, with the
 * process still serving (and storing) afterwards.
 */
import t, { type Test } from 'tap'
import type { Cluster } from '../helpers/cluster.js'
import { get, head, jsonChunk, meta, openSocket, postChunk, postSignals } from '../helpers/http.js'
import { ingestCluster, type IngestSetup } from '../helpers/ingest.js'
import { parseProm } from '../helpers/prom.js'

async function stillServes(t: Test, { cluster, pk, projectId, store }: IngestSetup): Promise<void> {
  const health = await get(cluster.url, '/health')
  t.equal(health.status, 200, 'health answers 200')
  t.same((await postChunk(cluster.url, { pk, meta: meta({ sk: 'after', seq: 0 }) })).json, { ok: true }, 'a valid chunk is accepted')
  t.equal(store.getSession(projectId, 'after')?.chunkCount, 1, 'and stored')
  t.same((await postSignals(cluster.url, pk, { sk: 'after', vid: 'v' })).json, { ok: true }, 'a valid signals batch is accepted')
}

/** No front restarted: the primary logs a restart when a child dies. */
function noRestart(t: Test, cluster: Cluster): void {
  t.notMatch(cluster.output(), /child exited/, 'no process died')
}

/** The front's requests of `route` counted so far, with `status` or with any. */
async function counted(cluster: Cluster, route: string, status?: string): Promise<number> {
  const samples = parseProm((await get(cluster.url, '/metrics')).text).samples('svc_http_requests_total')
  return samples.filter((s) => s.labels.role === 'front' && s.labels.route === route && (!status || s.labels.status === status)).reduce((sum, s) => sum + s.value, 0)
}

/**
 * Waits until the front has counted `at least` requests of each route: a request is
 * counted once, when it is answered or when its front sees the client leave, so
 * then every one of them has been dealt with. Scraped until it shows, 30 s at most.
 */
async function frontCounted(cluster: Cluster, atLeast: Record<string, number>, status?: string): Promise<void> {
  for (const deadline = Date.now() + 30_000; ; ) {
    const counts = await Promise.all(Object.keys(atLeast).map((route) => counted(cluster, route, status)))
    if (counts.every((n, i) => n >= Object.values(atLeast)[i])) return
    if (Date.now() > deadline) throw new Error(`the front counted ${JSON.stringify(counts)} of ${JSON.stringify(atLeast)}`)
  }
}

/** Sends the head and `part` of the body, then closes (or destroys) the socket. */
async function abortAfter(port: number, requestHead: string, part: Buffer, how: 'end' | 'destroy'): Promise<void> {
  const socket = await openSocket(port)
  socket.on('error', () => {})
  await new Promise<void>((resolve) => socket.write(requestHead, () => resolve()))
  if (part.byteLength > 0) await new Promise<void>((resolve) => socket.write(part, () => resolve()))
  if (how === 'end') socket.end()
  else socket.destroy()
}

t.test('a body that stops halfway is not stored, and the front keeps serving', async (t) => {
  const setup = await ingestCluster(t)
  const { cluster, pk, projectId, store } = setup
  const body = jsonChunk(200)
  await abortAfter(cluster.port, head('POST', `/api/v1/ingest?pk=${pk}`, { 'content-length': body.byteLength, 'x-svc-meta': JSON.stringify(meta({ sk: 'half' })) }), body.subarray(0, body.byteLength >> 1), 'end')
  const signals = Buffer.from(JSON.stringify({ sk: 'half', vid: 'v', clicks: [{ url: '/', ts: 1, xRatio: 0, yDoc: 0 }] }))
  await abortAfter(cluster.port, head('POST', `/api/v1/signals?pk=${pk}`, { 'content-length': signals.byteLength }), signals.subarray(0, signals.byteLength >> 1), 'end')
  await frontCounted(cluster, { ingestSessionChunk: 1, ingestSignalsBatch: 1 }, 'aborted')
  // One front, one write queue in order: once the next chunk is stored, a half one queued before it would be too.
  await stillServes(t, setup)
  t.equal(store.getSession(projectId, 'half'), undefined, 'the half chunk is not stored')
  t.same(Array.from(store.listSignals(projectId), (s) => s.batch.sk), ['after'], 'the half batch is not stored')
  noRestart(t, cluster)
})

t.test('200 clients that abort at every stage of a request leave the front serving', async (t) => {
  const setup = await ingestCluster(t)
  const { cluster, pk } = setup
  const chunk = jsonChunk(2000)
  const ingestHead = (sk: string, extra: Record<string, string | number>) => head('POST', `/api/v1/ingest?pk=${pk}`, { 'x-svc-meta': JSON.stringify(meta({ sk })), ...extra })
  const signals = Buffer.from(JSON.stringify({ sk: 's', vid: 'v' }))
  const ways: (() => Promise<void>)[] = [
    // headers only, then gone
    () => abortAfter(cluster.port, ingestHead('a', { 'content-length': chunk.byteLength }), Buffer.alloc(0), 'destroy'),
    // part of a declared body
    () => abortAfter(cluster.port, ingestHead('b', { 'content-length': chunk.byteLength }), chunk.subarray(0, 1000), 'destroy'),
    // part of a chunked body
    () => abortAfter(cluster.port, ingestHead('c', { 'transfer-encoding': 'chunked' }), Buffer.from(`3e8\r\n${chunk.subarray(0, 1000).toString('latin1')}\r\n`, 'latin1'), 'destroy'),
    // the whole body, gone before the answer (while the write is committed)
    () => abortAfter(cluster.port, ingestHead('d', { 'content-length': chunk.byteLength }), chunk, 'destroy'),
    // a signals body cut short
    () => abortAfter(cluster.port, head('POST', `/api/v1/signals?pk=${pk}`, { 'content-length': signals.byteLength }), signals.subarray(0, 5), 'destroy'),
    // an over-cap declaration, gone before reading the 413
    () => abortAfter(cluster.port, ingestHead('e', { 'content-length': 5_000_000 }), chunk, 'destroy'),
    // half a request head
    () => abortAfter(cluster.port, `POST /api/v1/ingest?pk=${pk} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le`, Buffer.alloc(0), 'destroy'),
    // a route forwarded to the control worker, its body cut short
    () => abortAfter(cluster.port, head('POST', '/api/v1/cli/projects.create', { 'content-length': 1000, 'content-type': 'application/json' }), Buffer.from('{"name":'), 'destroy'),
  ]
  const tasks: Promise<void>[] = []
  for (let i = 0; i < 200; i++) {
    tasks.push(ways[i % ways.length]())
    // Some at once, some spread over time.
    if (i % 25 === 0) await Promise.all(tasks.splice(0))
  }
  await Promise.all(tasks)
  // Every request that reached a route (all but the half heads), answered or aborted, before the front is asked to serve.
  await frontCounted(cluster, { ingestSessionChunk: 5 * 25, ingestSignalsBatch: 25 })
  await stillServes(t, setup)
  noRestart(t, cluster)
})
