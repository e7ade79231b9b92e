/**
 * Bounded work per request: the slowest inputs found for each route, in an
 * 8 KB head (and a capped body), are answered about as fast as a small
 * request to the same route. Each is timed as the best of three round trips
 * on loopback against the best of three of its small neighbour, so a loaded
 * machine moves both; 50 ms apart fails the old quadratic trailing-slash trim
 * (8,000 slashes cost it over 100 ms).
 */
import t from 'tap'
import { ingestCluster } from '../helpers/ingest.js'
import { exchange, rawHead } from '../helpers/raw-http.js'

const { cluster, pk } = await ingestCluster(t)
const KB8 = 8 * 1024
const H = 'Host: x'
const MARGIN_MS = 50

/** `prefix` then `fill` repeated until the request line is `KB8` bytes of head in all, then `suffix`. */
const padded = (prefix: string, fill: string, suffix = '') => prefix + fill.repeat(Math.floor((KB8 - 200 - prefix.length - suffix.length) / fill.length)) + suffix

interface Case {
  what: string
  slow: string | Buffer
  small: string | Buffer
}

const post = (path: string, lines: string[], body = '') => rawHead(`POST ${path} HTTP/1.1`, [H, `Content-Length: ${Buffer.byteLength(body)}`, ...lines]) + body

const CASES: Case[] = [
  { what: 'a path of slashes to the website', slow: rawHead(`GET ${padded('/a', '/', 'x')} HTTP/1.1`, [H]), small: rawHead('GET /a/x HTTP/1.1', [H]) },
  { what: 'a page with trailing slashes', slow: rawHead(`GET ${padded('/docs/cli', '/')} HTTP/1.1`, [H]), small: rawHead('GET /docs/cli/ HTTP/1.1', [H]) },
  { what: 'slashes under the API prefix', slow: rawHead(`GET ${padded('/api/v1/', '/')} HTTP/1.1`, [H]), small: rawHead('GET /api/v1/x HTTP/1.1', [H]) },
  { what: 'a long public key on /ingest', slow: post(`/api/v1/ingest?pk=${padded('svc_pk_', 'a')}`, []), small: post('/api/v1/ingest?pk=svc_pk_a', []) },
  { what: 'a long query of near-secrets on an API route', slow: post(`/api/v1/cli/whoami?${padded('q=', 'svc_s')}`, []), small: post('/api/v1/cli/whoami?q=svc_s', []) },
  { what: 'a bearer of spaces', slow: post('/api/v1/cli/whoami', [`Authorization: ${padded('Bearer', ' ', 'x !')}`]), small: post('/api/v1/cli/whoami', ['Authorization: Bearer x !']) },
  { what: 'an Accept of empty ranges', slow: rawHead('GET /docs/api HTTP/1.1', [H, `Accept: ${padded('', ',;q=0;')}`]), small: rawHead('GET /docs/api HTTP/1.1', [H, 'Accept: text/html']) },
  { what: 'an Accept-Encoding of empty codings', slow: rawHead('GET / HTTP/1.1', [H, `Accept-Encoding: ${padded('', ',;q=')}`]), small: rawHead('GET / HTTP/1.1', [H, 'Accept-Encoding: gzip']) },
  { what: 'a cookie of separators on the dashboard API', slow: post('/api/v1/cli/projects.list', [`Cookie: ${padded('', '; =')}`]), small: post('/api/v1/cli/projects.list', ['Cookie: a=b']) },
  { what: 'an X-Svc-Meta of nesting', slow: post(`/api/v1/ingest?pk=${pk}`, [`X-Svc-Meta: ${padded('', '[')}`], '[]'), small: post(`/api/v1/ingest?pk=${pk}`, ['X-Svc-Meta: ['], '[]') },
  { what: 'a login body nested to the control cap', slow: post('/api/v1/auth/login', ['Content-Type: application/json'], '['.repeat(60_000)), small: post('/api/v1/auth/login', ['Content-Type: application/json'], '[') },
]

async function best(bytes: string | Buffer): Promise<{ ms: number; status?: number }> {
  let fastest = { ms: Number.POSITIVE_INFINITY, status: undefined as number | undefined }
  for (let i = 0; i < 3; i++) {
    const outcome = await exchange(cluster.port, bytes, { timeoutMs: 10_000 })
    const status = outcome.kind === 'answer' ? outcome.status : undefined
    if (outcome.ms < fastest.ms) fastest = { ms: outcome.ms, status }
  }
  return fastest
}

for (const { what, slow, small } of CASES) {
  t.test(`${what}: answered within ${MARGIN_MS} ms of a small request to the same route`, async (t) => {
    t.ok(Buffer.byteLength(slow) <= KB8 || what.includes('body'), 'at most 8 KB of head')
    const baseline = await best(small)
    const measured = await best(slow)
    t.ok(measured.status !== undefined && measured.status < 500, `answered below 500 (${measured.status})`)
    t.ok(measured.ms < baseline.ms + MARGIN_MS, `${measured.ms.toFixed(1)} ms against ${baseline.ms.toFixed(1)} ms`)
  })
}
