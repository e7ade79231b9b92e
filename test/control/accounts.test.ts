import t from 'tap'
import { clusterFor } from '../helpers/cluster.js'

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

  // Wrong passwords: the same answer whether the email exists or not, and each failure waits longer.
  const unknown = await post(cluster.url, '/auth/login', { email: 'nobody@acme.test', password: 'whatever whatever' })
  const wrong = await post(cluster.url, '/auth/login', { email: 'owner@acme.test', password: 'wrong password!!' })
  t.same([unknown.status, wrong.status], [401, 401])
  t.same(unknown.body, wrong.body, 'nothing tells whether the email exists')
  const started = Date.now()
  await post(cluster.url, '/auth/login', { email: 'owner@acme.test', password: 'wrong password!!' })
  t.ok(Date.now() - started >= 450, 'the second consecutive failure waits at least 500 ms')

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
