/** Every answer carries CORS headers, errors included, and every path answers a preflight. */
import t, { type Test } from 'tap'
import { chunkedPost, get, meta, postChunk, postSignals, split } from '../helpers/http.js'
import { ingestCluster } from '../helpers/ingest.js'

function hasCors(t: Test, headers: Record<string, string>, what: string): void {
  t.equal(headers['access-control-allow-origin'], '*', `${what}: Access-Control-Allow-Origin`)
}

const list = (value: string | null | undefined) => (value ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)

t.test('successful answers carry CORS headers', async (t) => {
  const { cluster, pk } = await ingestCluster(t)
  hasCors(t, (await postChunk(cluster.url, { pk })).headers, 'ingest 200')
  hasCors(t, (await postSignals(cluster.url, pk, { sk: 's', vid: 'v' })).headers, 'signals 200')
  for (const path of ['/health', '/release', '/tracker.js', '/cli.mjs', '/install.md', '/skill.md']) hasCors(t, (await get(cluster.url, path)).headers, path)
})

t.test('error answers carry CORS headers: 400, 404, 413, and errors of forwarded routes', async (t) => {
  const { cluster, pk } = await ingestCluster(t)
  const cases = [
    ['400 missing meta', await postChunk(cluster.url, { pk, meta: null }), 400],
    ['400 signals not JSON', await postSignals(cluster.url, pk, '{'), 400],
    ['404 unknown key', await postChunk(cluster.url, { pk: 'svc_pk_ffff' }), 404],
    ['413 declared', await postSignals(cluster.url, pk, Buffer.alloc(256_001, 0x20)), 413],
    ['413 chunked', await chunkedPost(cluster.port, `/api/v1/ingest?pk=${pk}`, { 'x-svc-meta': JSON.stringify(meta()) }, split(Buffer.alloc(1_000_001, 0x5b), 65_536)), 413],
    ['404 unknown path', await get(cluster.url, '/no/such/path'), 404],
    ['404 unknown API path', await get(cluster.url, '/api/v1/no-such-route', { method: 'POST' }), 404],
    ['401 without a credential', await get(cluster.url, '/api/v1/cli/whoami', { method: 'POST' }), 401],
  ] as const
  for (const [what, answer, status] of cases) {
    t.equal(answer.status, status, `${what}: status`)
    hasCors(t, answer.headers, what)
    t.type(answer.json?.code, 'string', `${what}: a JSON error with a code`)
  }
})

t.test('every path answers a preflight with the methods, the headers a client sends, and a max-age', async (t) => {
  const { cluster, pk } = await ingestCluster(t)
  for (const path of [`/api/v1/ingest?pk=${pk}`, '/api/v1/signals', '/api/ingest', '/api/v1/cli/projects.list', '/api/setup/path-rules', '/health', '/', '/no/such/path']) {
    const res = await fetch(`${cluster.url}${path}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-svc-meta, content-type, authorization' },
    })
    await res.arrayBuffer()
    t.ok(res.status === 204 || res.status === 200, `${path}: ${res.status}`)
    t.equal(res.headers.get('access-control-allow-origin'), '*', `${path}: origin`)
    const methods = list(res.headers.get('access-control-allow-methods'))
    for (const method of ['get', 'post', 'options']) t.ok(methods.includes(method), `${path}: allows ${method}`)
    const allowed = list(res.headers.get('access-control-allow-headers'))
    for (const header of ['x-svc-meta', 'authorization', 'content-type']) t.ok(allowed.includes(header), `${path}: allows ${header}`)
    const maxAge = Number(res.headers.get('access-control-max-age'))
    t.ok(Number.isInteger(maxAge) && maxAge > 0, `${path}: max-age ${maxAge}`)
  }
})
