/**
 * Login CSRF at the HTTP level: the operations that set a session cookie
 * without a credential take JSON only, and only from this service's own
 * origin or from no browser at all (the browser case: test/dashboard/login-csrf.test.ts).
 */
import t from 'tap'
import { clusterFor } from '../helpers/cluster.js'

const OWNER = { orgName: 'Acme', email: 'owner@acme.test', password: 'correct horse battery' }
const LOGIN = { email: OWNER.email, password: OWNER.password }

async function post(url: string, route: string, body: string, headers: Record<string, string>) {
  const res = await fetch(`${url}/api/v1${route}`, { method: 'POST', headers, body })
  return { status: res.status, cookie: res.headers.get('set-cookie'), body: await res.json() }
}

t.test('set-up, sign-in and accept-invite refuse forms and other origins, and take JSON from the own origin or from no browser', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const json = { 'content-type': 'application/json' }
  const form = (body: unknown) => `${JSON.stringify(body).slice(0, -1)},"z":"=x"}`

  const plainSetup = await post(cluster.url, '/auth/setup', form(OWNER), { 'content-type': 'text/plain' })
  t.same([plainSetup.status, plainSetup.body.code, plainSetup.cookie], [400, 'invalid_request', null], 'a text/plain set-up is refused (a form can send nothing else that parses)')
  const crossSetup = await post(cluster.url, '/auth/setup', JSON.stringify(OWNER), { ...json, origin: 'http://evil.test' })
  t.same([crossSetup.status, crossSetup.body.code], [401, 'unauthorized'], 'a set-up from another origin is refused')
  const setup = await post(cluster.url, '/auth/setup', JSON.stringify(OWNER), { ...json, origin: cluster.url })
  t.equal(setup.status, 200, 'the own origin sets up')

  const cases: Array<[string, Record<string, string>, number, string | undefined]> = [
    ['text/plain, no origin', { 'content-type': 'text/plain' }, 400, 'invalid_request'],
    ['urlencoded, own origin', { 'content-type': 'application/x-www-form-urlencoded', origin: cluster.url }, 400, 'invalid_request'],
    ['no content type', {}, 400, 'invalid_request'],
    ['JSON from another origin', { ...json, origin: 'http://127.0.0.1:1' }, 401, 'unauthorized'],
    ['JSON from an opaque origin', { ...json, origin: 'null' }, 401, 'unauthorized'],
    ['JSON, cross-site fetch metadata without Origin', { ...json, 'sec-fetch-site': 'cross-site' }, 401, 'unauthorized'],
    ['JSON, same-site (another port) metadata without Origin', { ...json, 'sec-fetch-site': 'same-site' }, 401, 'unauthorized'],
    ['JSON from the own origin', { ...json, origin: cluster.url }, 200, undefined],
    ['JSON from the own origin by its Host', { 'content-type': 'application/json; charset=utf-8', origin: cluster.url.replace('127.0.0.1', 'localhost') }, 200, undefined],
    ['JSON, same-origin metadata', { ...json, 'sec-fetch-site': 'same-origin' }, 200, undefined],
    ['JSON without Origin or metadata (CLI, curl)', json, 200, undefined],
  ]
  for (const [name, headers, status, code] of cases) {
    const url = name.includes('by its Host') ? cluster.url.replace('127.0.0.1', 'localhost') : cluster.url
    const answer = await post(url, '/auth/login', JSON.stringify(LOGIN), headers)
    t.same([answer.status, answer.body.code], [status, code], `sign-in: ${name}`)
    t.equal(answer.cookie !== null, status === 200, `sign-in: ${name}: a cookie only when accepted`)
  }

  const cookie = (await post(cluster.url, '/auth/login', JSON.stringify(LOGIN), json)).cookie!.split(';')[0]
  const state = await (await fetch(`${cluster.url}/api/v1/auth/state`, { headers: { cookie } })).json()
  const invite = await post(cluster.url, '/auth/invite', '{}', { ...json, cookie, 'x-csrf-token': state.csrfToken })
  const token = invite.body.inviteUrl.split('/invite/')[1]
  const joiner = { token, email: 'second@acme.test', password: 'another long password' }
  const plainJoin = await post(cluster.url, '/auth/accept-invite', form(joiner), { 'content-type': 'text/plain', origin: 'http://evil.test' })
  t.same([plainJoin.status, plainJoin.body.code], [400, 'invalid_request'], 'accept-invite: a form is refused')
  const crossJoin = await post(cluster.url, '/auth/accept-invite', JSON.stringify(joiner), { ...json, origin: 'http://evil.test' })
  t.same([crossJoin.status, crossJoin.body.code], [401, 'unauthorized'], 'accept-invite: another origin is refused')
  const join = await post(cluster.url, '/auth/accept-invite', JSON.stringify(joiner), { ...json, origin: cluster.url })
  t.equal(join.status, 200, 'and neither refusal used the link up')
})
