/**
 * Roles (issue 34): every operation of the OpenAPI document called by an
 * owner, an admin and a viewer, each with an API key and the viewer with a
 * signed-in dashboard too, answers exactly as the table below says: 403
 * `forbidden` below the operation's role, anything else at or above it.
 * The table is written out here, not read from the operations' minRole, so
 * that a role changed by mistake fails this test. Then the owner's role
 * operation itself, and what a viewer sees of the keys.
 */
import t from 'tap'
import { clusterFor } from '../helpers/cluster.js'
import { firstOwner, join, post, type Caller } from '../helpers/members.js'

type Role = 'owner' | 'admin' | 'viewer'

/** The least role each operation needs; `anyone`: it takes no member's credential (public, ingest, sign-in, setup tokens). */
const ROLE_TABLE: Record<string, Role | 'anyone'> = {
  // public documents and ingest
  getHealth: 'anyone', getRelease: 'anyone', getTrackerBundle: 'anyone', getCaptureBundle: 'anyone', getCliBundle: 'anyone', getCliRelease: 'anyone',
  getInstallGuide: 'anyone', getAgentSkill: 'anyone', ingestSessionChunk: 'anyone', ingestSignalsBatch: 'anyone', ingestStylesheet: 'anyone', getCaptureSettings: 'anyone', getOpenApiDocument: 'anyone',
  // accounts without a credential, and the setup token's
  getAuthState: 'anyone', createFirstOwner: 'anyone', signIn: 'anyone', signOut: 'anyone', acceptInvite: 'anyone',
  getSetupTokenProject: 'anyone', setSetupPathRules: 'anyone',
  // reading: every role
  getApiKeyIdentity: 'viewer', listProjects: 'viewer', countProjectSessions: 'viewer', getProjectSnippet: 'viewer', getBackfillStatus: 'viewer',
  listSessions: 'viewer', listSessionChunks: 'viewer', getSessionChunk: 'viewer', getSessionEvents: 'viewer', followSession: 'viewer', getProjectStorage: 'viewer',
  getHeatmap: 'viewer', listTopElements: 'viewer', listFriction: 'viewer', listPages: 'viewer', listMembers: 'viewer', getOverview: 'viewer',
  // one's own: a viewer sees and revokes only their own keys, changes their own password, ends their own sessions
  listApiKeys: 'viewer', revokeApiKey: 'viewer', changePassword: 'viewer', signOutEverywhere: 'viewer',
  // changing the organisation's projects, keys and invites
  createProject: 'admin', setProjectPathRules: 'admin', setProjectCapture: 'admin', setProjectRetention: 'admin', backfillProjectPages: 'admin',
  mintSetupToken: 'admin', revokeSetupTokens: 'admin', createApiKey: 'admin', createInvite: 'admin', listInvites: 'admin', revokeInvite: 'admin',
  // erasure
  createErasure: 'admin', getErasure: 'admin', listErasures: 'admin', renameProject: 'admin', deleteProject: 'admin',
  // the owner's alone
  removeMember: 'owner', setMemberRole: 'owner', listAuditLog: 'owner',
}

const RANK: Record<Role, number> = { viewer: 0, admin: 1, owner: 2 }

interface DocumentedOperation {
  path: string
  method: string
  operationId: string
  minRole?: string
}

t.test('roles: every operation of the OpenAPI document, for every role, is refused 403 forbidden exactly below its role in the table', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const owner = await firstOwner(cluster.url)
  const admin = await join(cluster.url, owner, 'admin@acme.test')
  const viewer = await join(cluster.url, owner, 'viewer@acme.test')
  const key = async (who: Caller) => (await post(cluster.url, '/cli/keys.create', { label: 'roles test' }, who)).body.apiKey as string
  const keys: Record<Role, string> = { owner: await key(owner), admin: await key(admin), viewer: await key(viewer) }
  // The viewer's key was made while they were an admin: a key acts with its member's role as it is now.
  const demoted = await post(cluster.url, '/auth/members.role', { userId: viewer.userId, role: 'viewer' }, owner)
  t.same([demoted.status, demoted.body], [200, { ok: true, role: 'viewer' }])

  const document = await (await fetch(`${cluster.url}/openapi.json`)).json()
  const operations: DocumentedOperation[] = []
  for (const [path, methods] of Object.entries<any>(document.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) operations.push({ path, method: method.toUpperCase(), operationId: op.operationId, minRole: op['x-min-role'] })
  }
  t.same(operations.map((o) => o.operationId).sort(), Object.keys(ROLE_TABLE).sort(), 'the table has a row for every documented operation, and no other')

  const callAs = async (op: DocumentedOperation, authorization: Record<string, string>) => {
    const headers: Record<string, string> = { ...authorization, ...(op.method === 'POST' ? { 'content-type': 'application/json' } : {}) }
    // An empty body: the role is checked before the body, so nothing a refused call names is touched, and most allowed ones stop at validation.
    const res = await fetch(`${cluster.url}/api/v1${op.path}`, { method: op.method, headers, body: op.method === 'POST' ? '{}' : undefined })
    const text = await res.text()
    let code: string | undefined
    try {
      code = JSON.parse(text).code
    } catch {
      // a document or a script: no code
    }
    return { status: res.status, code }
  }

  // The dashboard session carries the member's role just as a key does (before the table: sessions.end below ends it).
  const viewerBrowser = { cookie: viewer.cookie!, 'x-csrf-token': viewer.csrf! }
  for (const operationId of ['createApiKey', 'createInvite', 'setProjectCapture', 'listAuditLog']) {
    const op = operations.find((o) => o.operationId === operationId)!
    t.same(await callAs(op, viewerBrowser), { status: 403, code: 'forbidden' }, `a viewer's dashboard session is refused ${operationId}`)
  }
  const op = operations.find((o) => o.operationId === 'listMembers')!
  t.equal((await callAs(op, viewerBrowser)).status, 200, 'and answered what a viewer may read')
  const state = await fetch(`${cluster.url}/api/v1/auth/state`, { headers: { cookie: viewer.cookie! } })
  t.equal((await state.json()).user.role, 'viewer', '/auth/state tells the dashboard the role, which offers only what it allows')

  let refused = 0
  for (const op of operations) {
    const needed = ROLE_TABLE[op.operationId]
    t.equal(op.minRole, needed === 'anyone' ? undefined : needed, `${op.operationId}: the document states its role (x-min-role)`)
    for (const role of ['owner', 'admin', 'viewer'] as const) {
      const answer = await callAs(op, { authorization: `Bearer ${keys[role]}` })
      if (needed !== 'anyone' && RANK[role] < RANK[needed]) {
        refused += 1
        t.same(answer, { status: 403, code: 'forbidden' }, `${op.operationId} refuses a ${role}`)
      } else {
        t.not(answer.status, 403, `${op.operationId} does not refuse a ${role} (${answer.status} ${answer.code ?? ''})`)
      }
    }
  }
  const below = (role: Role) => operations.filter((o) => ROLE_TABLE[o.operationId] !== 'anyone' && RANK[role] < RANK[ROLE_TABLE[o.operationId] as Role]).length
  t.ok(below('viewer') >= 10 && below('admin') >= 3, `the table refuses a viewer and an admin something (${refused} calls refused)`)

})

t.test('roles: the owner sets them, effective at once; nobody else does, and the owner stays owner', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const owner = await firstOwner(cluster.url)
  const admin = await join(cluster.url, owner, 'admin@acme.test')
  const other = await join(cluster.url, owner, 'other@acme.test')
  const adminKey = (await post(cluster.url, '/cli/keys.create', {}, admin)).body.apiKey as string
  const otherKey = (await post(cluster.url, '/cli/keys.create', {}, other)).body.apiKey as string
  const ownerKey = (await post(cluster.url, '/cli/keys.create', {}, owner)).body.apiKey as string

  const members = await post(cluster.url, '/auth/members.list', {}, admin)
  t.same(members.body.members.map((m: any) => [m.email, m.role]), [['owner@acme.test', 'owner'], ['admin@acme.test', 'admin'], ['other@acme.test', 'admin']], 'members join as admins')

  const byAdmin = await post(cluster.url, '/auth/members.role', { userId: other.userId, role: 'viewer' }, admin)
  t.same([byAdmin.status, byAdmin.body.code], [403, 'forbidden'], 'an admin sets no roles')
  const ownerItself = await post(cluster.url, '/auth/members.role', { userId: owner.userId, role: 'viewer' }, owner)
  t.same([ownerItself.status, ownerItself.body.code], [400, 'invalid_request'], 'the owner\'s role is not changed')
  const toOwner = await post(cluster.url, '/auth/members.role', { userId: other.userId, role: 'owner' }, owner)
  t.same([toOwner.status, toOwner.body.code], [400, 'invalid_request'], 'ownership is not handed out as a role')
  const nobody = await post(cluster.url, '/auth/members.role', { userId: 'usr_nobody', role: 'viewer' }, owner)
  t.same([nobody.status, nobody.body.code], [404, 'not_found'])

  t.equal((await post(cluster.url, '/cli/projects.create', { name: 'Before' }, { key: otherKey })).status, 200, 'an admin creates a project')
  t.equal((await post(cluster.url, '/auth/members.role', { userId: other.userId, role: 'viewer' }, owner)).status, 200)
  const after = await post(cluster.url, '/cli/projects.create', { name: 'After' }, { key: otherKey })
  t.same([after.status, after.body.code], [403, 'forbidden'], 'the very next request with the same key is a viewer\'s')
  const keysSeen = await post(cluster.url, '/cli/keys.list', {}, { key: otherKey })
  t.same(keysSeen.body.keys.map((k: any) => k.keyId), [otherKey.split('_')[2]], 'a viewer sees only their own keys')
  const revokeOthers = await post(cluster.url, '/cli/keys.revoke', { keyId: adminKey.split('_')[2] }, { key: otherKey })
  t.same([revokeOthers.status, revokeOthers.body.code], [401, 'unauthorized'], 'and revokes no one else\'s')
  t.equal((await post(cluster.url, '/cli/keys.list', {}, { key: ownerKey })).body.keys.length, 3, 'the owner sees every key')

  t.equal((await post(cluster.url, '/auth/members.role', { userId: other.userId, role: 'admin' }, owner)).status, 200)
  t.equal((await post(cluster.url, '/cli/projects.create', { name: 'Again' }, { key: otherKey })).status, 200, 'and back to admin, at once too')
})
