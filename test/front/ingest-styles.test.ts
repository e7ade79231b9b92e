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
import { MAX_STYLES_PER_PROJECT } from '../../src/recordings/styles.js'

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
  t.equal(gunzipSync(kept).toString(), text, 'kept gzipped')
  t.equal(store.styleBytes(projectId), kept.byteLength, 'one copy')
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

t.test('a project keeps at most MAX_STYLES_PER_PROJECT stylesheets: past it an upload is refused 409 quota_exceeded', async (t) => {
  const held = store.projectStats(projectId).styleCount ?? 0
  let refusedAt = -1
  let refusal: { status: number; code?: string } | undefined
  // Sequential, so that each is counted before the next is checked (in the cluster mode, once applied: a few may pass meanwhile).
  for (let i = held; i < MAX_STYLES_PER_PROJECT + 100 && refusedAt < 0; i++) {
    const text = `.quota-${i} { color: #${(i % 4096).toString(16).padStart(3, '0')} }`
    const got = await answer(await upload(`pk=${pk}&hash=${sha256(text)}`, text))
    if (got.status !== 200) [refusedAt, refusal] = [i, got]
  }
  t.same(refusal, { status: 409, code: 'quota_exceeded' }, `refused with its code, at stylesheet ${refusedAt + 1}`)
  t.ok(refusedAt >= MAX_STYLES_PER_PROJECT && refusedAt < MAX_STYLES_PER_PROJECT + 100, `not before the bound, and soon after it (${refusedAt})`)
  const again = 'p.late { color: red }'
  t.same(await answer(await upload(`pk=${pk}&hash=${sha256(again)}`, again)), { status: 409, code: 'quota_exceeded' }, 'and the next one too')
  t.equal(store.getStyle(projectId, sha256(again)), undefined, 'not stored')
})
