/** The pure checks of a recording chunk: the X-Svc-Meta header, the public key form, and body against encoding. */
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { bodyMatchesEncoding, parseChunkMeta, PUBLIC_KEY_RE } from '../../src/contract/chunk-checks.js'

const minimal = { sk: 'sess-1', vid: 'vis-1', seq: 0, encoding: 'json' }
const full = {
  ...minimal,
  pageIndex: 2,
  url: 'https://shop.test/cart?x=1',
  firstTs: 1_700_000_000_000,
  lastTs: 1_700_000_009_000,
  eventCount: 42,
  startedAt: 1_699_999_990_000,
  viewport: { w: 1280, h: 720 },
  screen: { w: 2560, h: 1440, dpr: 2 },
  identity: { userId: 'u_42', email: 'ada@shop.test', name: 'Ada', accountId: 'acct_7' },
}

t.test('accepts the minimal meta and the full meta, and returns them as sent', async (t) => {
  t.same(parseChunkMeta(JSON.stringify(minimal)), { ok: true, meta: minimal })
  t.same(parseChunkMeta(JSON.stringify(full)), { ok: true, meta: full })
  t.same(parseChunkMeta(JSON.stringify({ ...minimal, encoding: 'gzip' })), { ok: true, meta: { ...minimal, encoding: 'gzip' } })
})

t.test('refuses a missing header', async (t) => {
  t.match(parseChunkMeta(''), { ok: false, error: String })
})

t.test('refuses a header that is not JSON', async (t) => {
  for (const header of ['{', 'sk=1', '{"sk":"a",}', '\u0000\u00ff', 'undefined']) {
    t.match(parseChunkMeta(header), { ok: false, error: String }, header)
  }
})

t.test('refuses JSON that is not an object', async (t) => {
  for (const value of [null, [], [minimal], 1, 'meta', true]) {
    t.match(parseChunkMeta(JSON.stringify(value)), { ok: false }, JSON.stringify(value))
  }
})

t.test('refuses a meta without sk, vid, seq or encoding', async (t) => {
  for (const name of ['sk', 'vid', 'seq', 'encoding'] as const) {
    const { [name]: _, ...rest } = minimal
    t.match(parseChunkMeta(JSON.stringify(rest)), { ok: false }, `without ${name}`)
  }
})

t.test('refuses members of the wrong type or out of bounds', async (t) => {
  const bad: Record<string, unknown>[] = [
    { sk: '' },
    { sk: 's'.repeat(257) },
    { vid: 'v'.repeat(257) },
    { sk: 7 },
    { seq: -1 },
    { seq: 1.5 },
    { seq: '1' },
    { seq: 2 ** 31 },
    { encoding: 'br' },
    { encoding: 'GZIP' },
    { url: 'u'.repeat(2001) },
    { pageIndex: -1 },
    { firstTs: -5 },
    { lastTs: 'yesterday' },
    { eventCount: -1 },
    { viewport: { w: 1, h: 2, depth: 3 } },
    { screen: { dpr: 100 } },
    { identity: { userId: 'u', role: 'admin' } },
    { identity: { email: 'e'.repeat(257) } },
    { identity: 'u_42' },
  ]
  for (const patch of bad) t.match(parseChunkMeta(JSON.stringify({ ...minimal, ...patch })), { ok: false }, JSON.stringify(patch).slice(0, 60))
})

t.test('accepts members at their bounds', async (t) => {
  t.equal(parseChunkMeta(JSON.stringify({ ...minimal, sk: 's'.repeat(256), vid: 'v'.repeat(256), url: 'u'.repeat(2000), seq: 2 ** 31 - 1 })).ok, true)
})

t.test('an identity with a __proto__ key is refused, and nothing is polluted', async (t) => {
  const result = parseChunkMeta('{"sk":"s","vid":"v","seq":0,"encoding":"json","identity":{"__proto__":{"polluted":true}}}')
  t.equal(result.ok, false)
  t.equal(({} as Record<string, unknown>).polluted, undefined)
})

t.test('a public key is svc_pk_ and lowercase hex, nothing else', async (t) => {
  t.ok(PUBLIC_KEY_RE.test('svc_pk_0123456789abcdef'))
  for (const key of ['', 'svc_pk_', 'svc_pk_ABCDEF', 'svc_sk_abcdef', 'svc_pk_abcdefg', 'svc_pk_abc\n', ' svc_pk_abc', 'svc_pk_abc def']) {
    t.notOk(PUBLIC_KEY_RE.test(key), JSON.stringify(key))
  }
})

t.test('a gzip body must start with the gzip magic bytes and be long enough to hold a gzip header', async (t) => {
  const gz = gzipSync(Buffer.from('[{"type":4}]'))
  t.ok(bodyMatchesEncoding(gz, 'gzip'))
  t.notOk(bodyMatchesEncoding(gz.subarray(0, 17), 'gzip'))
  t.notOk(bodyMatchesEncoding(Buffer.from('[{"type":4}]'), 'gzip'))
  t.notOk(bodyMatchesEncoding(gz, 'json'))
})

t.test('a raw JSON body must start with [ or { after optional white space', async (t) => {
  t.ok(bodyMatchesEncoding(Buffer.from('[]'), 'json'))
  t.ok(bodyMatchesEncoding(Buffer.from('{"events":[]}'), 'json'))
  t.ok(bodyMatchesEncoding(Buffer.from(' \r\n\t[1]'), 'json'))
  t.notOk(bodyMatchesEncoding(Buffer.from('"events"'), 'json'))
  t.notOk(bodyMatchesEncoding(Buffer.from('   '), 'json'))
  t.notOk(bodyMatchesEncoding(Buffer.from('\ufeff[]'), 'json'))
})

t.test('an empty body matches no encoding', async (t) => {
  t.notOk(bodyMatchesEncoding(new Uint8Array(0), 'json'))
  t.notOk(bodyMatchesEncoding(new Uint8Array(0), 'gzip'))
})
