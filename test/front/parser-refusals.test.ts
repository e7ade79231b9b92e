/**
 * What the fronts' HTTP parser (uWebSockets.js 20.30) refuses before the
 * application sees a request, exactly as README "Requests refused before the
 * application" lists it: the connection closes without an answer, and the
 * front goes on serving. Each case has a control beside it, the same request
 * made legal, which is answered: the refusal is the parser's, not the harness's.
 * Where the fronts serve on the node:http fallback (no native build loads),
 * its own parser decides instead: each request is then answered below 500 (a
 * malformed one 400 invalid_request, src/front/fallback.ts) or closed.
 */
import t from 'tap'
import { httpEngine } from '../helpers/cluster.js'
import { ingestCluster } from '../helpers/ingest.js'
import { exchange, rawHead } from '../helpers/raw-http.js'

const { cluster } = await ingestCluster(t)
const fallback = (await httpEngine(cluster)) === 'fallback'
const H = 'Host: x'
const health = (lines: string[], version = 'HTTP/1.1') => rawHead(`GET /health ${version}`, lines)

const REFUSED: [string, string | Buffer][] = [
  ['an underscore in a header name', health([H, 'x-a_b: 1'])],
  ['a dot in a header name', health([H, 'x.a: 1'])],
  ['a space before the colon', health([H, 'x-a : 1'])],
  ['a header line without a colon', health([H, 'x-a'])],
  ['a NUL in a header value', health([H, 'x-a: a\0b'])],
  ['a control byte in a header value', health([H, 'x-a: a\x01b'])],
  ['obs-fold', health([H, 'x-a: 1', '  2'])],
  ['bare LF line endings', 'GET /health HTTP/1.1\nHost: x\n\n'],
  ['HTTP/1.0', health([H], 'HTTP/1.0')],
  ['HTTP/2.0 on a text connection', health([H], 'HTTP/2.0')],
  ['HTTP/1.1 without Host', health([])],
  ['an absolute-form target', rawHead('GET http://x/health HTTP/1.1', [H])],
  ['an asterisk-form target', rawHead('OPTIONS * HTTP/1.1', [H])],
  ['a space in the target', rawHead('GET /he alth HTTP/1.1', [H])],
  ['49 header fields', health([H, ...Array.from({ length: 48 }, (_, i) => `x-h${i}: 1`)])],
  ['Transfer-Encoding gzip', rawHead('POST /api/v1/cli/whoami HTTP/1.1', [H, 'Transfer-Encoding: gzip'])],
  ['an unknown method', rawHead('FOO /health HTTP/1.1', [H])],
  ['a lower-case method', rawHead('get /health HTTP/1.1', [H])],
  ['a Content-Length that is no number', rawHead('POST /api/v1/cli/whoami HTTP/1.1', [H, 'Content-Length: abc'])],
  ['chunked with a Content-Length', rawHead('POST /api/v1/cli/whoami HTTP/1.1', [H, 'Transfer-Encoding: chunked', 'Content-Length: 5']) + '0\r\n\r\n'],
  ['a malformed chunk size', rawHead('POST /api/v1/cli/whoami HTTP/1.1', [H, 'Transfer-Encoding: chunked']) + 'zz\r\n\r\n'],
  ['a head of 256 KB', health([H, `x-a: ${'a'.repeat(256 * 1024)}`])],
]

const ANSWERED: [string, string][] = [
  ['a hyphenated header name', health([H, 'x-a-b: 1'])],
  ['48 header fields', health([H, ...Array.from({ length: 47 }, (_, i) => `x-h${i}: 1`)])],
  ['an origin-form target', health([H])],
  ['obs-text and DEL in a value', health([H, 'x-a: caf\xe9\x7f'])],
]

t.test('each refused request: the connection closes with no answer once the client half-closes', { skip: fallback && 'node:http parses these (fallback front)' }, async (t) => {
  const outcomes = await Promise.all(REFUSED.map(([, bytes]) => exchange(cluster.port, bytes, { endAfterWrite: true, timeoutMs: 15_000 })))
  REFUSED.forEach(([what], i) => t.equal(outcomes[i].kind, 'closed', what))
})

t.test('on the node:http fallback, each of them is answered below 500 or closed, a 4xx with a JSON code', { skip: !fallback && 'native front' }, async (t) => {
  const outcomes = await Promise.all(REFUSED.map(([, bytes]) => exchange(cluster.port, bytes, { endAfterWrite: true, timeoutMs: 15_000 })))
  REFUSED.forEach(([what], i) => {
    const outcome = outcomes[i]
    if (outcome.kind !== 'answer') return t.equal(outcome.kind, 'closed', what)
    t.ok(outcome.status < 500, `${what}: ${outcome.status}`)
    if (outcome.status >= 400 && outcome.status !== 404) t.equal(outcome.json?.code, 'invalid_request', what)
  })
})

t.test('each legal neighbour of a refused request is answered 200', async (t) => {
  // node:http refuses a DEL in a value (400 invalid_request, checked in hostile-requests.test.ts).
  const cases = fallback ? ANSWERED.filter(([what]) => !what.includes('DEL')) : ANSWERED
  const outcomes = await Promise.all(cases.map(([, bytes]) => exchange(cluster.port, bytes, { endAfterWrite: true })))
  cases.forEach(([what], i) => t.same(outcomes[i].kind === 'answer' && outcomes[i].status, 200, what))
})

t.test('a refused request held open is closed by the idle timeout, still without an answer', { skip: fallback && 'node:http answers it (fallback front)' }, async (t) => {
  const outcome = await exchange(cluster.port, health([H, 'x-a_b: 1']), { timeoutMs: 20_000 })
  t.equal(outcome.kind, 'closed')
  t.ok(outcome.ms > 5_000, `held ${Math.round(outcome.ms)} ms before the close (uWS's 10 s idle timeout)`)
})

t.test('the front still serves and nothing restarted', async (t) => {
  const outcome = await exchange(cluster.port, health([H]))
  t.same(outcome.kind === 'answer' && outcome.status, 200)
  t.notMatch(cluster.output(), /"msg":"child exited/)
})

t.test('HTTP/1.0 is refused loudly: the start-up log says so and names the nginx setting', { skip: fallback && 'node:http answers HTTP/1.0 (fallback front)' }, async (t) => {
  t.match(cluster.output(), /"level":"warn"[^\n]*closes HTTP\/1\.0 requests without an answer: behind nginx set proxy_http_version 1\.1/)
})

t.test('UWS_USE_FALLBACK=1 answers HTTP/1.0, as curl -0 and nginx\'s default upstream protocol send it', async (t) => {
  const { cluster: onNode } = await ingestCluster(t, { workers: 1, env: { UWS_USE_FALLBACK: '1' } })
  t.equal(await httpEngine(onNode), 'fallback')
  for (const lines of [[H], []]) {
    const outcome = await exchange(onNode.port, health(lines, 'HTTP/1.0'), { endAfterWrite: true, timeoutMs: 15_000 })
    t.same(outcome.kind === 'answer' && [outcome.status, outcome.json?.ok], [200, true], `HTTP/1.0 ${lines.length ? 'with' : 'without'} Host`)
  }
})
