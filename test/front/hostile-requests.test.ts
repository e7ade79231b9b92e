/**
 * The requests that took a process down or answered 500: each is
 * now a 4xx JSON error with its code, and no process of the cluster exits
 * (the primary logs every restart, so the output would show one).
 */
import t from 'tap'
import { exchange, rawHead } from '../helpers/raw-http.js'
import { httpEngine } from '../helpers/cluster.js'
import { ingestCluster } from '../helpers/ingest.js'
import { get, jsonChunk, meta, postChunk, postSignals } from '../helpers/http.js'

// One cluster for every case: each must leave it serving, which the last case checks.
const { cluster, pk } = await ingestCluster(t)
const fallback = (await httpEngine(cluster)) === 'fallback'
const restarts = (output: string) => output.split('\n').filter((line) => line.includes('"msg":"child exited')).length

t.test('a public key of 5,000 characters is refused as invalid_request on /ingest and /signals, repeatedly, and the front lives', async (t) => {
  const long = `svc_pk_${'a'.repeat(5000)}`
  for (let i = 0; i < 10; i++) {
    const chunk = await postChunk(cluster.url, { pk: long })
    t.same([chunk.status, chunk.json?.code, chunk.json?.ok], [400, 'invalid_request', false], `ingest ${i}`)
    const signals = await postSignals(cluster.url, long, { sk: 's', vid: 'v' })
    t.same([signals.status, signals.json?.code, signals.json?.ok], [400, 'invalid_request', false], `signals ${i}`)
  }
  const health = await get(cluster.url, '/health')
  t.equal(health.status, 200)
  t.same((await postChunk(cluster.url, { pk })).json, { ok: true }, 'the same front still stores chunks')
  t.equal(restarts(cluster.output()), 0, 'no process restarted')
})

t.test('public keys at and past the length bound: 128 characters is looked up (not_found), 129 is invalid_request', async (t) => {
  const at = `svc_pk_${'b'.repeat(128 - 7)}`
  const past = `${at}b`
  const known = await postChunk(cluster.url, { pk: at })
  t.same([known.status, known.json?.code], [404, 'not_found'])
  const refused = await postChunk(cluster.url, { pk: past })
  t.same([refused.status, refused.json?.code], [400, 'invalid_request'])
})

t.test('header values undici cannot forward are answered 401 or 400, never 500; obs-text is forwarded as bytes', async (t) => {
  // node:http, under the fallback, refuses a DEL in a header value itself: 400 invalid_request before any route (src/front/fallback.ts).
  const delInAuth: [number, string] = fallback ? [400, 'invalid_request'] : [401, 'unauthorized']
  const cases: [string, Buffer | string, number, string][] = [
    ['UTF-8 é in a bearer token', Buffer.from('Authorization: Bearer café'), 401, 'unauthorized'],
    ['invalid UTF-8 in a bearer token', Buffer.from([...Buffer.from('Authorization: Bearer caf'), 0xe9, 0xff]), 401, 'unauthorized'],
    ['DEL in a bearer token', 'Authorization: Bearer \x7f', ...delInAuth],
    ['DEL in another header', 'X-Note: a\x7fb', 400, 'invalid_request'],
  ]
  for (const [what, line, status, code] of cases) {
    const answer = await exchange(cluster.port, Buffer.concat([Buffer.from('POST /api/v1/cli/whoami HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n'), Buffer.isBuffer(line) ? line : Buffer.from(line, 'latin1'), Buffer.from('\r\n\r\n')]))
    t.equal(answer.kind, 'answer', what)
    if (answer.kind === 'answer') t.same([answer.status, answer.json?.code], [status, code], what)
  }
  const expect = await exchange(cluster.port, rawHead('GET /openapi.json HTTP/1.1', ['Host: x', 'Expect: something']))
  t.same(expect.kind === 'answer' && expect.status, 200, 'an Expect header is not forwarded, and does not stop the request')
  t.equal(restarts(cluster.output()), 0)
})

t.test('bytes undici refuses in a forwarded path are percent-encoded: 404 not_found, not 500', async (t) => {
  const target = Buffer.concat([Buffer.from('GET /api/v1/caf'), Buffer.from([0xc3, 0xa9, 0xff]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')])
  const answer = await exchange(cluster.port, target)
  // node:http, under the fallback, refuses such a target itself (400 invalid_request); uWS hands it to the proxy.
  t.same(answer.kind === 'answer' && [answer.status, answer.json?.code], fallback ? [400, 'invalid_request'] : [404, 'not_found'])
})

t.test('an X-Svc-Meta with session and visitor keys past 256 characters is invalid_request before the store', async (t) => {
  for (const overrides of [{ sk: 's'.repeat(257) }, { vid: 'v'.repeat(257) }, { sk: 's'.repeat(4000) }]) {
    const answer = await postChunk(cluster.url, { pk, meta: meta(overrides), body: jsonChunk() })
    t.same([answer.status, answer.json?.code], [400, 'invalid_request'])
  }
  t.equal(restarts(cluster.output()), 0)
})

t.test('after every case above, the cluster still serves and no process restarted', async (t) => {
  t.same((await postChunk(cluster.url, { pk, meta: meta({ sk: 'after-all' }) })).json, { ok: true })
  t.equal(restarts(cluster.output()), 0)
})
