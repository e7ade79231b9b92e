import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import t from 'tap'
import { call } from '../helpers/api.js'
import { clusterFor, DIST, sharedCluster } from '../helpers/cluster.js'
import { seedProject } from '../helpers/seed.js'

/** Every bearer-authenticated operation, with a body that is valid for it. */
function operations(projectId: string, keyId: string, spareProjectId = projectId): { route: string; credential: 'apiKey' | 'setupToken'; body?: unknown }[] {
  return [
    { route: '/cli/whoami', credential: 'apiKey' },
    { route: '/cli/projects.list', credential: 'apiKey' },
    { route: '/cli/projects.create', credential: 'apiKey', body: { name: 'Matrix' } },
    { route: '/cli/projects.path-rules', credential: 'apiKey', body: { projectId, rules: ['/a/*'] } },
    { route: '/cli/sessions.count', credential: 'apiKey', body: { projectId } },
    { route: '/cli/projects.setup-token', credential: 'apiKey', body: { projectId } },
    { route: '/cli/projects.setup-token.revoke', credential: 'apiKey', body: { projectId: spareProjectId } },
    { route: '/cli/keys.list', credential: 'apiKey' },
    { route: '/cli/keys.create', credential: 'apiKey', body: { label: 'm' } },
    { route: '/cli/keys.revoke', credential: 'apiKey', body: { keyId: keyId } },
    { route: '/setup/whoami', credential: 'setupToken' },
    { route: '/setup/path-rules', credential: 'setupToken', body: { rules: ['/{tenant}/*'] } },
  ]
}

function mintToken(dataDir: string, projectId: string, ttl?: string): string {
  const args = [join(DIST, 'admin.js'), 'mint-setup-token', '--project', projectId, ...(ttl ? ['--ttl', ttl] : [])]
  return JSON.parse(execFileSync(process.execPath, args, { env: { ...process.env, DATA_DIR: dataDir } }).toString()).token
}

t.test('every credential kind on every operation: only the right kind succeeds', async (t) => {
  const cluster = await sharedCluster({ workers: 1 })
  const seeded = await seedProject(cluster.dataDir, 'Matrix Org', 'm@matrix.test')
  const setupToken = mintToken(cluster.dataDir, seeded.project.id)
  // A second key to revoke in the keys.revoke row, so the main key survives the matrix.
  const spare = await call(cluster.url, '/cli/keys.create', { token: seeded.apiKey, body: { label: 'spare' } })
  // Likewise a second project whose setup tokens the revoke row revokes.
  const spareProject = await call(cluster.url, '/cli/projects.create', { token: seeded.apiKey, body: { name: 'Spare' } })
  t.equal(spare.status, 200, `spare key: ${JSON.stringify(spare.body)}`)
  t.equal(spareProject.status, 200, `spare project: ${JSON.stringify(spareProject.body)}`)
  if (spareProject.status !== 200) return
  const credentials = {
    none: undefined,
    publicKey: seeded.project.publicKey,
    apiKey: seeded.apiKey,
    setupToken,
  } as const
  for (const op of operations(seeded.project.id, spare.body.keyId, spareProject.body.project.id)) {
    for (const [kind, token] of Object.entries(credentials)) {
      const res = await call(cluster.url, op.route, { token, body: op.body })
      if (kind === op.credential) {
        t.equal(res.status, 200, `${op.route} with its own credential (${kind})`)
      } else {
        t.equal(res.status, 401, `${op.route} refuses ${kind}`)
        t.equal(res.body.code, 'unauthorized', `${op.route} refuses ${kind} with code unauthorized`)
        t.type(res.body.hint, 'string', 'with a hint')
      }
    }
  }
})

t.test('a setup token reaches exactly one project and one field', async (t) => {
  const cluster = await sharedCluster({ workers: 1 })
  const seeded = await seedProject(cluster.dataDir, 'Scoped Org', 's@scoped.test')
  const token = mintToken(cluster.dataDir, seeded.project.id)
  const other = await call(cluster.url, '/cli/projects.create', { token: seeded.apiKey, body: { name: 'Other' } })
  for (const op of operations(other.body.project.id, 'nokey').filter((o) => o.credential === 'apiKey')) {
    const res = await call(cluster.url, op.route, { token, body: op.body })
    t.same([res.status, res.body.code], [401, 'unauthorized'], op.route)
  }
  const whoami = await call(cluster.url, '/setup/whoami', { token })
  t.same(Object.keys(whoami.body.project).sort(), ['domain', 'name', 'pathRules', 'sessionCount'])
  t.equal(whoami.body.project.name, seeded.project.name, 'the token\'s own project, not the other one')
})

t.test('malformed bearer headers are 401 JSON, never 5xx', async (t) => {
  const cluster = await sharedCluster({ workers: 1 })
  const { apiKey } = await seedProject(cluster.dataDir)
  const headers = [
    '',
    'Bearer',
    'Bearer ',
    'Basic dXNlcjpwYXNz',
    `Token ${apiKey}`,
    `Bearer ${apiKey.replace('svc_sk_', 'svc_xx_')}`,
    `Bearer ${apiKey}x`,
    `Bearer ${apiKey.slice(0, -1)}`,
    `Bearer ${'a'.repeat(10 * 1024)}`,
    `Bearer svc_sk_${'0'.repeat(10 * 1024)}`,
    'Bearer svc_sk_\u00e9\u00e9\u00e9',
    `Bearer ${apiKey} ${apiKey}`,
  ]
  for (const authorization of headers) {
    // fetch refuses some header bytes itself; send exactly what a broken client would, byte for byte.
    const res = await rawPost(cluster.port, '/api/v1/cli/whoami', authorization)
    t.equal(res.status, 401, JSON.stringify(authorization.slice(0, 40)))
    t.equal(JSON.parse(res.body).code, 'unauthorized')
  }
  const missing = await call(cluster.url, '/cli/whoami')
  t.same([missing.status, missing.body.code], [401, 'unauthorized'])
})

t.test('a secret in the query string is refused, not accepted', async (t) => {
  const cluster = await sharedCluster({ workers: 1 })
  const { apiKey } = await seedProject(cluster.dataDir)
  for (const query of [`?token=${apiKey}`, `?api_key=${apiKey}`, `?authorization=Bearer%20${apiKey}`]) {
    const res = await fetch(`${cluster.url}/api/v1/cli/whoami${query}`, { method: 'POST' })
    t.equal(res.status, 401, query.split('=')[0])
    t.equal((await res.json()).code, 'unauthorized')
  }
  // Even beside a valid header: a leaked secret in a URL must not work.
  const both = await fetch(`${cluster.url}/api/v1/cli/whoami?token=${apiKey}`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` } })
  t.equal(both.status, 401)
})

t.test('a setup token expires (short TTL) and revocation takes effect at once', async (t) => {
  const cluster = await sharedCluster({ workers: 2 })
  const seeded = await seedProject(cluster.dataDir, 'Expiry Org', 'e@expiry.test')
  // 5 s rather than 1: on a busy machine the admin process that mints it can take a second to exit.
  const short = mintToken(cluster.dataDir, seeded.project.id, '5s')
  const expiredBy = Date.now() + 5_100
  t.equal((await call(cluster.url, '/setup/whoami', { token: short })).status, 200)
  await new Promise((r) => setTimeout(r, Math.max(0, expiredBy - Date.now())))
  const expired = await call(cluster.url, '/setup/whoami', { token: short })
  t.same([expired.status, expired.body.code], [401, 'unauthorized'])
  t.match(expired.body.error, /expired/)

  const minted = await call(cluster.url, '/cli/projects.setup-token', { token: seeded.apiKey, body: { projectId: seeded.project.id } })
  t.match(minted.body.token, /^svc_st_/)
  t.ok(Math.abs(minted.body.expiresAt - (Date.now() + 30 * 86_400_000)) < 60_000, 'expires 30 days after minting')
  const second = await call(cluster.url, '/cli/projects.setup-token', { token: seeded.apiKey, body: { projectId: seeded.project.id } })
  t.equal((await call(cluster.url, '/setup/whoami', { token: minted.body.token })).status, 200, 'minting again leaves older tokens valid')
  const revoke = await call(cluster.url, '/cli/projects.setup-token.revoke', { token: seeded.apiKey, body: { projectId: seeded.project.id } })
  t.same([revoke.status, revoke.body.ok], [200, true])
  t.ok(revoke.body.revoked >= 2)
  for (const token of [minted.body.token, second.body.token]) {
    const res = await call(cluster.url, '/setup/whoami', { token })
    t.same([res.status, res.body.code], [401, 'unauthorized'])
  }

  const key = await call(cluster.url, '/cli/keys.create', { token: seeded.apiKey, body: { label: 'doomed' } })
  t.equal((await call(cluster.url, '/cli/whoami', { token: key.body.apiKey })).status, 200)
  t.same((await call(cluster.url, '/cli/keys.revoke', { token: seeded.apiKey, body: { keyId: key.body.keyId } })).body, { ok: true })
  // The very next request, whichever front process takes it.
  for (let i = 0; i < 6; i++) {
    const res = await call(cluster.url, '/cli/whoami', { token: key.body.apiKey })
    t.same([res.status, res.body.code], [401, 'unauthorized'])
  }
})

t.test('API keys: created once in plaintext, listed masked, with last use', async (t) => {
  const cluster = await sharedCluster({ workers: 1 })
  const seeded = await seedProject(cluster.dataDir, 'Keys Org', 'k@keys.test')
  const created = await call(cluster.url, '/cli/keys.create', { token: seeded.apiKey, body: { label: 'ci' } })
  t.equal(created.status, 200)
  t.match(created.body, { keyId: String, apiKey: /^svc_sk_/, label: 'ci', createdAt: Number })
  await call(cluster.url, '/cli/whoami', { token: created.body.apiKey })
  const list = await call(cluster.url, '/cli/keys.list', { token: seeded.apiKey })
  const row = list.body.keys.find((k: { keyId: string }) => k.keyId === created.body.keyId)
  t.equal(row.masked, `svc_sk_…${created.body.apiKey.slice(-4)}`)
  t.type(row.lastUsedAt, 'number')
  t.notOk(JSON.stringify(list.body).includes(created.body.apiKey), 'no secret in the listing')
  const bad = await call(cluster.url, '/cli/keys.revoke', { token: seeded.apiKey, body: {} })
  t.same([bad.status, bad.body.code], [400, 'invalid_request'])
  const unknown = await call(cluster.url, '/cli/keys.revoke', { token: seeded.apiKey, body: { keyId: 'nope' } })
  t.same([unknown.status, unknown.body.code], [404, 'not_found'])
  const longLabel = await call(cluster.url, '/cli/keys.create', { token: seeded.apiKey, body: { label: 'x'.repeat(500) } })
  t.same([longLabel.status, longLabel.body.code], [400, 'invalid_request'])
})

t.test('no plaintext secret in the LMDB files or in the logs', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const seeded = await seedProject(cluster.dataDir, 'Secret Org', 'x@secret.test')
  const created = await call(cluster.url, '/cli/keys.create', { token: seeded.apiKey, body: { label: 'scan' } })
  const minted = await call(cluster.url, '/cli/projects.setup-token', { token: seeded.apiKey, body: { projectId: seeded.project.id } })
  const adminToken = mintToken(cluster.dataDir, seeded.project.id)
  // Failed attempts too: a secret must not reach the log through an error path.
  await call(cluster.url, '/cli/whoami', { token: `${seeded.apiKey.slice(0, -2)}zz` })
  await fetch(`${cluster.url}/api/v1/cli/whoami?token=${created.body.apiKey}`, { method: 'POST' })
  const secrets = [seeded.apiKey, created.body.apiKey, minted.body.token, adminToken]
  // The random part after `svc_sk_<12 hex id>_`: the secret proper.
  const secretParts = secrets.map((s) => s.slice(20))
  await cluster.stop()
  // Every file of both environments (the aggregates' lives in a subdirectory).
  const files = readdirSync(cluster.dataDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile())
  t.ok(files.length >= 4, 'both environments\' files are read')
  for (const entry of files) {
    const file = join(entry.parentPath ?? entry.path, entry.name)
    const bytes = readFileSync(file)
    for (const part of secretParts) t.equal(bytes.indexOf(part), -1, `${file} does not hold a secret`)
  }
  for (const part of secretParts) t.notOk(cluster.output().includes(part), 'the logs hold no secret')
})

/** POST with an exact Authorization header over a raw socket (fetch validates header bytes itself). */
async function rawPost(port: number, path: string, authorization: string): Promise<{ status: number; body: string }> {
  const { connect } = await import('node:net')
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let data = Buffer.alloc(0)
    socket.on('data', (chunk) => (data = Buffer.concat([data, chunk])))
    socket.on('error', reject)
    socket.on('end', () => {
      const text = data.toString('latin1')
      const [head, ...rest] = text.split('\r\n\r\n')
      const status = Number(head.split(' ')[1])
      let body = rest.join('\r\n\r\n')
      if (/transfer-encoding: chunked/i.test(head)) body = body.replace(/^[0-9a-f]+\r\n/i, '').replace(/\r\n0\r\n\r\n$/, '')
      resolve({ status, body })
    })
    socket.write(Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\nAuthorization: `, 'latin1'), Buffer.from(authorization, 'utf8'), Buffer.from('\r\n\r\n')]))
  })
}
