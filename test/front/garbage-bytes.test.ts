/** Random bytes as the body, as X-Svc-Meta and as the public key: answered with JSON (a code, or {ok:true}), never a 5xx. */
import t from 'tap'
import { get, meta, postChunk, postSignals, rawExchange } from '../helpers/http.js'
import { answeredWithJson, ingestCluster } from '../helpers/ingest.js'
import { fieldValueByte, random, randomBytes } from '../helpers/random.js'

const SEED = 20261121

t.test(`random bytes as the body are answered with JSON (seed ${SEED})`, async (t) => {
  const { cluster, pk } = await ingestCluster(t)
  const next = random(SEED)
  for (let i = 0; i < 40; i++) {
    const body = randomBytes(next, 1 + Math.floor(next() * 20_000))
    answeredWithJson(t, await postChunk(cluster.url, { pk, body, meta: meta({ seq: i, encoding: i % 2 ? 'gzip' : 'json' }) }), `ingest #${i}`)
    answeredWithJson(t, await postSignals(cluster.url, pk, body, { 'content-type': 'text/plain' }), `signals #${i}`)
  }
  t.equal((await get(cluster.url, '/health')).status, 200)
})

t.test(`random bytes as X-Svc-Meta are answered with 400 invalid_request (seed ${SEED})`, async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const next = random(SEED + 1)
  const body = Buffer.from('[{"type":4}]')
  for (let i = 0; i < 40; i++) {
    // No leading or trailing white space: a parser trims it, and an all-space value is an empty one.
    const value = Buffer.concat([Buffer.from('x'), randomBytes(next, 1 + Math.floor(next() * 2000), fieldValueByte), Buffer.from('x')])
    const request = Buffer.concat([Buffer.from(`POST /api/v1/ingest?pk=${pk} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${body.byteLength}\r\nX-Svc-Meta: `, 'latin1'), value, Buffer.from('\r\n\r\n'), body])
    const answer = await rawExchange(cluster.port, request)
    answeredWithJson(t, answer, `meta #${i}`)
    t.equal(answer.status, 400, `meta #${i}: 400`)
    t.equal(answer.json?.code, 'invalid_request', `meta #${i}: invalid_request`)
  }
  t.same(Array.from(store.listSessions(projectId)), [])
})

t.test('random bytes as the public key are answered with 400 invalid_request', async (t) => {
  const { cluster } = await ingestCluster(t)
  const next = random(SEED + 2)
  for (let i = 0; i < 10; i++) {
    const pk = encodeURIComponent(randomBytes(next, 40).toString('latin1'))
    const res = await fetch(`${cluster.url}/api/v1/ingest?pk=${pk}`, { method: 'POST', headers: { 'x-svc-meta': JSON.stringify(meta()) }, body: '[]' })
    t.equal(res.status, 400)
    t.match(await res.json(), { ok: false, code: 'invalid_request' })
  }
})
