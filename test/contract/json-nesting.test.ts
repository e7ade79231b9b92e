/**
 * Flattening JSON nested past what a schema allows (src/contract/json-nesting.ts):
 * a validator judges the flattened text as it would the original, the rest is
 * kept, and nothing deeper than the schema reaches JSON.parse (bench/micro.ts
 * measures the cost against a flat batch and a valid header).
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

// What these cost against a flat batch or a valid header is measured in bench/micro.ts, not here: a timed test fails
// on a loaded or instrumented run (it did under `npm run coverage`). Here, what makes the cost bounded: nothing
// deeper than the schema reaches JSON.parse and the validator, and the answer is the one a flat body gets.
t.test('a body of nested arrays at the signals cap is judged on its flattened text: refused as a flat array would be, or taken without what nests past the schema', async (t) => {
  const nested = Buffer.from(deep(Math.floor(LIMITS.signalsBytes / 2) - 10))
  t.equal(flattenDeeperThan(nested.toString(), schemaDepth(signalsBatchSchema), 0), deep(4), 'what JSON.parse sees: four levels')
  t.same(parseSignals(nested, NOW), { ok: false, error: 'The body is not a signals batch: body: must be object.' })
  const nestedInBatch = Buffer.from(`{"sk":"s","vid":"v","x":[${Array(Math.floor(LIMITS.signalsBytes / 70)).fill(deep(32)).join(',')}]}`)
  t.same(parseSignals(nestedInBatch, NOW), { ok: true, batch: { sk: 's', vid: 'v', dropped: 0, views: [], clicks: [], errors: [] } }, 'arrays 32 deep side by side: the batch is kept, the unknown member dropped')
})

t.test('an X-Svc-Meta of 16 KB of nested arrays (the default head limit) is judged on its flattened text', async (t) => {
  t.equal(flattenDeeperThan(deep(8_000), schemaDepth(chunkMetaSchema), 0), deep(3), 'what JSON.parse sees: three levels')
  t.same(parseChunkMeta(deep(8_000)), { ok: false, error: 'The X-Svc-Meta header is malformed: body: must be object.' })
})
