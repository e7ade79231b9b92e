/**
 * Requests with long URLs and headers, up to 8 KB in all (long query strings,
 * long bearer tokens), are read and answered normally, with JSON: the header
 * limit of uWebSockets.js is raised above its default for this.
 */
import t from 'tap'
import { head, jsonChunk, meta, rawExchange } from '../helpers/http.js'
import { ingestCluster } from '../helpers/ingest.js'

const KB8 = 8 * 1024

/** Pads a request head with one `X-Padding` header to exactly `total` bytes. */
function headOfSize(method: string, path: string, headers: Record<string, string | number>, total: number): string {
  const base = head(method, path, { ...headers, 'X-Padding': '' })
  return head(method, path, { ...headers, 'X-Padding': 'p'.repeat(total - base.length) })
}

t.test('a request of 8 KB of head with a long query string is answered normally', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const body = jsonChunk()
  const prefix = `/api/v1/ingest?pk=${pk}&utm=`
  const metaHeader = JSON.stringify(meta({ sk: 'long-query' }))
  const probe = head('POST', prefix, { 'content-length': body.byteLength, 'x-svc-meta': metaHeader })
  const path = prefix + 'q'.repeat(KB8 - probe.length)
  const request = head('POST', path, { 'content-length': body.byteLength, 'x-svc-meta': metaHeader })
  t.equal(request.length, KB8)
  const answer = await rawExchange(cluster.port, Buffer.concat([Buffer.from(request), body]))
  t.equal(answer.status, 200)
  t.same(answer.json, { ok: true })
  t.equal(store.getSession(projectId, 'long-query')?.chunkCount, 1)
})

t.test('a long bearer token in 8 KB of head is answered normally, with JSON', async (t) => {
  const { cluster } = await ingestCluster(t)
  const token = 'svc_sk_' + 'a'.repeat(7000)
  const request = headOfSize('POST', '/api/v1/cli/whoami', { authorization: `Bearer ${token}`, 'content-length': 0 }, KB8)
  t.equal(request.length, KB8)
  const answer = await rawExchange(cluster.port, request)
  t.equal(answer.status, 401, 'an unknown key is refused as such, not as a too-large request')
  t.equal(answer.json?.code, 'unauthorized')
})

t.test('8 KB of head on a public artifact and on an unknown path are answered normally, with JSON', async (t) => {
  const { cluster } = await ingestCluster(t)
  const health = await rawExchange(cluster.port, headOfSize('GET', `/health?${'x'.repeat(4000)}`, { cookie: 'c'.repeat(2000) }, KB8))
  t.equal(health.status, 200)
  t.match(health.json, { ok: true })
  const unknown = await rawExchange(cluster.port, headOfSize('GET', `/api/v1/nothing-here?${'x'.repeat(6000)}`, {}, KB8))
  t.equal(unknown.status, 404)
  t.equal(unknown.json?.code, 'not_found')
})

t.test('a long X-Svc-Meta at the bounds of its members is accepted', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const big = meta({ sk: 's'.repeat(256), vid: 'v'.repeat(256), url: `https://shop.test/${'u'.repeat(1980)}`, identity: { userId: 'i'.repeat(256), email: `${'e'.repeat(240)}@shop.test`, name: 'n'.repeat(256), accountId: 'a'.repeat(256) } })
  const body = jsonChunk()
  const request = head('POST', `/api/v1/ingest?pk=${pk}`, { 'content-length': body.byteLength, 'x-svc-meta': JSON.stringify(big) })
  t.ok(request.length > 3000 && request.length <= KB8)
  const answer = await rawExchange(cluster.port, Buffer.concat([Buffer.from(request), body]))
  t.equal(answer.status, 200)
  t.same(answer.json, { ok: true })
  t.equal(store.getSession(projectId, 's'.repeat(256))?.identity?.name, 'n'.repeat(256))
})
