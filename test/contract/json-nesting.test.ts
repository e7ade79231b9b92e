/**
 * Flattening JSON nested past what a schema allows (src/contract/json-nesting.ts):
 * a validator judges the flattened text as it would the original, the rest is
 * kept, and a body of nested arrays costs about what a flat batch of the same
 * size does to parse; an X-Svc-Meta likewise.
 */
import t from 'tap'
import { LIMITS } from '../../src/config.js'
import { parseChunkMeta } from '../../src/contract/chunk-checks.js'
import { flattenDeeperThan, schemaDepth } from '../../src/contract/json-nesting.js'
import { parseSignals } from '../../src/contract/signals-checks.js'
import { chunkMetaSchema, signalsBatchSchema } from '../../src/schemas/tracker-payloads.js'

const NOW = 1_800_000_000_000
const deep = (n: number) => '['.repeat(n) + ']'.repeat(n)

t.test('a signals batch nests 3 deep by its schema (batch, list, entry), a chunk meta 2 (meta, viewport)', async (t) => {
  t.equal(schemaDepth(signalsBatchSchema), 3)
  t.equal(schemaDepth(chunkMetaSchema), 2)
  t.equal(schemaDepth({ type: 'string' }), 0)
  t.equal(schemaDepth({ type: 'array', items: { type: 'object', properties: { a: { type: 'array' } } } }), 3)
})

t.test('containers past the limit become empty ones of the same kind; strings and what is not past it are left alone', async (t) => {
  t.equal(flattenDeeperThan('[[[1]],{"a":{"b":[2]}}]', 2, 0), '[[[]],{"a":{}}]')
  t.equal(flattenDeeperThan('{"s":"[[[\\"{{","x":[[["]]]\\\\"]]]}', 1, 0), '{"s":"[[[\\"{{","x":[]}', 'brackets and escaped quotes inside strings do not count')
  t.equal(flattenDeeperThan(deep(100_000), 3, 0), deep(4))
  t.equal(flattenDeeperThan('{"a":1,"b":[true]}', 2, 0), '{"a":1,"b":[true]}', 'nothing past the limit: the text itself')
})

t.test('a container past the limit that never closes, or closes with the other bracket, is not JSON', async (t) => {
  t.equal(flattenDeeperThan('[[[[1]', 2, 0), undefined)
  t.equal(flattenDeeperThan('[[[{]]]', 2, 0), undefined)
  t.equal(flattenDeeperThan('[[["]]]', 2, 0), undefined, 'an unclosed string inside')
})

t.test('a text of at most `budget` containers is returned untouched, however deep', async (t) => {
  const text = deep(50)
  t.equal(flattenDeeperThan(text, 3, 100), text)
  t.equal(flattenDeeperThan(text, 3, 49), deep(4))
})

t.test('a batch with one deeply nested entry keeps its good entries and counts the deep one dropped', async (t) => {
  const good = { url: 'https://shop.test/', ts: NOW, xRatio: 0.5, yDoc: 10 }
  const body = `{"sk":"s","vid":"v","extra":${deep(60_000)},"clicks":[${JSON.stringify(good)},${deep(60_000)},{"url":"u","ts":1,"xRatio":0,"yDoc":0,"label":{"a":${deep(5_000)}}},${JSON.stringify(good)}]}`
  const result = parseSignals(Buffer.from(body), NOW)
  t.match(result, { ok: true, batch: { sk: 's', vid: 'v', clicks: [good, good], dropped: 2 } })
})

t.test('an X-Svc-Meta nested past its schema is judged as before: a deep unknown member is let be, a deep known one refused', async (t) => {
  const meta = { sk: 's', vid: 'v', seq: 0, encoding: 'json' }
  t.match(parseChunkMeta(JSON.stringify({ ...meta, extra: 0 }).replace('0}', `${deep(8_000)}}`)), { ok: true, meta: { sk: 's', seq: 0 } })
  t.match(parseChunkMeta(JSON.stringify({ ...meta, viewport: 0 }).replace('0}', `{"w":${deep(8_000)}}}`)), { ok: false, error: /malformed/ })
  t.match(parseChunkMeta(deep(8_000)), { ok: false, error: /malformed/ })
  t.match(parseChunkMeta(`${deep(8_000)}]`), { ok: false, error: /not JSON/ })
})

/** Best of `runs` timings of `fn`, ms: a loaded machine slows both sides of a comparison alike. */
function best(fn: () => unknown, runs = 7): number {
  let fastest = Number.POSITIVE_INFINITY
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    fn()
    fastest = Math.min(fastest, performance.now() - started)
  }
  return fastest
}

t.test('a body of nested arrays at the signals cap costs under 3 times a flat batch of the same size to parse', async (t) => {
  const clicks: unknown[] = []
  const batch = { sk: 's', vid: 'v', clicks }
  while (JSON.stringify(batch).length < LIMITS.signalsBytes - 200) clicks.push({ url: 'https://shop.test/p?x=1', ts: NOW - clicks.length, xRatio: 0.5, yDoc: 100, kind: 'click' })
  const flat = Buffer.from(JSON.stringify(batch))
  const nested = Buffer.from(deep(Math.floor(LIMITS.signalsBytes / 2) - 10))
  const nestedInBatch = Buffer.from(`{"sk":"s","vid":"v","x":[${Array(Math.floor(LIMITS.signalsBytes / 70)).fill(deep(32)).join(',')}]}`)
  const flatMs = best(() => parseSignals(flat, NOW))
  for (const [what, body] of [['nested arrays', nested], ['arrays 32 deep, side by side', nestedInBatch]] as const) {
    const ms = best(() => parseSignals(body, NOW))
    t.ok(ms < 3 * flatMs, `${what}: ${ms.toFixed(2)} ms against ${flatMs.toFixed(2)} ms for a flat batch`)
  }
})

t.test('an X-Svc-Meta of 16 KB of nested arrays (the default head limit) costs under 60 times a valid one to judge', async (t) => {
  const valid = JSON.stringify({ sk: 's', vid: 'v', seq: 0, pageIndex: 0, url: 'https://shop.test/', firstTs: NOW, lastTs: NOW, eventCount: 3, encoding: 'json', startedAt: NOW })
  const nested = deep(8_000)
  const perCall = (header: string) => best(() => { for (let i = 0; i < 50; i++) parseChunkMeta(header) }) / 50
  const validMs = perCall(valid)
  const nestedMs = perCall(nested)
  t.ok(nestedMs < 60 * validMs, `${(nestedMs * 1000).toFixed(1)} µs against ${(validMs * 1000).toFixed(1)} µs`)
})
