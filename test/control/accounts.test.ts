import t from 'tap'
import { clusterFor } from '../helpers/cluster.js'
import { seedProject } from '../helpers/seed.js'

interface Browser {
  cookie?: string
  csrf?: string
}

async function post(url: string, route: string, body: unknown, browser: Browser = {}, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...extra }
  if (browser.cookie) headers.cookie = browser.cookie
  if (browser.csrf) headers['x-csrf-token'] = browser.csrf
  const res = await fetch(`${url}/api/v1${route}`, { method: 'POST', headers, body: JSON.stringify(body) })
  return { status: res.status, headers: res.headers, body: await res.json() }
}

function signedIn(answer: { headers: Headers; body: any }): Browser {
  const cookie = answer.headers.get('set-cookie')!.split(';')[0]
  return { cookie, csrf: answer.body.csrfToken }
}

t.test('first run, sign-in, CSRF, sign-out and invites', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const state0 = await (await fetch(`${cluster.url}/api/v1/auth/state`)).json()
  t.same(state0, { firstRun: true, signedIn: false }, 'an empty deployment offers the first-run set-up')

  const weak = await post(cluster.url, '/auth/setup', { orgName: 'Acme', email: 'owner@acme.test', password: 'short' })
  t.same([weak.status, weak.body.code], [400, 'invalid_request'])
  const setup = await post(cluster.url, '/auth/setup', { orgName: 'Acme', email: 'Owner@Acme.test', password: 'correct horse battery' })
  t.equal(setup.status, 200)
  t.match(setup.body.user, { email: 'owner@acme.test', orgName: 'Acme' })
  const cookieHeader = setup.headers.get('set-cookie')!
  t.match(cookieHeader, /^svc_session=svc_ds_[0-9a-f]{12}_[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=604800$/, 'HttpOnly, SameSite, expiring, not Secure over http')
  const again = await post(cluster.url, '/auth/setup', { orgName: 'Evil', email: 'evil@evil.test', password: 'correct horse battery' })
  t.same([again.status, again.body.code], [400, 'invalid_request'], 'afterwards sign-in only')
  const secureSetup = await post(cluster.url, '/auth/login', { email: 'owner@acme.test', password: 'correct horse battery' }, {}, { 'x-forwarded-proto': 'https' })
  t.match(secureSetup.headers.get('set-cookie'), /; Secure$/, 'Secure when served over https')

  const owner = signedIn(setup)
  const state = await (await fetch(`${cluster.url}/api/v1/auth/state`, { headers: { cookie: owner.cookie! } })).json()
  t.match(state, { firstRun: false, signedIn: true, user: { email: 'owner@acme.test' }, csrfToken: owner.csrf })

  // The dashboard calls the documented operations with its cookie; every change needs the CSRF token.
  const noToken = await post(cluster.url, '/cli/projects.create', { name: 'Site' }, { cookie: owner.cookie })
  t.same([noToken.status, noToken.body.code], [401, 'unauthorized'], 'CSRF rejection without the token')
  const wrongToken = await post(cluster.url, '/cli/projects.create', { name: 'Site' }, { cookie: owner.cookie, csrf: 'f'.repeat(64) })
  t.same([wrongToken.status, wrongToken.body.code], [401, 'unauthorized'], 'CSRF rejection with a wrong token')
  const created = await post(cluster.url, '/cli/projects.create', { name: 'Site' }, owner)
  t.equal(created.status, 200)
  t.match(created.body.project.publicKey, /^svc_pk_/)
  const setupRoute = await post(cluster.url, '/setup/whoami', {}, owner)
  t.same([setupRoute.status, setupRoute.body.code], [401, 'unauthorized'], 'a dashboard session is not a setup token')

  // Wrong passwords: the same answer whether the email exists or not (throttling: test/control/login-throttle.test.ts).
  const unknown = await post(cluster.url, '/auth/login', { email: 'nobody@acme.test', password: 'whatever whatever' })
  const wrong = await post(cluster.url, '/auth/login', { email: 'owner@acme.test', password: 'wrong password!!' })
  t.same([unknown.status, wrong.status], [401, 401])
  t.same(unknown.body, wrong.body, 'nothing tells whether the email exists')

  // Invites: a one-time link into the same organisation.
  const invite = await post(cluster.url, '/auth/invite', {}, owner)
  t.equal(invite.status, 200)
  const token = invite.body.inviteUrl.split('/invite/')[1]
  t.match(token, /^svc_iv_/)
  const joined = await post(cluster.url, '/auth/accept-invite', { token, email: 'second@acme.test', password: 'another long password' })
  t.equal(joined.status, 200)
  t.equal(joined.body.user.orgId, setup.body.user.orgId)
  const twice = await post(cluster.url, '/auth/accept-invite', { token, email: 'third@acme.test', password: 'another long password' })
  t.same([twice.status, twice.body.code], [401, 'unauthorized'], 'the link works once')
  const second = signedIn(joined)
  const list = await post(cluster.url, '/cli/projects.list', {}, second)
  t.same(list.body.projects.map((p: { name: string }) => p.name), ['Site'], 'the invitee sees the organisation\'s projects')

  // Sign-out ends the session on the server: the old cookie no longer works.
  const outNoToken = await post(cluster.url, '/auth/logout', {}, { cookie: owner.cookie })
  t.same([outNoToken.status, outNoToken.body.code], [401, 'unauthorized'])
  const out = await post(cluster.url, '/auth/logout', {}, owner)
  t.same([out.status, out.body], [200, { ok: true }])
  t.match(out.headers.get('set-cookie'), /Max-Age=0/)
  const after = await post(cluster.url, '/cli/projects.list', {}, owner)
  t.same([after.status, after.body.code], [401, 'unauthorized'])
})

t.test('invites are listed with their status, and an unused one can be revoked, within the organisation only', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const owner = signedIn(await post(cluster.url, '/auth/setup', { orgName: 'Acme', email: 'owner@acme.test', password: 'correct horse battery' }))
  const make = async () => (await post(cluster.url, '/auth/invite', {}, owner)).body as { inviteId: string; inviteUrl: string }
  const used = await make()
  const revoked = await make()
  const pending = await make()
  t.match(used.inviteId, /^[0-9a-f]{12}$/)
  t.ok(used.inviteUrl.includes(used.inviteId), 'the id is the public part of the link; its secret part is only in the link')
  const joined = await post(cluster.url, '/auth/accept-invite', { token: used.inviteUrl.split('/invite/')[1], email: 'second@acme.test', password: 'another long password' })
  t.equal(joined.status, 200)

  const revoke = await post(cluster.url, '/auth/invites.revoke', { inviteId: revoked.inviteId }, owner)
  t.same([revoke.status, revoke.body], [200, { ok: true }])
  const refused = await post(cluster.url, '/auth/accept-invite', { token: revoked.inviteUrl.split('/invite/')[1], email: 'third@acme.test', password: 'another long password' })
  t.same([refused.status, refused.body.code], [401, 'unauthorized'], 'a revoked link lets no one in')
  const revokeAgain = await post(cluster.url, '/auth/invites.revoke', { inviteId: revoked.inviteId }, owner)
  t.same([revokeAgain.status, revokeAgain.body], [200, { ok: true }], 'revoking twice is not an error')
  const revokeUsed = await post(cluster.url, '/auth/invites.revoke', { inviteId: used.inviteId }, owner)
  t.same([revokeUsed.status, revokeUsed.body.code], [400, 'invalid_request'], 'a used link has nothing to revoke')
  t.match(revokeUsed.body.error, /already used/)

  const list = await post(cluster.url, '/auth/invites.list', {}, owner)
  t.equal(list.status, 200)
  t.same(
    list.body.invites.map((i: any) => [i.inviteId, i.status, i.invitedBy]),
    [
      [pending.inviteId, 'pending', 'owner@acme.test'],
      [revoked.inviteId, 'revoked', 'owner@acme.test'],
      [used.inviteId, 'used', 'owner@acme.test'],
    ],
    'newest first, each with its status and who created it',
  )
  t.ok(list.body.invites.every((i: any) => !('inviteUrl' in i) && !JSON.stringify(i).includes('svc_iv_')), 'no link, no secret')
  t.type(list.body.invites[1].revokedAt, 'number')
  t.type(list.body.invites[2].usedAt, 'number')

  // Another organisation neither sees nor revokes them: its API key gets 404, as for an id that does not exist.
  const other = await seedProject(cluster.dataDir, 'Other', 'x@other.test')
  const bearer = { authorization: `Bearer ${other.apiKey}` }
  const otherList = await post(cluster.url, '/auth/invites.list', {}, {}, bearer)
  t.same([otherList.status, otherList.body], [200, { invites: [] }])
  const otherRevoke = await post(cluster.url, '/auth/invites.revoke', { inviteId: pending.inviteId }, {}, bearer)
  t.same([otherRevoke.status, otherRevoke.body.code], [404, 'not_found'])
  const missing = await post(cluster.url, '/auth/invites.revoke', { inviteId: 'ffffffffffff' }, owner)
  t.same([missing.status, missing.body.code], [404, 'not_found'])
  const bad = await post(cluster.url, '/auth/invites.revoke', {}, owner)
  t.same([bad.status, bad.body.code], [400, 'invalid_request'])
  const noCsrf = await post(cluster.url, '/auth/invites.revoke', { inviteId: pending.inviteId }, { cookie: owner.cookie })
  t.same([noCsrf.status, noCsrf.body.code], [401, 'unauthorized'], 'revoking is a change: it needs the CSRF token')
  const stillPending = await post(cluster.url, '/auth/invites.list', {}, owner)
  t.equal(stillPending.body.invites[0].status, 'pending', 'and nothing else revoked it')
})
