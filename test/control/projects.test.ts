import t from 'tap'
import { call, ingestChunk } from '../helpers/api.js'
import { sharedCluster } from '../helpers/cluster.js'
import { seedProject } from '../helpers/seed.js'

t.test('project operations through an API key', async (t) => {
  const cluster = await sharedCluster({ workers: 1 })
  const { apiKey, orgId, userId } = await seedProject(cluster.dataDir, 'Projects Org', 'owner@projects.test')

  t.test('whoami names the organisation and the user', async (t) => {
    const res = await call(cluster.url, '/cli/whoami', { token: apiKey })
    t.equal(res.status, 200)
    t.same(res.body, { orgId, userId, label: 'test' })
  })

  t.test('create returns an opaque id, a public key, createdAt, and rules', async (t) => {
    const before = Date.now()
    const res = await call(cluster.url, '/cli/projects.create', { token: apiKey, body: { name: 'Shop', domain: 'Shop.Example.com', pathRules: ['/{tenant}/settings/*'] } })
    t.equal(res.status, 200)
    const p = res.body.project
    t.match(p.id, /^prj_[0-9a-f]+$/)
    t.match(p.publicKey, /^svc_pk_[0-9a-f]+$/)
    t.equal(p.name, 'Shop')
    t.equal(p.domain, 'shop.example.com')
    t.equal(p.sessionCount, 0)
    t.ok(p.createdAt >= before && p.createdAt <= Date.now())
    t.same(p.pathRules, ['/{tenant}/settings/*'])
    const list = await call(cluster.url, '/cli/projects.list', { token: apiKey })
    t.equal(list.status, 200)
    t.ok(list.body.projects.some((q: { id: string }) => q.id === p.id))
  })

  t.test('create without a name is 400 invalid_request saying what failed', async (t) => {
    for (const body of [{}, { name: '' }, { name: '   ' }, { name: 42 }, { name: 'x', pathRules: 'nope' }]) {
      const res = await call(cluster.url, '/cli/projects.create', { token: apiKey, body })
      t.equal(res.status, 400, JSON.stringify(body))
      t.equal(res.body.code, 'invalid_request')
      t.match(res.body.error, /name|pathRules/)
    }
  })

  t.test('a body that is not JSON is 400 invalid_request', async (t) => {
    const res = await fetch(`${cluster.url}/api/v1/cli/projects.create`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: '{"name":' })
    t.equal(res.status, 400)
    t.equal((await res.json()).code, 'invalid_request')
  })

  t.test('path-rules replaces the whole list and keeps patterns that do not compile', async (t) => {
    const created = (await call(cluster.url, '/cli/projects.create', { token: apiKey, body: { name: 'Rules', pathRules: ['/a/*', '/b/*'] } })).body.project
    const res = await call(cluster.url, '/cli/projects.path-rules', { token: apiKey, body: { projectId: created.id, rules: ['/{tenant}/x', 'no-slash{'] } })
    t.equal(res.status, 200)
    t.same(res.body.project.pathRules, ['/{tenant}/x', 'no-slash{'])
    const empty = await call(cluster.url, '/cli/projects.path-rules', { token: apiKey, body: { projectId: created.id, rules: [] } })
    t.equal(empty.status, 400)
    t.equal(empty.body.code, 'invalid_request')
    const missing = await call(cluster.url, '/cli/projects.path-rules', { token: apiKey, body: { rules: ['/a'] } })
    t.equal(missing.status, 400)
    t.equal(missing.body.code, 'invalid_request')
    const unknown = await call(cluster.url, '/cli/projects.path-rules', { token: apiKey, body: { projectId: 'prj_doesnotexist', rules: ['/a'] } })
    t.equal(unknown.status, 404)
    t.equal(unknown.body.code, 'not_found')
  })

  t.test('sessionCount moves off zero when the ingest path records a session', async (t) => {
    const created = (await call(cluster.url, '/cli/projects.create', { token: apiKey, body: { name: 'Live' } })).body.project
    const count0 = await call(cluster.url, '/cli/sessions.count', { token: apiKey, body: { projectId: created.id } })
    t.same([count0.status, count0.body], [200, { count: 0 }])
    t.equal(await ingestChunk(cluster.url, created.publicKey, 'live-1'), 200)
    t.equal(await ingestChunk(cluster.url, created.publicKey, 'live-1', 1), 200)
    t.equal(await ingestChunk(cluster.url, created.publicKey, 'live-2'), 200)
    const count = await call(cluster.url, '/cli/sessions.count', { token: apiKey, body: { projectId: created.id } })
    t.same([count.status, count.body], [200, { count: 2 }])
    const list = await call(cluster.url, '/cli/projects.list', { token: apiKey })
    t.equal(list.body.projects.find((p: { id: string }) => p.id === created.id).sessionCount, 2)
  })

  t.test('sessions.count validates its body and 404s an unknown project', async (t) => {
    const bad = await call(cluster.url, '/cli/sessions.count', { token: apiKey, body: { projectId: 7 } })
    t.same([bad.status, bad.body.code], [400, 'invalid_request'])
    const none = await call(cluster.url, '/cli/sessions.count', { token: apiKey })
    t.same([none.status, none.body.code], [400, 'invalid_request'])
    const unknown = await call(cluster.url, '/cli/sessions.count', { token: apiKey, body: { projectId: 'prj_000000000000000000000000' } })
    t.same([unknown.status, unknown.body.code], [404, 'not_found'])
  })

  t.test('the direct form /api/... serves the same operations', async (t) => {
    const res = await call(cluster.url, '/cli/whoami', { token: apiKey, prefix: '/api' })
    t.equal(res.status, 200)
    t.equal(res.body.orgId, orgId)
  })

  t.test('an unknown operation is 404 not_found JSON', async (t) => {
    const res = await call(cluster.url, '/cli/projects.delete-everything', { token: apiKey, body: {} })
    t.same([res.status, res.body.code], [404, 'not_found'])
  })
})

t.test('an organisation never sees, counts, changes or learns of another one\'s project', async (t) => {
  const cluster = await sharedCluster({ workers: 1 })
  const a = await seedProject(cluster.dataDir, 'Org A', 'a@a.test')
  const b = await seedProject(cluster.dataDir, 'Org B', 'b@b.test')
  const listA = await call(cluster.url, '/cli/projects.list', { token: a.apiKey })
  t.same(listA.body.projects.map((p: { id: string }) => p.id), [a.project.id])
  const nonexistent = await call(cluster.url, '/cli/sessions.count', { token: a.apiKey, body: { projectId: 'prj_ffffffffffffffffffffffff' } })
  const routes: [string, Record<string, unknown>][] = [
    ['/cli/sessions.count', { projectId: b.project.id }],
    ['/cli/projects.path-rules', { projectId: b.project.id, rules: ['/{x}/*'] }],
    ['/cli/projects.setup-token', { projectId: b.project.id }],
    ['/cli/projects.setup-token.revoke', { projectId: b.project.id }],
  ]
  for (const [route, body] of routes) {
    const res = await call(cluster.url, route, { token: a.apiKey, body })
    t.equal(res.status, 404, route)
    // Exactly the answer for an id that does not exist: nothing tells the project exists.
    t.same(res.body, nonexistent.body, route)
  }
  const keysOfB = (await call(cluster.url, '/cli/keys.list', { token: b.apiKey })).body.keys
  const revoke = await call(cluster.url, '/cli/keys.revoke', { token: a.apiKey, body: { keyId: keysOfB[0].keyId } })
  t.same([revoke.status, revoke.body.code], [404, 'not_found'])
  const bStill = await call(cluster.url, '/cli/whoami', { token: b.apiKey })
  t.equal(bStill.status, 200, 'B\'s key survives A\'s attempt')
  const bProject = await call(cluster.url, '/cli/projects.list', { token: b.apiKey })
  t.same(bProject.body.projects[0].pathRules, [], 'B\'s rules unchanged')
})

t.test('setup path-rules: backfillNeeded only when pages exist under different rules; a 400 saves nothing', async (t) => {
  const cluster = await sharedCluster({ workers: 1 })
  const seeded = await seedProject(cluster.dataDir, 'Setup Org', 'setup@setup.test')
  const minted = await call(cluster.url, '/cli/projects.setup-token', { token: seeded.apiKey, body: { projectId: seeded.project.id } })
  const token = minted.body.token
  const install = await call(cluster.url, '/setup/path-rules', { token, body: { rules: ['/{tenant}/*'] } })
  t.same(install.body, { ok: true, project: { name: seeded.project.name }, pathRules: ['/{tenant}/*'], backfillNeeded: false }, 'false at install time')
  t.equal(await ingestChunk(cluster.url, seeded.project.publicKey, 'first'), 200)
  const same = await call(cluster.url, '/setup/path-rules', { token, body: { rules: ['/{tenant}/*'] } })
  t.equal(same.body.backfillNeeded, false, 'same rules: nothing to re-key')
  const changed = await call(cluster.url, '/setup/path-rules', { token, body: { rules: ['/docs/*', '/{tenant}/*'] } })
  t.equal(changed.body.backfillNeeded, true, 'pages exist under the previous rules')

  const refused = await call(cluster.url, '/setup/path-rules', { token, body: { rules: ['/ok/*', 'no-slash', '/{a}/{a}'] } })
  t.same([refused.status, refused.body.code], [400, 'invalid_request'])
  t.same(refused.body.invalid, ['no-slash', '/{a}/{a}'])
  for (const body of [{}, { rules: [] }, { rules: 'x' }, { rules: [1] }]) {
    const res = await call(cluster.url, '/setup/path-rules', { token, body })
    t.same([res.status, res.body.code], [400, 'invalid_request'], JSON.stringify(body))
  }
  const whoami = await call(cluster.url, '/setup/whoami', { token })
  t.same(whoami.body.project.pathRules, ['/docs/*', '/{tenant}/*'], 'the project kept its previous rules')
  t.equal(whoami.body.project.sessionCount, 1)
})
