/**
 * POST /styles: a stylesheet stored once per project under the SHA-256 of its
 * text (src/recordings/styles.ts), what the route answers to what it cannot
 * keep, and a recording that refers to it read back with the text in place
 * (sessions.events) or as stored (sessions.chunk). Run again in the cluster
 * mode by test/cluster-mode/api-files-ingest.test.ts.
 */
import { createHash } from 'node:crypto'
import { gunzipSync, gzipSync } from 'node:zlib'
import t from 'tap'
import { until } from '../helpers/until.js'
import { ingestCluster } from '../helpers/ingest.js'
import { callRaw, postChunk } from '../helpers/read.js'
import { MAX_STYLE_BYTES_PER_PROJECT, MAX_STYLES_PER_PROJECT } from '../../src/recordings/styles.js'

const { cluster, seeded, pk, projectId, store } = await ingestCluster(t)
const upload = (query: string, body: Uint8Array | string) => fetch(`${cluster.url}/api/styles?${query}`, { method: 'POST', body: body as BodyInit })
const answer = async (res: Response) => ({ status: res.status, code: ((await res.json()) as { code?: string }).code })
const sha256 = (text: string | Uint8Array) => createHash('sha256').update(text).digest('hex')

t.test('what /styles cannot keep is refused with a code, and a stylesheet is kept once', async (t) => {
  const text = 'p { color: teal }'
  const hash = sha256(text)
  t.same(await answer(await upload(`pk=${pk}&hash=${'0'.repeat(64)}`, text)), { status: 400, code: 'invalid_request' }, 'a text that is not the hash')
  t.same(await answer(await upload(`pk=${pk}&hash=${hash.toUpperCase()}`, text)), { status: 400, code: 'invalid_request' }, 'a hash not in lowercase hex')
  t.same(await answer(await upload(`pk=${pk}`, text)), { status: 400, code: 'invalid_request' }, 'no hash')
  t.same(await answer(await upload(`pk=svc_pk_${'0'.repeat(32)}&hash=${hash}`, text)), { status: 404, code: 'not_found' }, 'an unknown key')
  t.same(await answer(await upload(`pk=${pk}&hash=${hash}`, Buffer.alloc(1_000_001, 0x20))), { status: 413, code: 'payload_too_large' }, 'a body over 1,000,000 bytes')
  const bomb = Buffer.alloc(4 * 1024 * 1024 + 1, 0x20)
  t.same(await answer(await upload(`pk=${pk}&hash=${sha256(bomb)}`, gzipSync(bomb))), { status: 400, code: 'invalid_request' }, 'a gzip body past 4 MiB inflated')
  t.equal(store.getStyle(projectId, hash), undefined, 'nothing of them stored')
  t.same(await answer(await upload(`pk=${pk}&hash=${hash}`, gzipSync(text))), { status: 200, code: undefined }, 'the right text, gzipped, is stored')
  t.same(await answer(await upload(`pk=${pk}&hash=${hash}`, text)), { status: 200, code: undefined }, 'again, raw: answered')
  const kept = await until('the stylesheet stored', () => store.getStyle(projectId, hash))
  t.equal(gunzipSync(kept.subarray(1)).toString(), JSON.stringify(text), 'kept as its JSON string, gzipped')
  t.equal(store.styleBytes(projectId), kept.byteLength, 'one copy')
  // A held hash answers 200 only to its own text: otherwise any key holder could ask which texts a project has.
  t.same(await answer(await upload(`pk=${pk}&hash=${hash}`, 'p { color: red }')), { status: 400, code: 'invalid_request' }, 'a held hash with another body')
})

t.test('a text\'s cost is counted as restored, not as sent: one that escapes past 4 MiB is refused, and the quota counts restored bytes', async (t) => {
  // 1 MiB of a control character gzips to about 1 KB and would restore as 6 MiB of JSON.
  const controls = Buffer.alloc(1024 * 1024, 0x01)
  t.same(await answer(await upload(`pk=${pk}&hash=${sha256(controls)}`, gzipSync(controls))), { status: 400, code: 'invalid_request' }, 'past 4 MiB as restored')
  // Twenty 3 MiB texts of one repeated character: 60 KB sent, 60 MiB restored, past the 50 MiB quota; sent all at once.
  const before = store.projectStats(projectId).styleCount ?? 0
  const texts = Array.from({ length: 20 }, (_, i) => Buffer.alloc(3 * 1024 * 1024, 0x61 + i))
  const answers = await Promise.all(texts.map(async (text) => answer(await upload(`pk=${pk}&hash=${sha256(text)}`, gzipSync(text)))))
  const taken = answers.filter((a) => a.status === 200).length
  t.same(answers.filter((a) => a.status !== 200), Array(20 - taken).fill({ status: 409, code: 'quota_exceeded' }), 'the rest refused 409 quota_exceeded')
  const restored = await until('the counters settle', () => (store.projectStats(projectId).styleCount ?? 0) >= before + taken && store.projectStats(projectId).styleBytes!)
  t.ok(restored <= MAX_STYLE_BYTES_PER_PROJECT, `at most 50 MiB restored held (${restored}) with ${taken} taken`)
  t.ok(taken >= 15, 'and as many as fit')
})

t.test('a recording that refers to a stylesheet reads back with its text, and as stored chunk by chunk', async (t) => {
  const css = `.banner { background: rgb(21, 101, 192) }\n`.repeat(80)
  const hash = sha256(css)
  t.equal((await upload(`pk=${pk}&hash=${hash}`, gzipSync(css))).status, 200)
  const node = { type: 0, id: 1, childNodes: [{ type: 2, id: 2, tagName: 'style', attributes: { _svcCss: hash }, childNodes: [] }] }
  const events = [{ type: 4, data: { href: 'https://shop.test/', width: 800, height: 600 }, timestamp: 1_700_000_000_000 }, { type: 2, data: { node, initialOffset: { left: 0, top: 0 } }, timestamp: 1_700_000_000_001 }]
  const stored = Buffer.from(JSON.stringify(events))
  t.equal(await postChunk(cluster.url, pk, { sk: 'styled', seq: 0, firstTs: 1_700_000_000_000, lastTs: 1_700_000_000_001, eventCount: 2 }, stored), 200)
  // In the cluster mode the stylesheet and the chunk travel in different streams: read until both are applied.
  const read = await until('the text put back', async () => {
    const answer = await callRaw(cluster.url, '/cli/sessions.events', seeded.apiKey, { projectId, sessionKey: 'styled' })
    return answer.status === 200 && answer.bytes.includes('_cssText') && answer
  })
  const back = JSON.parse(read.bytes.toString())
  t.same(back[1].data.node.childNodes[0].attributes, { _cssText: css }, 'the node carries the text where the reference was')
  t.same(back[0], events[0], 'the rest as stored')
  const chunk = await callRaw(cluster.url, '/cli/sessions.chunk', seeded.apiKey, { projectId, sessionKey: 'styled', seq: 0 })
  t.equal(chunk.status, 200)
  t.same(chunk.bytes, stored, 'sessions.chunk answers the bytes as stored, the reference in them')
})

t.test('a project keeps at most MAX_STYLES_PER_PROJECT stylesheets, however many are sent at once: past it 409 quota_exceeded', async (t) => {
  const held = store.projectStats(projectId).styleCount ?? 0
  const texts = Array.from({ length: MAX_STYLES_PER_PROJECT + 40 - held }, (_, i) => `.quota-${i} { color: #${(i % 4096).toString(16).padStart(3, '0')} }`)
  const answers: Array<{ status: number; code?: string }> = []
  // In waves of 60 at once: uploads in flight together are what once passed the bound.
  for (let i = 0; i < texts.length; i += 60) answers.push(...(await Promise.all(texts.slice(i, i + 60).map(async (text) => answer(await upload(`pk=${pk}&hash=${sha256(text)}`, text))))))
  t.equal(answers.filter((a) => a.status === 200).length, MAX_STYLES_PER_PROJECT - held, 'exactly as many taken as there was room for')
  t.same(answers.filter((a) => a.status !== 200), Array(40).fill({ status: 409, code: 'quota_exceeded' }), 'the rest refused with the code')
  await until('all applied', () => store.projectStats(projectId).styleCount === MAX_STYLES_PER_PROJECT)
  const again = 'p.late { color: red }'
  t.same(await answer(await upload(`pk=${pk}&hash=${sha256(again)}`, again)), { status: 409, code: 'quota_exceeded' }, 'and the next one too')
  t.equal(store.getStyle(projectId, sha256(again)), undefined, 'not stored')
})
