/** Deep nesting, __proto__ keys and invalid UTF-8: answered with JSON, never a 5xx, and polluting nothing. */
import t from 'tap'
import { get, head, postChunk, postSignals, rawExchange } from '../helpers/http.js'
import { answeredWithJson, ingestCluster } from '../helpers/ingest.js'
import { matchExactly } from '../helpers/match.js'

t.test('100,000 nested arrays in a signals body are answered with JSON', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const deep = '['.repeat(100_000) + ']'.repeat(100_000)
  const whole = await postSignals(cluster.url, pk, deep)
  answeredWithJson(t, whole, 'as the body')
  t.equal(whole.status, 400)
  t.equal(whole.json.code, 'invalid_request')
  const objects = '{"a":'.repeat(40_000) + '1' + '}'.repeat(40_000) // 240 KB: under the cap, so parsed
  const nestedObjects = await postSignals(cluster.url, pk, objects)
  answeredWithJson(t, nestedObjects, 'nested objects as the body')
  t.same([nestedObjects.status, nestedObjects.json.code], [400, 'invalid_request'], 'nested objects are no batch either')
  // Inside a batch (50,000 deep twice, to stay under the cap): the entry is dropped, the batch recorded, the nesting not stored.
  const half = '['.repeat(50_000) + ']'.repeat(50_000)
  const inside = await postSignals(cluster.url, pk, `{"sk":"deep","vid":"v","extra":${half},"clicks":[${half},{"url":"/","ts":1,"xRatio":0,"yDoc":0}]}`)
  t.equal(inside.status, 200)
  t.same(inside.json, { ok: true })
  const [{ batch }] = Array.from(store.listSignals(projectId))
  matchExactly(t, batch, { sk: 'deep', vid: 'v', dropped: 1, views: [], clicks: [{ url: '/', ts: 1, xRatio: 0, yDoc: 0 }], errors: [] })
  answeredWithJson(t, await postChunk(cluster.url, { pk, meta: '['.repeat(5000) + ']'.repeat(5000) }), 'nested arrays as X-Svc-Meta')
  t.equal((await get(cluster.url, '/health')).status, 200)
})

t.test('a control body nested past 32 levels is refused whole with 400 invalid_request; 32 levels are judged by the schema', async (t) => {
  const { cluster, seeded } = await ingestCluster(t)
  const create = async (body: string) => {
    const res = await fetch(`${cluster.url}/api/v1/cli/projects.create`, { method: 'POST', headers: { authorization: `Bearer ${seeded.apiKey}`, 'content-type': 'application/json' }, body })
    return { status: res.status, json: (await res.json()) as { code?: string; error?: string; project?: { name: string } } }
  }
  // A control body has no entries to keep apart, so nesting no operation takes refuses it (src/control/json-depth.ts).
  for (const depth of [33, 300_000]) {
    const refused = await create(`{"name":"deep","domain":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`)
    t.same([refused.status, refused.json.code], [400, 'invalid_request'], `${depth} levels`)
    t.match(refused.json.error, /nests deeper than 32/, `${depth} levels: the error says why`)
  }
  const judged = await create(`{"name":"deep","domain":${'['.repeat(31)}${']'.repeat(31)}}`)
  t.same([judged.status, judged.json.code], [400, 'invalid_request'], '32 levels: a domain that is no string')
  t.notMatch(judged.json.error, /nests deeper/, '32 levels: refused by the schema, not the depth')
  const created = await create('{"name":"flat"}')
  t.same([created.status, created.json.project?.name], [200, 'flat'], 'the same route creates a project from a flat body')
})

t.test('__proto__ keys are not stored and pollute nothing', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const pollution = '{"kind":"bogus","dropped":99,"identity":{"userId":"polluted"},"url":"polluted","polluted":true}'
  const signals = `{"sk":"p","vid":"v","__proto__":${pollution},"clicks":[{"url":"/","ts":1,"xRatio":0,"yDoc":0,"__proto__":${pollution}}],"views":[{"__proto__":{"url":"/","startedAt":1}}]}`
  answeredWithJson(t, await postSignals(cluster.url, pk, signals), 'signals with __proto__')
  const chunkMeta = `{"sk":"p","vid":"v","seq":0,"encoding":"json","__proto__":${pollution}}`
  answeredWithJson(t, await postChunk(cluster.url, { pk, meta: chunkMeta }), 'meta with __proto__')
  const identityMeta = `{"sk":"q","vid":"v","seq":0,"encoding":"json","identity":{"__proto__":{"userId":"polluted"}}}`
  const refused = await postChunk(cluster.url, { pk, meta: identityMeta })
  t.equal(refused.status, 400, 'an identity with a __proto__ key is refused')
  t.equal(refused.json.code, 'invalid_request')

  // Clean requests afterwards: had anything reached Object.prototype in the front or the writer,
  // the kind-less click would be dropped as "bogus" and the identity-less session would carry one.
  await postSignals(cluster.url, pk, { sk: 'clean', vid: 'v', clicks: [{ url: '/', ts: 2, xRatio: 0, yDoc: 0 }] })
  await postChunk(cluster.url, { pk, meta: JSON.stringify({ sk: 'clean', vid: 'v', seq: 0, encoding: 'json' }) })

  const batches = new Map(Array.from(store.listSignals(projectId), ({ batch }) => [batch.sk, batch]))
  matchExactly(t, batches.get('p'), { sk: 'p', vid: 'v', dropped: 1, views: [], clicks: [{ url: '/', ts: 1, xRatio: 0, yDoc: 0 }], errors: [] })
  matchExactly(t, batches.get('clean'), { sk: 'clean', vid: 'v', dropped: 0, views: [], clicks: [{ url: '/', ts: 2, xRatio: 0, yDoc: 0 }], errors: [] })
  const clean = store.getSession(projectId, 'clean')!
  t.equal(clean.identity, undefined)
  t.same(clean.pages, [])
  for (const record of [batches.get('p')!, batches.get('p')!.clicks[0], store.getSession(projectId, 'p')!, clean]) {
    t.notOk(Object.keys(record).some((key) => key.startsWith('__proto')), 'no __proto__ key stored')
  }
  t.equal(store.getSession(projectId, 'p')?.identity, undefined)
  t.equal(store.getSession(projectId, 'q'), undefined)
})

t.test('invalid UTF-8 in a signals body and in X-Svc-Meta is answered with JSON', async (t) => {
  const { cluster, pk, projectId, store } = await ingestCluster(t)
  const broken = Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28, 0x8c, 0xbc, 0xff, 0xfe])
  const outside = await postSignals(cluster.url, pk, Buffer.concat([broken, Buffer.from('{"sk":"s","vid":"v"}')]))
  answeredWithJson(t, outside, 'before the JSON')
  t.equal(outside.status, 400)
  t.equal(outside.json.code, 'invalid_request')
  const inString = await postSignals(cluster.url, pk, Buffer.concat([Buffer.from('{"sk":"utf'), broken, Buffer.from('","vid":"v"}')]))
  answeredWithJson(t, inString, 'inside a string')
  t.equal(inString.status, 200)
  t.equal(Array.from(store.listSignals(projectId)).length, 1)

  const body = Buffer.from('[{"type":4}]')
  for (const value of [broken, Buffer.concat([Buffer.from('{"sk":"'), broken, Buffer.from('","vid":"v","seq":0,"encoding":"json"}')])]) {
    const request = Buffer.concat([Buffer.from(head('POST', `/api/v1/ingest?pk=${pk}`, { 'content-length': body.byteLength }).replace(/\r\n$/, ''), 'latin1'), Buffer.from('X-Svc-Meta: '), value, Buffer.from('\r\n\r\n'), body])
    answeredWithJson(t, await rawExchange(cluster.port, request), `X-Svc-Meta ${value.toString('latin1').slice(0, 12)}`)
  }
  t.equal((await get(cluster.url, '/health')).status, 200)
})
