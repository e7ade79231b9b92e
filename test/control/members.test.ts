/**
 * Members over the API: who belongs, removing one (which undoes every
 * credential they held, at once), changing one's own password, signing out
 * everywhere, who may create invites, and accept-invite never telling a
 * taken email from a free one while a link is usable.
 */
import t from 'tap'
import { clusterFor } from '../helpers/cluster.js'
import { seedProject, storeAt } from '../helpers/seed.js'

const PASSWORD = 'correct horse battery'
const json = { 'content-type': 'application/json' }

interface Caller {
  cookie?: string
  csrf?: string
  key?: string
}

async function post(url: string, route: string, body: unknown, who: Caller = {}) {
  const headers: Record<string, string> = { ...json }
  if (who.cookie) headers.cookie = who.cookie
  if (who.csrf) headers['x-csrf-token'] = who.csrf
  if (who.key) headers.authorization = `Bearer ${who.key}`
  const res = await fetch(`${url}/api/v1${route}`, { method: 'POST', headers, body: JSON.stringify(body) })
  return { status: res.status, headers: res.headers, body: await res.json() }
}

function session(answer: { headers: Headers; body: any }): Caller {
  return { cookie: answer.headers.get('set-cookie')!.split(';')[0], csrf: answer.body.csrfToken }
}

async function join(url: string, inviter: Caller, email: string): Promise<Caller & { userId: string }> {
  const invite = await post(url, '/auth/invite', {}, inviter)
  const joined = await post(url, '/auth/accept-invite', { token: invite.body.inviteUrl.split('/invite/')[1], email, password: PASSWORD })
  if (joined.status !== 200) throw new Error(`join failed: ${JSON.stringify(joined.body)}`)
  return { ...session(joined), userId: joined.body.user.userId }
}

t.test('members: listed with who invited them; the owner removes one, which ends their sessions and revokes their keys and invites at once', async (t) => {
  const cluster = await clusterFor(t, { workers: 2 })
  const setup = await post(cluster.url, '/auth/setup', { orgName: 'Acme', email: 'owner@acme.test', password: PASSWORD })
  const owner = session(setup)
  const mallory = await join(cluster.url, owner, 'mallory@acme.test')
  const carol = await join(cluster.url, mallory, 'carol@acme.test')
  const malloryKey = (await post(cluster.url, '/cli/keys.create', { label: 'mallory laptop' }, mallory)).body.apiKey as string
  t.match(malloryKey, /^svc_sk_/)
  const malloryOther = session(await post(cluster.url, '/auth/login', { email: 'mallory@acme.test', password: PASSWORD }))
  const pendingInvite = await post(cluster.url, '/auth/invite', {}, mallory)
  const project = (await post(cluster.url, '/cli/projects.create', { name: 'Site' }, owner)).body.project
  const mallorySetupToken = (await post(cluster.url, '/cli/projects.setup-token', { projectId: project.id }, mallory)).body.token as string
  const ownerSetupToken = (await post(cluster.url, '/cli/projects.setup-token', { projectId: project.id }, owner)).body.token as string
  t.equal((await post(cluster.url, '/setup/whoami', {}, { key: mallorySetupToken })).status, 200, 'the setup token works while they are a member')

  const list = await post(cluster.url, '/auth/members.list', {}, carol)
  t.equal(list.status, 200)
  t.same(
    list.body.members.map((m: any) => [m.email, m.role, m.invitedBy, m.you]),
    [
      ['owner@acme.test', 'owner', null, false],
      ['mallory@acme.test', 'admin', 'owner@acme.test', false],
      ['carol@acme.test', 'admin', 'mallory@acme.test', true],
    ],
    'oldest first, with role, inviter and which one is the caller',
  )
  t.ok(list.body.members.every((m: any) => typeof m.joinedAt === 'number' && typeof m.lastSignInAt === 'number'), 'joined and last sign-in times')

  const byMember = await post(cluster.url, '/auth/members.remove', { userId: carol.userId }, mallory)
  t.same([byMember.status, byMember.body.code], [403, 'forbidden'], 'a member cannot remove anyone')
  const ownerId = setup.body.user.userId
  const self = await post(cluster.url, '/auth/members.remove', { userId: ownerId }, owner)
  t.same([self.status, self.body.code], [400, 'invalid_request'], 'the owner cannot be removed')
  const missing = await post(cluster.url, '/auth/members.remove', { userId: 'usr_nobody' }, owner)
  t.same([missing.status, missing.body.code], [404, 'not_found'])
  const bad = await post(cluster.url, '/auth/members.remove', { userId: 7 }, owner)
  t.same([bad.status, bad.body.code], [400, 'invalid_request'])
  const noCsrf = await post(cluster.url, '/auth/members.remove', { userId: mallory.userId }, { cookie: owner.cookie })
  t.same([noCsrf.status, noCsrf.body.code], [401, 'unauthorized'], 'removing is a change: it needs the CSRF token')
  const other = await seedProject(cluster.dataDir, 'Other', 'x@other.test')
  const foreign = await post(cluster.url, '/auth/members.remove', { userId: mallory.userId }, { key: other.apiKey })
  t.same([foreign.status, foreign.body.code], [404, 'not_found'], 'another organisation\'s owner gets 404, as for a member that does not exist')

  const removed = await post(cluster.url, '/auth/members.remove', { userId: mallory.userId }, owner)
  t.same([removed.status, removed.body], [200, { ok: true, sessionsEnded: 2, keysRevoked: 1, invitesRevoked: 1, setupTokensRevoked: 1 }])
  for (const [name, who] of [['first session', mallory], ['second session', malloryOther], ['API key', { key: malloryKey }]] as const) {
    const after = await post(cluster.url, '/cli/projects.list', {}, who)
    t.same([after.status, after.body.code], [401, 'unauthorized'], `the removed member's ${name} is refused at once`)
  }
  const token = await post(cluster.url, '/setup/whoami', {}, { key: mallorySetupToken })
  t.same([token.status, token.body.code], [401, 'unauthorized'], 'the setup token they minted is revoked with them')
  t.equal((await post(cluster.url, '/setup/whoami', {}, { key: ownerSetupToken })).status, 200, 'the owner\'s setup token still works')
  const signIn = await post(cluster.url, '/auth/login', { email: 'mallory@acme.test', password: PASSWORD })
  t.same([signIn.status, signIn.body.code], [401, 'unauthorized'], 'and they cannot sign in again')
  const invited = await post(cluster.url, '/auth/accept-invite', { token: pendingInvite.body.inviteUrl.split('/invite/')[1], email: 'eve@acme.test', password: PASSWORD })
  t.same([invited.status, invited.body.code], [401, 'unauthorized'], 'their unused invite lets no one in')
  const after = await post(cluster.url, '/auth/members.list', {}, owner)
  t.same(after.body.members.map((m: any) => [m.email, m.invitedBy]), [['owner@acme.test', null], ['carol@acme.test', null]], 'the list no longer has them; who they invited stays')
  const carolStill = await post(cluster.url, '/cli/projects.list', {}, carol)
  t.equal(carolStill.status, 200, 'the others are unaffected')
})

t.test('invites come only from a signed-in member or the owner\'s API key', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const seeded = await seedProject(cluster.dataDir, 'Acme', 'owner@acme.test')
  const ownerKey = await post(cluster.url, '/auth/invite', {}, { key: seeded.apiKey })
  t.equal(ownerKey.status, 200, 'the owner\'s key (the organisation\'s creator) creates an invite')
  const member = await post(cluster.url, '/auth/accept-invite', { token: ownerKey.body.inviteUrl.split('/invite/')[1], email: 'member@acme.test', password: PASSWORD })
  const memberKey = (await post(cluster.url, '/cli/keys.create', {}, session(member))).body.apiKey
  const byKey = await post(cluster.url, '/auth/invite', {}, { key: memberKey })
  t.same([byKey.status, byKey.body.code], [401, 'unauthorized'], 'a member\'s key (a leaked one, say) cannot mint members')
  const bySession = await post(cluster.url, '/auth/invite', {}, session(member))
  t.equal(bySession.status, 200, 'the member signed in can')
  const listed = await post(cluster.url, '/auth/invites.list', {}, { key: seeded.apiKey })
  t.same(listed.body.invites.map((i: any) => [i.status, i.invitedBy]), [['pending', 'member@acme.test'], ['used', 'owner@acme.test']], 'each shown with who created it')
})

t.test('changing one\'s password ends one\'s other sessions; signing out everywhere ends them all', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const here = session(await post(cluster.url, '/auth/setup', { orgName: 'Acme', email: 'owner@acme.test', password: PASSWORD }))
  const there = session(await post(cluster.url, '/auth/login', { email: 'owner@acme.test', password: PASSWORD }))
  const wrong = await post(cluster.url, '/auth/password.change', { currentPassword: 'not the password', newPassword: 'a brand new password' }, here)
  t.same([wrong.status, wrong.body.code], [401, 'unauthorized'], 'the current password is required')
  const weak = await post(cluster.url, '/auth/password.change', { currentPassword: PASSWORD, newPassword: 'short' }, here)
  t.same([weak.status, weak.body.code], [400, 'invalid_request'])
  const changed = await post(cluster.url, '/auth/password.change', { currentPassword: PASSWORD, newPassword: 'a brand new password' }, here)
  t.same([changed.status, changed.body], [200, { ok: true, sessionsEnded: 1 }])
  t.equal((await post(cluster.url, '/cli/projects.list', {}, here)).status, 200, 'the session that changed it stays')
  const ended = await post(cluster.url, '/cli/projects.list', {}, there)
  t.same([ended.status, ended.body.code], [401, 'unauthorized'], 'the other session ended')
  t.equal((await post(cluster.url, '/auth/login', { email: 'owner@acme.test', password: PASSWORD })).status, 401, 'the old password no longer signs in')
  const fresh = session(await post(cluster.url, '/auth/login', { email: 'owner@acme.test', password: 'a brand new password' }))

  const everywhere = await post(cluster.url, '/auth/sessions.end', {}, here)
  t.same([everywhere.status, everywhere.body], [200, { ok: true, sessionsEnded: 2 }])
  t.match(everywhere.headers.get('set-cookie'), /Max-Age=0/, 'the calling browser\'s cookie is cleared too')
  for (const who of [here, fresh]) t.equal((await post(cluster.url, '/cli/projects.list', {}, who)).status, 401, 'every session ended')
})

t.test('accept-invite answers the same for a taken and a free email, and a link answers at most once', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const owner = session(await post(cluster.url, '/auth/setup', { orgName: 'Acme', email: 'owner@acme.test', password: PASSWORD }))
  const link = async () => (await post(cluster.url, '/auth/invite', {}, owner)).body.inviteUrl.split('/invite/')[1] as string
  const accept = (token: string, email: string) => post(cluster.url, '/auth/accept-invite', { token, email, password: PASSWORD })

  // A used, a revoked and a forged link: identical answers whichever email is tried.
  const used = await link()
  await accept(used, 'second@acme.test')
  const revoked = await link()
  const revokedId = (await post(cluster.url, '/auth/invites.list', {}, owner)).body.invites[0].inviteId
  await post(cluster.url, '/auth/invites.revoke', { inviteId: revokedId }, owner)
  for (const token of [used, revoked, `${used.slice(0, -4)}AAAA`]) {
    const taken = await accept(token, 'owner@acme.test')
    const free = await accept(token, 'free@acme.test')
    t.same([taken.status, taken.body.code], [401, 'unauthorized'])
    t.same(free.body, taken.body, 'the same answer for a taken and a free email')
  }

  // A pending link: trying a taken email uses it up, so it cannot be asked about a second email.
  const pending = await link()
  const taken = await accept(pending, 'owner@acme.test')
  t.same([taken.status, taken.body.code], [400, 'invalid_request'], 'a taken email is told, once the link is consumed')
  const next = await accept(pending, 'another@acme.test')
  t.same([next.status, next.body.code], [401, 'unauthorized'], 'the link then answers like any used link')
  const store = storeAt(cluster.dataDir)
  t.notOk(store.findUserByEmail('another@acme.test'), 'and made no account')
})
