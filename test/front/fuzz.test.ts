/**
 * 10,000 fuzzed requests over raw TCP against a running cluster:
 * random methods, paths and query strings up to 8 KB, header names and
 * values of every byte, bodies of random bytes, deep JSON and wrong types.
 * Every request gets an HTTP answer that is not a 5xx, or (for bytes the
 * HTTP parser refuses, README "Requests refused before the application")
 * the connection closed; no process restarts; and afterwards a chunk is
 * still acknowledged and read back byte-identical.
 *
 * FUZZ_SEED=<n> replays a run; FUZZ_COUNT=<n> changes its size.
 */
import t from 'tap'
import { callRaw } from '../helpers/read.js'
import { exchange, type Outcome } from '../helpers/raw-http.js'
import { fieldValueByte, random, randomBytes } from '../helpers/random.js'
import { ingestCluster } from '../helpers/ingest.js'
import { meta, postChunk } from '../helpers/http.js'

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
const COUNT = Number(process.env.FUZZ_COUNT ?? 10_000)
const CONCURRENCY = 24
/** Share of requests with bytes the parser may refuse anywhere in the head (the rest are well-framed HTTP/1.1). */
const HOSTILE_SHARE = 0.1

const ROUTES = [
  '/api/v1/ingest', '/api/ingest', '/api/v1/signals', '/api/signals', '/health', '/tracker.js', '/cli.mjs', '/release', '/install.md', '/skill.md',
  '/openapi.json', '/', '/docs/cli', '/docs/install/', '/app', '/app/', '/app/index.html', '/api/v1/cli/whoami', '/api/v1/cli/projects.list',
  '/api/v1/cli/projects.create', '/api/v1/cli/projects.path-rules', '/api/v1/cli/sessions.count', '/api/v1/cli/sessions.list', '/api/v1/cli/sessions.chunk',
  '/api/v1/cli/sessions.events', '/api/v1/setup/whoami', '/api/v1/setup/path-rules', '/api/v1/auth/login', '/api/v1/nothing',
]
const METHODS = ['GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']
const HEADER_NAMES = ['authorization', 'x-svc-meta', 'content-type', 'accept', 'accept-encoding', 'cookie', 'origin', 'x-csrf-token', 'user-agent', 'referer']
const NAME_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789-'
const URL_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&\'()*+,;=:@/?%[]{}|\\^`"<>'

console.log(`fuzz seed ${SEED} (FUZZ_SEED=${SEED} replays it), ${COUNT} requests`)

const { cluster, pk, seeded } = await ingestCluster(t)
const next = random(SEED)
const int = (n: number) => Math.floor(next() * n)
const pick = <T>(items: readonly T[]): T => items[int(items.length)]
const chars = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[int(alphabet.length)]).join('')

/** Nesting up to 20,000 deep: closed (valid JSON) or cut off. */
function deepJson(): string {
  const depth = 1 + int(5_000)
  const [open, close] = pick([['[', ']'], ['{"a":', '}']])
  const inner = open === '[' ? '' : '1'
  return open.repeat(depth) + inner + (next() < 0.5 ? close.repeat(depth) : '')
}

function wrongTypes(): string {
  const values = [null, true, 0, -1, 1e308, 'x', [], {}, [1, 'a'], { sk: 1 }, 'a'.repeat(3000)]
  const keys = ['sk', 'vid', 'seq', 'encoding', 'views', 'clicks', 'errors', 'name', 'projectId', 'sessionKey', 'rules', 'email', 'password', 'startedAt']
  return JSON.stringify(Object.fromEntries(Array.from({ length: 1 + int(8) }, () => [pick(keys), pick(values)])))
}

function body(): Buffer {
  switch (int(6)) {
    case 0: return Buffer.alloc(0)
    case 1: return randomBytes(next, int(2048))
    case 2: return Buffer.from(deepJson())
    case 3: return Buffer.from(wrongTypes())
    case 4: return Buffer.from(JSON.stringify({ sk: chars(NAME_CHARS, 1 + int(300)), vid: 'v', clicks: [{ url: 'https://x/', ts: 'now', xRatio: {}, yDoc: [] }], views: 'no' }))
    default: return Buffer.concat([Buffer.from([0x1f, 0x8b]), randomBytes(next, int(4096))])
  }
}

function pkValue(): string {
  return pick([pk, pk, `svc_pk_${'a'.repeat(int(7000))}`, `svc_pk_${chars('0123456789abcdef', 1 + int(200))}`, chars(URL_CHARS.replace(/[&#]/g, ''), int(300)), ''])
}

function headerValue(name: string): Buffer {
  if (name === 'authorization') {
    const token = pick([seeded.apiKey, `svc_sk_${chars(NAME_CHARS, int(100))}`, `svc_st_${'0'.repeat(12)}_${'a'.repeat(43)}`, ''])
    return Buffer.concat([Buffer.from(pick(['Bearer ', 'bearer  ', 'Basic ', ''])), Buffer.from(token), randomBytes(next, int(4), (b) => fieldValueByte(b) || b === 0x7f)])
  }
  if (name === 'x-svc-meta') return Buffer.from(pick([JSON.stringify(meta({ sk: `f-${int(50)}`, seq: int(5) })), wrongTypes(), deepJson().slice(0, 4000), '{', '']))
  // Every byte a field value may hold (tab, visible ASCII, obs-text), and now and then a DEL.
  return randomBytes(next, int(300), (b) => fieldValueByte(b) || (b === 0x7f && next() < 0.05))
}

/** A well-framed HTTP/1.1 request: the parser reads it, so the application must answer it. */
function wellFramed(): Buffer {
  const method = pick(METHODS)
  let query = ''
  if (next() < 0.7) query = `pk=${pkValue()}`
  if (next() < 0.5) query += `&q=${chars(URL_CHARS, int(next() < 0.2 ? 8000 : 200))}`
  const path = pick(ROUTES) + (next() < 0.2 ? chars(URL_CHARS.replace('?', ''), int(200)) : '') + (query ? `?${query}` : '')
  const lines: Buffer[] = [Buffer.from(`${method} ${path.slice(0, 8000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n`)]
  for (let i = int(12); i > 0; i--) {
    const name = next() < 0.6 ? pick(HEADER_NAMES) : `x-${chars(NAME_CHARS, 1 + int(30))}`
    lines.push(Buffer.from(`${name}: `), headerValue(name), Buffer.from('\r\n'))
  }
  const payload = method === 'GET' || method === 'HEAD' ? Buffer.alloc(0) : body()
  if (payload.byteLength > 0 || next() < 0.5) lines.push(Buffer.from(`content-length: ${payload.byteLength}\r\n`))
  lines.push(Buffer.from('\r\n'), payload)
  return Buffer.concat(lines)
}

/** Names and values of every byte, CR and LF included, wherever they land. */
function hostile(): Buffer {
  const parts: Buffer[] = [Buffer.from(`${pick(METHODS)} ${pick(ROUTES)}?pk=${pk} HTTP/1.1\r\nHost: x\r\n`)]
  for (let i = 1 + int(6); i > 0; i--) parts.push(randomBytes(next, 1 + int(20)), Buffer.from(': '), randomBytes(next, int(200)), Buffer.from('\r\n'))
  parts.push(Buffer.from('\r\n'), randomBytes(next, int(500)))
  return Buffer.concat(parts)
}

t.test(`10,000 fuzzed requests: an answer below 500 or a documented refusal each, and no restart (seed ${SEED})`, async (t) => {
  const started = Date.now()
  const tally: Record<string, number> = {}
  const failures: string[] = []
  let issued = 0
  async function lane(): Promise<void> {
    while (issued < COUNT) {
      const n = issued++
      const isHostile = next() < HOSTILE_SHARE
      const bytes = isHostile ? hostile() : wellFramed()
      const outcome: Outcome = await exchange(cluster.port, bytes, { headOnly: true, endAfterWrite: isHostile, timeoutMs: 30_000 })
      const key = outcome.kind === 'answer' ? String(outcome.status) : `${isHostile ? 'hostile' : 'framed'} ${outcome.kind}`
      tally[key] = (tally[key] ?? 0) + 1
      const bad = outcome.kind === 'answer' ? outcome.status >= 500 || !(outcome.status >= 100) : !isHostile || outcome.kind === 'timeout'
      if (bad && failures.length < 10) failures.push(`#${n} ${key}: ${JSON.stringify(bytes.subarray(0, 300).toString('latin1'))}`)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, lane))
  t.comment(`outcomes ${JSON.stringify(tally)} in ${Date.now() - started} ms`)
  t.same(failures, [], 'every request answered below 500, or a hostile one closed')
  const exits = cluster.output().split('\n').filter((line) => line.includes('"msg":"child exited')).length
  t.equal(exits, 0, 'no process exited or restarted')
  if (exits > 0) t.comment(cluster.output().split('\n').filter((line) => !line.includes('"level":"info"')).slice(0, 60).join('\n'))
  t.notMatch(cluster.output(), /"msg":"front handler failed"|"msg":"control handler failed"/, 'no handler fault on the way')
})

t.test('after the fuzz a valid chunk is acknowledged and read back byte-identical', async (t) => {
  const bytes = Buffer.from(JSON.stringify([{ type: 3, timestamp: 1_700_000_000_000, data: { after: 'fuzz', seed: SEED } }]))
  const acked = await postChunk(cluster.url, { pk, meta: meta({ sk: 'after-fuzz', seq: 0 }), body: bytes })
  t.same([acked.status, acked.json], [200, { ok: true }])
  const read = await callRaw(cluster.url, '/cli/sessions.chunk', seeded.apiKey, { projectId: seeded.project.id, sessionKey: 'after-fuzz', seq: 0 })
  t.equal(read.status, 200)
  t.ok(read.bytes.equals(bytes), 'byte-identical')
})
