/**
 * The audit log (issue 34) over the API: each action a member takes is one
 * entry of their organisation's log, with who, how and when; the owner alone
 * reads it, newest first, in pages; re-opening one recording within minutes
 * adds no second entry; and no entry holds anything a tracker recorded.
 */
import t from 'tap'
import { clusterFor } from '../helpers/cluster.js'
import { firstOwner, inviteToken, join, PASSWORD, post, session } from '../helpers/members.js'
import { openMemoryStore } from '../../src/store/memory/index.js'
import { scheduleHousekeeping } from '../../src/accounts/housekeeping.js'

/** What the tracker recorded: none of it may reach the audit log. */
const RECORDED_TEXT = 'card-number-4111-recorded'
const RECORDED_PATH = '/checkout/private-recorded-path'

async function ingest(url: string, pk: string, sk: string): Promise<number> {
  const meta = { sk, vid: `v-${sk}`, seq: 0, pageIndex: 0, url: `https://shop.test${RECORDED_PATH}`, firstTs: Date.now(), lastTs: Date.now(), eventCount: 1, encoding: 'json', startedAt: Date.now() }
  const res = await fetch(`${url}/api/ingest?pk=${pk}`, {
    method: 'POST',
    headers: { 'x-svc-meta': JSON.stringify(meta), 'content-type': 'application/octet-stream' },
    body: JSON.stringify([{ type: 3, timestamp: Date.now(), data: { source: 5, text: RECORDED_TEXT } }]),
  })
  await res.text()
  return res.status
}

t.test('audit log: every kind of action is an entry, newest first, read by the owner alone, paged, with no recorded content', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const owner = await firstOwner(cluster.url)
  const signedIn = await post(cluster.url, '/auth/login', { email: 'owner@acme.test', password: PASSWORD })
  const ownerAgain = session(signedIn)
  const admin = await join(cluster.url, owner, 'admin@acme.test')
  const key = await post(cluster.url, '/cli/keys.create', { label: 'laptop' }, admin)
  await post(cluster.url, '/cli/keys.revoke', { keyId: key.body.keyId }, admin)
  const invite = await post(cluster.url, '/auth/invite', {}, ownerAgain)
  await post(cluster.url, '/auth/invites.revoke', { inviteId: invite.body.inviteId }, ownerAgain)
  const project = (await post(cluster.url, '/cli/projects.create', { name: 'Shop' }, admin)).body.project
  await post(cluster.url, '/cli/projects.path-rules', { projectId: project.id, rules: ['/{team}/*'] }, admin)
  await post(cluster.url, '/cli/projects.capture', { projectId: project.id, capture: { console: true, sampleRate: 0.5 } }, admin)
  const setupToken = (await post(cluster.url, '/cli/projects.setup-token', { projectId: project.id }, admin)).body.token as string
  await post(cluster.url, '/setup/path-rules', { rules: ['/{team}/settings'] }, { key: setupToken })
  t.equal(await ingest(cluster.url, project.publicKey, 'sk-audited'), 200)
  const replay = await post(cluster.url, '/cli/sessions.events', { projectId: project.id, sessionKey: 'sk-audited' }, admin)
  t.equal(replay.status, 200, 'the replay is read')
  t.match(JSON.stringify(replay.body), RECORDED_TEXT, 'and holds what was recorded')
  await post(cluster.url, '/cli/sessions.events', { projectId: project.id, sessionKey: 'sk-audited' }, admin)
  await post(cluster.url, '/auth/members.role', { userId: admin.userId, role: 'viewer' }, owner)
  const gone = await join(cluster.url, owner, 'leaving@acme.test')
  await post(cluster.url, '/auth/members.remove', { userId: gone.userId }, owner)
  await post(cluster.url, '/auth/password.change', { currentPassword: PASSWORD, newPassword: 'another long password' }, ownerAgain)
  const refused = await post(cluster.url, '/cli/projects.create', { name: 'Nope' }, admin)
  t.equal(refused.status, 403, 'a refused call…')

  // The password change ended the owner's other session: the one that changed it reads on.
  const log = await post(cluster.url, '/auth/audit.list', {}, ownerAgain)
  t.equal(log.status, 200)
  // Invites made by the join helper have ids this test does not see: any invite id will do there.
  const target = (e: any) => (e.action === 'invite.create' && /^[0-9a-f]{12}$/.test(e.target) ? 'an invite id' : e.target)
  const rows = (log.body.entries as any[]).map((e) => [e.action, e.actorEmail, e.via, target(e), e.detail])
  t.same(
    rows.reverse(),
    [
      ['org.setup', 'owner@acme.test', 'dashboard', owner.orgId, null],
      ['auth.sign_in', 'owner@acme.test', 'dashboard', null, null],
      ['invite.create', 'owner@acme.test', 'dashboard', 'an invite id', null],
      ['invite.accept', 'admin@acme.test', 'dashboard', admin.userId, null],
      ['key.create', 'admin@acme.test', 'dashboard', key.body.keyId, null],
      ['key.revoke', 'admin@acme.test', 'dashboard', key.body.keyId, null],
      ['invite.create', 'owner@acme.test', 'dashboard', 'an invite id', null],
      ['invite.revoke', 'owner@acme.test', 'dashboard', invite.body.inviteId, null],
      ['project.create', 'admin@acme.test', 'dashboard', project.id, null],
      ['project.path_rules', 'admin@acme.test', 'dashboard', project.id, null],
      ['project.capture', 'admin@acme.test', 'dashboard', project.id, 'console, sampleRate'],
      ['setup_token.mint', 'admin@acme.test', 'dashboard', project.id, null],
      ['project.path_rules', 'admin@acme.test', 'setupToken', project.id, null],
      ['session.replay', 'admin@acme.test', 'dashboard', `${project.id}/sk-audited`, null],
      ['member.role', 'owner@acme.test', 'dashboard', admin.userId, 'viewer'],
      ['invite.create', 'owner@acme.test', 'dashboard', 'an invite id', null],
      ['invite.accept', 'leaving@acme.test', 'dashboard', gone.userId, null],
      ['member.remove', 'owner@acme.test', 'dashboard', gone.userId, null],
      ['auth.password_change', 'owner@acme.test', 'dashboard', null, null],
    ],
    'one entry per action, the replay opened twice once, the refused call none, oldest to newest',
  )
  t.ok(log.body.entries.every((e: any) => typeof e.at === 'number' && e.ip === '127.0.0.1'), 'each with its time and the client\'s address')
  const everything = JSON.stringify(log.body)
  t.notMatch(everything, RECORDED_TEXT, 'no recorded text')
  t.notMatch(everything, RECORDED_PATH, 'no recorded URL')
  t.notMatch(everything, setupToken, 'no secret')

  const paged: string[] = []
  let cursor: string | undefined
  do {
    const page = await post(cluster.url, '/auth/audit.list', { limit: 4, ...(cursor ? { cursor } : {}) }, ownerAgain)
    paged.push(...page.body.entries.map((e: any) => e.id))
    cursor = page.body.nextCursor ?? undefined
  } while (cursor)
  t.same(paged, log.body.entries.map((e: any) => e.id), 'pages of 4 give the same entries in the same order')
  const badCursor = await post(cluster.url, '/auth/audit.list', { cursor: 'not a cursor' }, ownerAgain)
  t.same([badCursor.status, badCursor.body.code], [400, 'invalid_request'])
  // A page is the read's bound: at most 500 entries of bounded records, and no more is asked of the store.
  const tooMany = await post(cluster.url, '/auth/audit.list', { limit: 501 }, ownerAgain)
  t.same([tooMany.status, tooMany.body.code], [400, 'invalid_request'], 'a page past 500 entries is refused')
  t.match(tooMany.body.error, /500/, 'naming the bound')

  const byViewer = await post(cluster.url, '/auth/audit.list', {}, admin)
  t.same([byViewer.status, byViewer.body.code], [403, 'forbidden'], 'a viewer reads no audit log')
  const other = await join(cluster.url, ownerAgain, 'admin2@acme.test')
  const byAdmin = await post(cluster.url, '/auth/audit.list', {}, other)
  t.same([byAdmin.status, byAdmin.body.code], [403, 'forbidden'], 'nor does an admin')
})

t.test('audit log: the hourly housekeeping deletes entries older than AUDIT_RETENTION_DAYS and keeps the rest', async (t) => {
  const store = openMemoryStore()
  const now = Date.UTC(2026, 0, 31)
  const day = 86_400_000
  const entry = (id: string, at: number) => ({ id, orgId: 'org_1', at, via: 'dashboard', action: 'auth.sign_in' })
  await store.appendAudit(entry('aud_old', now - 31 * day))
  await store.appendAudit(entry('aud_new', now - 29 * day))
  const stop = scheduleHousekeeping(store, 30, 3_600_000, () => now)
  t.teardown(stop)
  // The first run starts at once; a few turns of the event loop let its awaits finish.
  for (let i = 0; i < 20 && store.listAudit('org_1', { limit: 10 }).length > 1; i++) await new Promise((resolve) => setImmediate(resolve))
  t.same(store.listAudit('org_1', { limit: 10 }).map((e) => e.id), ['aud_new'])
})
