/**
 * Per-organisation quotas (MAX_PROJECTS_PER_ORG, MAX_API_KEYS_PER_ORG,
 * MAX_OPEN_INVITES_PER_ORG), held under parallel creators, and the
 * housekeeping that deletes expired sessions, invites and setup tokens when
 * the service starts.
 */
import t from 'tap'
import { clusterFor, startCluster, tempDataDir } from '../helpers/cluster.js'
import { firstOwner, post, type Answer } from '../helpers/members.js'
import { storeAt } from '../helpers/seed.js'

const codes = (answers: Answer[]) => answers.map((a) => `${a.status} ${a.body.code ?? 'ok'}`).sort()

t.test('quotas: parallel creators get exactly the quota, then 409 quota_exceeded; revoking frees a place', async (t) => {
  const cluster = await clusterFor(t, { workers: 2, env: { MAX_PROJECTS_PER_ORG: '3', MAX_API_KEYS_PER_ORG: '3', MAX_OPEN_INVITES_PER_ORG: '2' } })
  const owner = await firstOwner(cluster.url)
  const parallel = (n: number, route: string, body: (i: number) => unknown) => Promise.all(Array.from({ length: n }, (_, i) => post(cluster.url, route, body(i), owner)))

  const projects = await parallel(6, '/cli/projects.create', (i) => ({ name: `Site ${i}` }))
  t.same(codes(projects), ['200 ok', '200 ok', '200 ok', '409 quota_exceeded', '409 quota_exceeded', '409 quota_exceeded'], 'three projects of six')
  t.equal((await post(cluster.url, '/cli/projects.list', {}, owner)).body.projects.length, 3)

  const keys = await parallel(5, '/cli/keys.create', (i) => ({ label: `key ${i}` }))
  t.same(codes(keys), ['200 ok', '200 ok', '200 ok', '409 quota_exceeded', '409 quota_exceeded'], 'three live keys of five')
  const revoked = keys.find((k) => k.status === 200)!.body.keyId
  t.equal((await post(cluster.url, '/cli/keys.revoke', { keyId: revoked }, owner)).status, 200)
  t.equal((await post(cluster.url, '/cli/keys.create', { label: 'after revoke' }, owner)).status, 200, 'a revoked key frees its place')

  const invites = await parallel(4, '/auth/invite', () => ({}))
  t.same(codes(invites), ['200 ok', '200 ok', '409 quota_exceeded', '409 quota_exceeded'], 'two pending invites of four')
  t.equal((await post(cluster.url, '/auth/invites.revoke', { inviteId: invites.find((i) => i.status === 200)!.body.inviteId }, owner)).status, 200)
  t.equal((await post(cluster.url, '/auth/invite', {}, owner)).status, 200, 'a revoked invite frees its place')
})

t.test('expired dashboard sessions, setup tokens and week-old expired invites are purged when the service starts', async (t) => {
  const dataDir = tempDataDir()
  const now = Date.now()
  const day = 24 * 60 * 60 * 1000
  {
    const store = storeAt(dataDir)
    await store.putOrg({ id: 'org_1', name: 'Acme', createdAt: now })
    await store.putUser({ id: 'usr_1', orgId: 'org_1', email: 'owner@acme.test', createdAt: now, passwordHash: 'h', role: 'owner' })
    await store.createProject({ id: 'prj_1', orgId: 'org_1', name: 'Site', domain: null, pathRules: [], publicKey: 'svc_pk_0123456789abcdef', createdAt: now })
    const session = (id: string, expiresAt: number) => ({ id, digestHex: 'd', userId: 'usr_1', orgId: 'org_1', csrfToken: 'c', createdAt: now - 8 * day, expiresAt })
    await store.putDashboardSession(session('ds_expired', now - 1000), 'h')
    await store.putDashboardSession(session('ds_live', now + day), 'h')
    const invite = (id: string, expiresAt: number) => ({ id, digestHex: 'd', orgId: 'org_1', invitedBy: 'usr_1', createdAt: expiresAt - 7 * day, expiresAt })
    await store.putInvite(invite('iv_week_old', now - 8 * day))
    await store.putInvite(invite('iv_recent', now - day))
    const token = (id: string, expiresAt: number) => ({ id, projectId: 'prj_1', digestHex: 'd', createdAt: now - 30 * day, expiresAt })
    await store.putSetupToken(token('st_expired', now - 1000))
    await store.putSetupToken(token('st_live', now + day))
    await store.close()
  }
  const cluster = await startCluster({ workers: 1, dataDir })
  // One teardown, in this order: the directory goes once nothing of the service still writes in it (ENOTEMPTY otherwise).
  t.teardown(async () => {
    await cluster.stop()
    ;(await import('node:fs')).rmSync(dataDir, { recursive: true, force: true })
  })
  const store = storeAt(cluster.dataDir)
  for (const deadline = Date.now() + 20_000; store.getDashboardSession('ds_expired') && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100))
  t.same([store.getDashboardSession('ds_expired'), store.getInvite('iv_week_old'), store.getSetupToken('st_expired')], [undefined, undefined, undefined], 'the expired ones are gone')
  t.ok(store.getDashboardSession('ds_live') && store.getInvite('iv_recent') && store.getSetupToken('st_live'), 'the live ones, and an invite that expired yesterday (still listed as expired), stay')
})
