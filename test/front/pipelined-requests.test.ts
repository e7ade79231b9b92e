/**
 * Requests pipelined on one connection, written in one packet. Behind one the
 * front answers at once (an artifact, a preflight, a refusal before the body),
 * they are answered in order on either engine. Behind one answered later (an
 * ingest, a proxied route), node:http (the fallback) answers in order, while
 * uWebSockets.js closes the connection with no answer at all (it refuses async
 * pipelining by design); a proxied request the client can then never hear back
 * about is not carried out, so sending it again does it once.
 */
import t from 'tap'
import { httpEngine } from '../helpers/cluster.js'
import { ingestCluster, type IngestSetup } from '../helpers/ingest.js'
import { jsonChunk, meta } from '../helpers/http.js'
import { pipelined, rawHead } from '../helpers/raw-http.js'

const H = 'Host: x'
const health = rawHead('GET /health HTTP/1.1', [H])

function chunk(pk: string, sk: string, seq: number): Buffer {
  const body = jsonChunk()
  return Buffer.concat([Buffer.from(rawHead(`POST /api/v1/ingest?pk=${pk} HTTP/1.1`, [H, `X-Svc-Meta: ${JSON.stringify(meta({ sk, seq }))}`, `Content-Length: ${body.byteLength}`])), body])
}

function control(apiKey: string, path: string, value?: unknown): string {
  const body = value === undefined ? '' : JSON.stringify(value)
  return rawHead(`POST /api/v1/cli/${path} HTTP/1.1`, [H, `Authorization: Bearer ${apiKey}`, 'Content-Type: application/json', `Content-Length: ${body.length}`]) + body
}

/** Names of the organisation's projects, asked on a connection of their own. */
async function projectNames({ cluster, seeded }: IngestSetup): Promise<string[]> {
  const { answers } = await pipelined(cluster.port, control(seeded.apiKey, 'projects.list'), 1)
  return (answers[0]?.json?.projects ?? []).map((p: { name: string }) => p.name).sort()
}

const fallback = await ingestCluster(t, { env: { UWS_USE_FALLBACK: '1' } })
const native = await ingestCluster(t)
const nativeEngine = await httpEngine(native.cluster)

t.test('behind a request answered at once, pipelined requests are answered in order on either engine', async (t) => {
  for (const [engine, setup] of [['fallback', fallback], [nativeEngine, native]] as const) {
    const { cluster, pk, seeded } = setup
    const oversize = rawHead(`POST /api/v1/ingest?pk=${pk} HTTP/1.1`, [H, `X-Svc-Meta: ${JSON.stringify(meta())}`, 'Content-Length: 1000001'])
    const cases: [string, Buffer | string, [number, string | undefined][]][] = [
      ['/health, then a proxied route', health + control(seeded.apiKey, 'whoami'), [[200, undefined], [200, undefined]]],
      ['a preflight, then a chunk', Buffer.concat([Buffer.from(rawHead('OPTIONS /api/v1/ingest HTTP/1.1', [H])), chunk(pk, 'at-once', 0)]), [[204, undefined], [200, undefined]]],
      ['a chunk with a bad key, then a chunk', Buffer.concat([chunk('svc_pk_zz', 'at-once', 1), chunk(pk, 'at-once', 2)]), [[400, 'invalid_request'], [200, undefined]]],
      ['a chunk over the cap, then /health', Buffer.concat([Buffer.from(oversize), Buffer.alloc(1_000_001, 0x20), Buffer.from(health)]), [[413, 'payload_too_large'], [200, undefined]]],
    ]
    for (const [what, bytes, expected] of cases) {
      const { answers, end } = await pipelined(cluster.port, bytes, expected.length)
      t.equal(end, 'complete', `${engine}, ${what}: every answer came`)
      t.same(answers.map((a) => [a.status, a.json?.code]), expected, `${engine}, ${what}: statuses and codes in order`)
    }
  }
})

t.test('on the fallback, pipelined requests behind one answered later are answered in order, and carried out', async (t) => {
  const { cluster, pk, seeded, store, projectId } = fallback
  const cases: [string, Buffer | string, [number, unknown][]][] = [
    ['two chunks', Buffer.concat([chunk(pk, 'later', 0), chunk(pk, 'later', 1)]), [[200, { ok: true }], [200, { ok: true }]]],
    ['a chunk, then /health', Buffer.concat([chunk(pk, 'later', 2), Buffer.from(health)]), [[200, { ok: true }], [200, { ok: true }]]],
    ['a project created, then the projects listed', control(seeded.apiKey, 'projects.create', { name: 'piped' }) + control(seeded.apiKey, 'projects.list'), [[200, {}], [200, {}]]],
  ]
  for (const [what, bytes, expected] of cases) {
    const { answers, end } = await pipelined(cluster.port, bytes, expected.length)
    t.equal(end, 'complete', `${what}: every answer came`)
    t.same(answers.map((a) => a.status), expected.map(([status]) => status), `${what}: statuses in order`)
    expected.forEach(([, body], i) => t.match(answers[i]?.json, body, `${what}: answer ${i + 1}`))
  }
  t.equal(store.getSession(projectId, 'later')?.chunkCount, 3, 'the three chunks are stored')
  t.same(await projectNames(fallback), [fallback.seeded.project.name, 'piped'].sort(), 'the project was created once')
})

t.test('on uWebSockets.js, a request pipelined behind one answered later closes the connection unanswered; a proxied one is not carried out', { skip: nativeEngine === 'fallback' && 'no native build loads here' }, async (t) => {
  const { cluster, pk, seeded, store, projectId } = native
  const created = await pipelined(cluster.port, control(seeded.apiKey, 'projects.create', { name: 'piped' }) + health, 2)
  t.not(created.end, 'complete', `closed (${created.end})`)
  t.same(created.answers, [], 'not a byte of an answer')
  await new Promise((resolve) => setTimeout(resolve, 500)) // time for the control worker to have created it, were it forwarded
  t.same(await projectNames(native), [native.seeded.project.name], 'the project was not created: the client could not have learnt that it was')
  const alone = await pipelined(cluster.port, control(seeded.apiKey, 'projects.create', { name: 'piped' }), 1)
  t.equal(alone.answers[0]?.status, 200, 'sent again on its own, it is created')
  t.same(await projectNames(native), [native.seeded.project.name, 'piped'].sort(), 'once')

  const chunks = await pipelined(cluster.port, Buffer.concat([chunk(pk, 'later', 0), chunk(pk, 'later', 1)]), 2)
  t.same([chunks.end === 'complete', chunks.answers], [false, []], 'two chunks: closed unanswered')
  for (const seq of [0, 1]) t.same((await pipelined(cluster.port, chunk(pk, 'later', seq), 1)).answers[0]?.json, { ok: true }, `chunk ${seq} sent again on its own`)
  t.equal(store.getSession(projectId, 'later')?.chunkCount, 2, 'each chunk stored once, however often it came')
  t.equal((await pipelined(cluster.port, health, 1)).answers[0]?.status, 200, 'the front serves on')
})
