/**
 * The cluster mode end to end: two service nodes, each with its own LMDB, on
 * one three-server NATS cluster. What one node takes, the other serves; a
 * third node started on an empty data directory rebuilds the same answers.
 */
import t from 'tap'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { openLmdbStore } from '../../src/store/lmdb/index.js'
import { call } from '../helpers/api.js'
import { DIST, tempDataDir } from '../helpers/cluster.js'
import { createProject, nodeOn, ownerWithKey } from '../helpers/cluster-mode.js'
import { natsCluster } from '../helpers/nats.js'
import { meta, postChunk as postChunkAnswer } from '../helpers/http.js'
import { until } from '../helpers/until.js'
import { callRaw, events, postChunk, postSignals } from '../helpers/read.js'

// Three nats-servers and up to three nodes per test.
t.setTimeout(300_000)

t.test('what node A takes, node B serves; a new empty node rebuilds it', async (t) => {
  const nats = await natsCluster(t)
  const a = await nodeOn(t, nats)
  const b = await nodeOn(t, nats)
  const owner = await ownerWithKey(a.url)

  const whoami = await call(b.url, '/cli/whoami', { token: owner.apiKey })
  t.equal(whoami.status, 200, 'an API key made on A works on B')
  // The audit log is a control change like the others: written through the log, on every node.
  const audit = await call(b.url, '/auth/audit.list', { token: owner.apiKey, body: {} })
  t.same(audit.body.entries.map((e: { action: string }) => e.action), ['key.create', 'org.setup'], 'the audit entries A wrote are read on B')

  const project = await createProject(a.url, owner.apiKey, 'Shop')
  const chunk = new TextEncoder().encode(JSON.stringify(events(0, 5)))
  t.equal(await postChunk(b.url, project.publicKey, { sk: 's1', seq: 0 }, chunk), 200, 'a project made on A takes ingest on B')
  t.equal(await postChunk(a.url, project.publicKey, { sk: 's1', seq: 1 }, chunk), 200)
  // The same (sk, seq) through both nodes: one chunk.
  t.equal(await postChunk(a.url, project.publicKey, { sk: 's2', seq: 0 }, chunk), 200)
  t.equal(await postChunk(b.url, project.publicKey, { sk: 's2', seq: 0 }, chunk), 200)

  for (const node of [a, b]) {
    const count = await call(node.url, '/cli/sessions.count', { token: owner.apiKey, body: { projectId: project.id } })
    t.same(count.body, { count: 2 }, `${node === a ? 'A' : 'B'} counts both sessions`)
    const chunks = await call(node.url, '/cli/sessions.chunks', { token: owner.apiKey, body: { projectId: project.id, sessionKey: 's2' } })
    t.equal(chunks.body.chunks.length, 1, 'the chunk sent to A and to B is stored once')
    const raw = await callRaw(node.url, '/cli/sessions.chunk', owner.apiKey, { projectId: project.id, sessionKey: 's1', seq: 1 })
    t.equal(Buffer.compare(raw.bytes, Buffer.from(chunk)), 0, 'the chunk sent to A reads back byte-identical')
  }

  // The bytes live in the log: each node's LMDB keeps where they are, not the bytes.
  const onDisk = openLmdbStore({ path: b.dataDir, mapSize: 64 * 2 ** 30, durability: 'commit' })
  t.teardown(() => onDisk.close())
  t.equal(onDisk.getChunk(project.id, 's1', 1), undefined, "node B's LMDB does not hold the chunk's bytes")
  t.match(onDisk.listChunks(project.id, 's1')[1]?.journal, { stream: /^REC_\d$/, seq: Number }, 'it holds their place in the log')
  const listed = await call(b.url, '/cli/sessions.chunks', { token: owner.apiKey, body: { projectId: project.id, sessionKey: 's1' } })
  t.notOk('journal' in listed.body.chunks[1], 'which the chunk list does not show')

  const clicks = Array.from({ length: 4 }, (_, i) => ({ url: 'https://shop.test/cart', ts: Date.now() - 1_000 + i, xRatio: 0.5, yDoc: 100, selector: '#buy', label: 'Buy', tag: 'button', interactive: true }))
  t.equal(await postSignals(a.url, project.publicKey, { sk: 's1', vid: 'v-s1', views: [{ url: 'https://shop.test/cart', startedAt: Date.now() - 2_000 }], clicks }), 200)
  const top = await call(b.url, '/cli/elements.top', { token: owner.apiKey, body: { projectId: project.id, page: 'shop.test/cart' } })
  t.equal(top.status, 200)
  t.equal(top.body.elements?.[0]?.clicks, 4, 'signals sent to A show in B\'s leaderboard')

  // Live: a visitor whose chunks reach A, followed on B. B lists it, follows what A takes, and A tells the tracker.
  const visit = (seq: number) => postChunkAnswer(a.url, { pk: project.publicKey, meta: meta({ sk: 'live', seq, startedAt: Date.now(), firstTs: Date.now(), lastTs: Date.now(), checkpoint: seq === 0 }), body: JSON.stringify([{ type: 3, timestamp: Date.now(), data: { source: 0, mark: `m-${seq}` } }]) })
  t.same((await visit(0)).json, { ok: true })
  await until('B lists A\'s visitor live', async () => (await call(b.url, '/cli/sessions.list', { token: owner.apiKey, body: { projectId: project.id, live: true } })).body.sessions?.[0]?.sessionKey === 'live', 15_000)
  const followed = new AbortController()
  const feed = await fetch(`${b.url}/api/v1/cli/sessions.follow`, { method: 'POST', headers: { authorization: `Bearer ${owner.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ projectId: project.id, sessionKey: 'live' }), signal: followed.signal })
  t.equal(feed.status, 200, 'B follows it')
  let text = ''
  void (async () => {
    for await (const piece of feed.body as unknown as AsyncIterable<Uint8Array>) text += Buffer.from(piece).toString()
  })().catch(() => undefined)
  let seq = 1
  const watched = await until('A answers the visitor watched', async () => (await visit(seq++)).json?.watched === true, 15_000)
  t.ok(watched, 'a follow on B reaches A\'s front')
  await until('B\'s feed carries what A took', () => text.includes(`"m-${seq - 1}"`), 15_000)
  t.ok(text.includes('"m-0"') && text.includes(`"m-${seq - 1}"`), 'the follower on B gets the visitor\'s chunks from A')
  followed.abort()

  const revoked = await call(a.url, '/cli/keys.revoke', { token: owner.apiKey, body: { keyId: owner.apiKey.split('_')[2] } })
  t.equal(revoked.status, 200, 'the key revoked on A')
  const refused = await call(b.url, '/cli/whoami', { token: owner.apiKey })
  t.equal(refused.status, 401, 'is refused by B at once')
  t.equal(refused.body.code, 'unauthorized')

  const c = await nodeOn(t, nats)
  const second = await ownerSignIn(c.url)
  const count = await call(c.url, '/cli/sessions.count', { token: second, body: { projectId: project.id } })
  t.same(count.body, { count: 3 }, 'a node started empty rebuilds the sessions (the two above and the live one)')
  const raw = await callRaw(c.url, '/cli/sessions.chunk', second, { projectId: project.id, sessionKey: 's1', seq: 1 })
  t.equal(Buffer.compare(raw.bytes, Buffer.from(chunk)), 0, 'and their bytes')
  const rebuilt = await call(c.url, '/cli/elements.top', { token: second, body: { projectId: project.id, page: 'shop.test/cart' } })
  t.same(rebuilt.body.elements, top.body.elements, 'and the same leaderboard')
})

/** Signs the owner in on `url` and makes a fresh key there (the first one was revoked). */
async function ownerSignIn(url: string): Promise<string> {
  const login = await fetch(`${url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@acme.test', password: 'correct horse battery' }) })
  if (login.status !== 200) throw new Error(`login answered ${login.status}: ${await login.text()}`)
  const cookie = login.headers.get('set-cookie')!.split(';')[0]
  const csrf = ((await login.json()) as { csrfToken: string }).csrfToken
  const created = await fetch(`${url}/api/v1/cli/keys.create`, { method: 'POST', headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': csrf }, body: JSON.stringify({}) })
  return ((await created.json()) as { apiKey: string }).apiKey
}

t.test('npm run admin beside a node goes through the log: its key works on every node', async (t) => {
  const nats = await natsCluster(t)
  const a = await nodeOn(t, nats)
  const b = await nodeOn(t, nats)
  const run = await adminOn(a.dataDir, nats.env(), ['create-key', '--org', 'Acme', '--email', 'ops@acme.test'])
  t.equal(run.code, 0, run.stderr)
  const { apiKey } = JSON.parse(run.stdout) as { apiKey: string }
  for (const node of [a, b]) {
    const whoami = await call(node.url, '/cli/whoami', { token: apiKey })
    t.equal(whoami.status, 200, `the admin's key works on ${node === a ? 'A' : 'B'}`)
  }
  // Two operators name one new organisation at once, on two nodes: the log's order decides, so there is one.
  const [onA, onB] = await Promise.all([
    adminOn(a.dataDir, nats.env(), ['create-key', '--org', 'Globex', '--email', 'one@globex.test']),
    adminOn(b.dataDir, nats.env(), ['create-key', '--org', 'Globex', '--email', 'two@globex.test']),
  ])
  t.equal(onA.code, 0, onA.stderr)
  t.equal(onB.code, 0, onB.stderr)
  const orgOf = async (url: string, run: { stdout: string }) => (await call(url, '/cli/whoami', { token: (JSON.parse(run.stdout) as { apiKey: string }).apiKey })).body.orgId
  const orgIds = new Set([await orgOf(a.url, onA), await orgOf(b.url, onB), await orgOf(b.url, onA), await orgOf(a.url, onB)])
  t.equal(orgIds.size, 1, 'both keys belong to one organisation Globex, as every node sees it')
  const stopped = await adminOn(tempDataDir(), nats.env(), ['create-key', '--org', 'Acme', '--email', 'x@acme.test'], { NATS_DEADLINE_MS: '1000' })
  t.equal(stopped.code, 1, 'with no node applying the log on its DATA_DIR, admin says so rather than hang')
  t.match(stopped.stderr, /has not applied it/)
})

/** `natsEnv`: NATS_URL and the node user's credentials and CA, as a service node on the machine has them, and its layout (nodeOn's). */
function adminOn(dataDir: string, natsEnv: Record<string, string>, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(DIST, 'admin.js'), ...args], { env: { ...process.env, DATA_DIR: dataDir, ...natsEnv, NATS_PARTITIONS: '2', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('exit', (code) => resolve({ code, stdout, stderr }))
  })
}
