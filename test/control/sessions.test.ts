/** sessions.list, sessions.chunks, sessions.chunk and sessions.events through the real cluster. */
import { randomBytes } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { purgeExpired } from '../../src/recordings/retention.js'
import { call } from '../helpers/api.js'
import { clusterFor, sharedCluster } from '../helpers/cluster.js'
import { seedProject, storeAt } from '../helpers/seed.js'
import { callRaw, events, postChunk, postSignals } from '../helpers/read.js'

const NOW = Date.now()
const DAY = 24 * 60 * 60 * 1000

t.test('lists sessions newest first with visitor, identity, times, pages, recording and signal counts', async (t) => {
  const cluster = await sharedCluster({ workers: 1 })
  const { apiKey, project } = await seedProject(cluster.dataDir)
  const body = Buffer.from(JSON.stringify(events(0, 2)))
  const identity = { userId: 'u_42', email: 'ada@shop.test', accountId: 'acme' }
  t.equal(await postChunk(cluster.url, project.publicKey, { sk: 'older', seq: 0, startedAt: NOW - 60_000, firstTs: NOW - 60_000, lastTs: NOW - 50_000 }, body), 200)
  t.equal(await postChunk(cluster.url, project.publicKey, { sk: 'newer', seq: 0, startedAt: NOW - 30_000, firstTs: NOW - 30_000, lastTs: NOW - 20_000, eventCount: 2, identity, url: 'https://shop.test/cart/42' }, body), 200)
  t.equal(await postChunk(cluster.url, project.publicKey, { sk: 'newer', seq: 1, pageIndex: 1, firstTs: NOW - 19_000, lastTs: NOW - 10_000, eventCount: 2, url: 'https://shop.test/checkout' }, body), 200)
  t.equal(
    await postSignals(cluster.url, project.publicKey, {
      sk: 'newer',
      vid: 'v-newer',
      views: [{ url: 'https://shop.test/cart/42', startedAt: NOW - 30_000, activeMs: 7_000 }],
      clicks: [
        { url: 'https://shop.test/cart/42', ts: NOW - 25_000, xRatio: 0.2, yDoc: 300, kind: 'rage', n: 3 },
        { url: 'https://shop.test/cart/42', ts: NOW - 24_000, xRatio: 0.2, yDoc: 300, kind: 'dead' },
        { url: 'https://shop.test/cart/42', ts: NOW - 23_000, xRatio: 0.2, yDoc: 300, kind: 'error' },
        { url: 'https://shop.test/cart/42', ts: NOW - 22_000, xRatio: 0.2, yDoc: 300 },
      ],
      errors: [{ url: 'https://shop.test/cart/42', ts: NOW - 23_000, message: 'TypeError: boom' }],
    }),
    200,
  )

  const answer = await call(cluster.url, '/cli/sessions.list', { token: apiKey, body: { projectId: project.id } })
  t.equal(answer.status, 200)
  t.equal(answer.body.nextCursor, null)
  t.same(answer.body.sessions.map((s: any) => s.sessionKey), ['newer', 'older'])
  t.same(answer.body.sessions[0], {
    sessionKey: 'newer',
    visitorId: 'v-newer',
    identity,
    startedAt: NOW - 30_000,
    lastActivityAt: NOW - 10_000,
    durationMs: 20_000,
    activeMs: 7_000,
    pageCount: 2,
    pages: [
      { pageIndex: 0, url: 'https://shop.test/cart/42', page: 'shop.test/cart/:id' },
      { pageIndex: 1, url: 'https://shop.test/checkout', page: 'shop.test/checkout' },
    ],
    chunkCount: 2,
    bytes: 2 * body.byteLength,
    eventCount: 4,
    entryUrl: 'https://shop.test/cart/42',
    clicks: 4,
    rage: 1,
    dead: 1,
    errorClicks: 1,
    errors: 1,
    consoleErrors: 0,
    failedRequests: 0,
    purged: false,
    purgedAt: null,
    completeness: { complete: true, recordingStartedAt: NOW - 30_000, missing: [], missingChunks: 0, dropped: 0, refused: 0, tabClosed: 0, notReceived: 0, excludedPages: 0, omitted: 0 },
  })

  const only = async (filters: Record<string, unknown>) =>
    (await call(cluster.url, '/cli/sessions.list', { token: apiKey, body: { projectId: project.id, ...filters } })).body.sessions.map((s: any) => s.sessionKey)
  t.same(await only({ userId: 'u_42' }), ['newer'])
  t.same(await only({ accountId: 'nobody' }), [])
  t.same(await only({ hasRage: true }), ['newer'])
  t.same(await only({ hasErrors: false }), ['older'])
  t.same(await only({ minDurationMs: 15_000 }), ['newer'])
  t.same(await only({ since: NOW - 40_000 }), ['newer'])
  t.same(await only({ until: NOW - 40_000 }), ['older'])
  t.same(await only({ page: '/checkout' }), ['newer'], 'a display path')
  t.same(await only({ page: 'https://shop.test/cart/7?x=1' }), ['newer'], 'a URL, grouped under the project\'s rules')
  t.same(await only({ page: 'shop.test/' }), ['older'], 'a page key')

  const first = await call(cluster.url, '/cli/sessions.list', { token: apiKey, body: { projectId: project.id, limit: 1 } })
  t.same(first.body.sessions.map((s: any) => s.sessionKey), ['newer'])
  t.type(first.body.nextCursor, 'string')
  const second = await call(cluster.url, '/cli/sessions.list', { token: apiKey, body: { projectId: project.id, limit: 1, cursor: first.body.nextCursor } })
  t.same(second.body.sessions.map((s: any) => s.sessionKey), ['older'])
  t.equal(second.body.nextCursor, null)

  // A chunk refused as too large, by its declared length or as it streams in without one, is named in its session (issue 35).
  const cut = { sk: 'cut', startedAt: NOW - 5_000 }
  t.equal(await postChunk(cluster.url, project.publicKey, { ...cut, seq: 0, firstTs: NOW - 5_000, lastTs: NOW - 4_000 }, body), 200)
  t.equal(await postChunk(cluster.url, project.publicKey, { ...cut, seq: 3, firstTs: NOW - 1_000, lastTs: NOW }, body), 200)
  const oversize = async (seq: number, streamed: boolean) => {
    const meta = JSON.stringify({ ...cut, vid: 'v-cut', seq, encoding: 'json', firstTs: NOW - 4_000 + seq * 1_000, lastTs: NOW - 3_500 + seq * 1_000 })
    const bytes = new Uint8Array(1_000_001)
    // Streamed, the request has no Content-Length: the front counts the bytes as they come.
    const payload = streamed ? new ReadableStream({ start: (c) => (c.enqueue(bytes), c.close()) }) : bytes
    const res = await fetch(`${cluster.url}/api/v1/ingest?pk=${project.publicKey}`, { method: 'POST', headers: { 'x-svc-meta': meta }, body: payload, ...(streamed ? { duplex: 'half' } : {}) } as RequestInit)
    return [res.status, (await res.json()).code]
  }
  t.same(await oversize(1, false), [413, 'payload_too_large'], 'refused by its declared length')
  t.same(await oversize(2, true), [413, 'payload_too_large'], 'refused as it streams in')
  const gaps = async () => (await call(cluster.url, '/cli/sessions.list', { token: apiKey, body: { projectId: project.id } })).body.sessions.find((s: any) => s.sessionKey === 'cut').completeness
  let named = await gaps()
  for (const deadline = Date.now() + 10_000; named.refused < 2 && Date.now() < deadline; named = await gaps()) await new Promise((r) => setTimeout(r, 50))
  t.match(named, { complete: false, refused: 2, missingChunks: 2, missing: [{ reason: 'refused_too_large', chunks: 2, fromSeq: 1, toSeq: 2, fromTs: NOW - 3_000, untilTs: NOW - 1_500 }] })
})

t.test('sessions.chunk answers each chunk byte for byte, as application/octet-stream with X-Svc-Encoding', async (t) => {
  const cluster = await sharedCluster({ workers: 1 })
  const { apiKey, project } = await seedProject(cluster.dataDir)
  // A gzip chunk of incompressible data (600 KB: past the front's buffered-answer size, so it streams),
  // and a raw chunk with odd white space and characters outside ASCII.
  const gzip = gzipSync(Buffer.from(JSON.stringify([{ type: 2, data: { blob: randomBytes(450_000).toString('base64') } }])))
  const raw = Buffer.from(' \n[ {"type":3,"data":{"text":"naïve ☕ \\u0000 \\"quoted\\" ]"}} ]\r\n')
  t.equal(await postChunk(cluster.url, project.publicKey, { sk: 's1', seq: 0, encoding: 'gzip' }, gzip), 200)
  t.equal(await postChunk(cluster.url, project.publicKey, { sk: 's1', seq: 7, encoding: 'json', firstTs: NOW, lastTs: NOW + 5, eventCount: 1 }, raw), 200)

  const list = await call(cluster.url, '/cli/sessions.chunks', { token: apiKey, body: { projectId: project.id, sessionKey: 's1' } })
  t.equal(list.status, 200)
  t.equal(list.body.purged, false)
  t.match(list.body.chunks, [
    { seq: 0, encoding: 'gzip', size: gzip.byteLength, pageIndex: 0, url: 'https://shop.test/' },
    { seq: 7, encoding: 'json', size: raw.byteLength, firstTs: NOW, lastTs: NOW + 5, eventCount: 1 },
  ])
  t.equal(list.body.chunks.length, 2)

  for (const [seq, bytes, encoding] of [[0, gzip, 'gzip'], [7, raw, 'json']] as const) {
    const answer = await callRaw(cluster.url, '/cli/sessions.chunk', apiKey, { projectId: project.id, sessionKey: 's1', seq })
    t.equal(answer.status, 200)
    t.equal(answer.headers.get('content-type'), 'application/octet-stream')
    t.equal(answer.headers.get('x-svc-encoding'), encoding)
    t.notOk(answer.headers.get('content-encoding'), 'never marked as content encoding: the bytes are the payload')
    t.ok(answer.bytes.equals(bytes), `chunk ${seq}: ${answer.bytes.byteLength} bytes identical to the ${bytes.byteLength} sent`)
  }

  const missing = await call(cluster.url, '/cli/sessions.chunk', { token: apiKey, body: { projectId: project.id, sessionKey: 's1', seq: 3 } })
  t.same([missing.status, missing.body.code], [404, 'not_found'])
})

t.test('sessions.events joins gzip and raw chunks into one JSON array of events in seq order', async (t) => {
  const cluster = await sharedCluster({ workers: 1 })
  const { apiKey, project } = await seedProject(cluster.dataDir)
  // Arrive out of order; an empty chunk and a lone event object on the way.
  t.equal(await postChunk(cluster.url, project.publicKey, { sk: 's1', seq: 2, encoding: 'json' }, Buffer.from(JSON.stringify(events(5, 3)))), 200)
  t.equal(await postChunk(cluster.url, project.publicKey, { sk: 's1', seq: 0, encoding: 'gzip' }, gzipSync(JSON.stringify(events(0, 4)))), 200)
  t.equal(await postChunk(cluster.url, project.publicKey, { sk: 's1', seq: 1, encoding: 'json' }, Buffer.from(' [ ] ')), 200)
  t.equal(await postChunk(cluster.url, project.publicKey, { sk: 's1', seq: 3, encoding: 'json' }, Buffer.from(JSON.stringify(events(4, 1)[0]))), 200)
  const answer = await callRaw(cluster.url, '/cli/sessions.events', apiKey, { projectId: project.id, sessionKey: 's1' })
  t.equal(answer.status, 200)
  t.match(answer.headers.get('content-type'), /^application\/json/)
  const parsed = JSON.parse(answer.bytes.toString('utf8'))
  t.same(parsed.map((e: any) => e.data.n), [0, 1, 2, 3, 5, 6, 7, 4], 'chunk order (seq), each chunk\'s events in order')

  const none = await call(cluster.url, '/cli/sessions.events', { token: apiKey, body: { projectId: project.id, sessionKey: 'nobody' } })
  t.same([none.status, none.body.code], [404, 'not_found'])
})

t.test('a purged session is listed as purged; its chunk list is empty and its chunk and events answer 404 with a hint', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const { apiKey, project } = await seedProject(cluster.dataDir)
  t.equal(await postChunk(cluster.url, project.publicKey, { sk: 'gone', seq: 0, startedAt: NOW, firstTs: NOW, lastTs: NOW }, Buffer.from(JSON.stringify(events(0, 1)))), 200)
  t.equal(await postSignals(cluster.url, project.publicKey, { sk: 'gone', vid: 'v', clicks: [{ url: 'https://shop.test/', ts: NOW, xRatio: 0.5, yDoc: 5, kind: 'rage' }] }), 200)
  const store = storeAt(cluster.dataDir)
  t.teardown(() => store.close())
  t.match(await purgeExpired(store, 30, NOW + 31 * DAY), { sessionsPurged: 1 })

  const listed = await call(cluster.url, '/cli/sessions.list', { token: apiKey, body: { projectId: project.id } })
  t.match(listed.body.sessions, [{ sessionKey: 'gone', purged: true, purgedAt: NOW + 31 * DAY, chunkCount: 1, rage: 1 }])
  const chunks = await call(cluster.url, '/cli/sessions.chunks', { token: apiKey, body: { projectId: project.id, sessionKey: 'gone' } })
  t.match([chunks.status, chunks.body], [200, { chunks: [], purged: true, completeness: { complete: true, missing: [] } }])
  t.same(chunks.body.chunks, [])
  for (const [route, body] of [['/cli/sessions.chunk', { projectId: project.id, sessionKey: 'gone', seq: 0 }], ['/cli/sessions.events', { projectId: project.id, sessionKey: 'gone' }]] as const) {
    const answer = await call(cluster.url, route, { token: apiKey, body })
    t.same([answer.status, answer.body.code], [404, 'not_found'], route)
    t.match(answer.body.hint, /retention/i, `${route} says why`)
  }
  const friction = await call(cluster.url, '/cli/friction.list', { token: apiKey, body: { projectId: project.id } })
  t.match(friction.body.items, [{ kind: 'rage', sessionKey: 'gone' }], 'its signals outlive the recording')
})

t.test('validation, credentials and other organisations\' projects', async (t) => {
  const cluster = await sharedCluster({ workers: 1 })
  const a = await seedProject(cluster.dataDir, 'Org A', 'a@a.test')
  const b = await seedProject(cluster.dataDir, 'Org B', 'b@b.test')
  t.equal(await postChunk(cluster.url, a.project.publicKey, { sk: 's1', seq: 0 }, Buffer.from(JSON.stringify(events(0, 1)))), 200)
  const projectId = a.project.id
  const invalid: [string, unknown][] = [
    ['/cli/sessions.list', {}],
    ['/cli/sessions.list', { projectId, limit: 0 }],
    ['/cli/sessions.list', { projectId, limit: 201 }],
    ['/cli/sessions.list', { projectId, since: 'yesterday' }],
    ['/cli/sessions.list', { projectId, hasRage: 'yes' }],
    ['/cli/sessions.list', { projectId, userid: 'u1' }],
    ['/cli/sessions.list', { projectId, cursor: 'not a cursor!' }],
    ['/cli/sessions.list', { projectId, cursor: Buffer.from('{"s":"x"}').toString('base64url') }],
    ['/cli/sessions.list', { projectId, since: 10, until: 10 }],
    ['/cli/sessions.chunks', { projectId }],
    ['/cli/sessions.chunks', { projectId, sessionKey: '' }],
    ['/cli/sessions.chunk', { projectId, sessionKey: 's1' }],
    ['/cli/sessions.chunk', { projectId, sessionKey: 's1', seq: -1 }],
    ['/cli/sessions.chunk', { projectId, sessionKey: 's1', seq: 1.5 }],
    ['/cli/sessions.events', { projectId, sessionKey: 'x'.repeat(257) }],
  ]
  for (const [route, body] of invalid) {
    const answer = await call(cluster.url, route, { token: a.apiKey, body })
    t.same([answer.status, answer.body.code], [400, 'invalid_request'], `${route} ${JSON.stringify(body).slice(0, 60)}`)
  }
  const notJson = await fetch(`${cluster.url}/api/v1/cli/sessions.list`, { method: 'POST', headers: { authorization: `Bearer ${a.apiKey}` }, body: '{' })
  t.same([notJson.status, (await notJson.json()).code], [400, 'invalid_request'])

  const routes: [string, Record<string, unknown>][] = [
    ['/cli/sessions.list', { projectId }],
    ['/cli/sessions.chunks', { projectId, sessionKey: 's1' }],
    ['/cli/sessions.chunk', { projectId, sessionKey: 's1', seq: 0 }],
    ['/cli/sessions.events', { projectId, sessionKey: 's1' }],
  ]
  for (const [route, body] of routes) {
    const anonymous = await call(cluster.url, route, { body })
    t.same([anonymous.status, anonymous.body.code], [401, 'unauthorized'], `${route} without a key`)
    const wrongKind = await call(cluster.url, route, { authorization: 'Bearer svc_st_abc_def', body })
    t.same([wrongKind.status, wrongKind.body.code], [401, 'unauthorized'], `${route} with a setup token`)
    const otherOrg = await call(cluster.url, route, { token: b.apiKey, body })
    const missing = await call(cluster.url, route, { token: a.apiKey, body: { ...body, projectId: 'prj_missing' } })
    t.same([otherOrg.status, otherOrg.body.code], [404, 'not_found'], `${route}: another organisation's project`)
    t.same(otherOrg.body, missing.body, `${route}: answered exactly like a project that does not exist`)
    const own = await callRaw(cluster.url, route, a.apiKey, body)
    t.equal(own.status, 200, `${route}: its own organisation reads it`)
  }
  for (const route of ['/cli/sessions.chunks', '/cli/sessions.chunk', '/cli/sessions.events']) {
    const answer = await call(cluster.url, route, { token: a.apiKey, body: { projectId, sessionKey: 'nobody', ...(route === '/cli/sessions.chunk' ? { seq: 0 } : {}) } })
    t.same([answer.status, answer.body.code], [404, 'not_found'], `${route}: no such session`)
  }
  const page = await call(cluster.url, '/cli/sessions.list', { token: a.apiKey, body: { projectId, page: '/never/seen' } })
  t.same([page.status, page.body.code], [404, 'not_found'], 'a page the project never saw')
})
