/**
 * The CLI's member commands against a real cluster: `svc members list`,
 * `svc members remove` (the owner's key only) and `svc password` (the current
 * and new password from a pipe), with the server's codes on failure; and the
 * owner's `svc members role` and `svc audit` (issue 34).
 */
import t from 'tap'
import { cliSetup } from '../helpers/cli.js'
import { clusterFor } from '../helpers/cluster.js'

const cluster = await clusterFor(t, { workers: 1 })
const PASSWORD = 'member long password'

async function post(route: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(`${cluster.url}/api/v1${route}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  return { status: res.status, headers: res.headers, body: await res.json() }
}

t.test('members list, password and members remove', async (t) => {
  const { seeded, svc } = await cliSetup(t, cluster)
  const owner = { SVC_API_KEY: seeded.apiKey }
  // A member who joined by the owner's invite, signed in, with an API key of their own.
  const invite = await post('/auth/invite', {}, { authorization: `Bearer ${seeded.apiKey}` })
  const joined = await post('/auth/accept-invite', { token: invite.body.inviteUrl.split('/invite/')[1], email: 'member@cli.test', password: PASSWORD }, {})
  const memberSession = { cookie: joined.headers.get('set-cookie')!.split(';')[0], 'x-csrf-token': joined.body.csrfToken }
  const member = { SVC_API_KEY: (await post('/cli/keys.create', { label: 'cli' }, memberSession)).body.apiKey as string }

  const listed = await svc(['members', 'list', '--json'], { env: owner })
  t.equal(listed.code, 0, listed.stderr)
  t.same(listed.json.members.map((m: any) => [m.email, m.role, m.invitedBy, m.you]), [
    ['owner1@acme.test', 'owner', null, true],
    ['member@cli.test', 'admin', 'owner1@acme.test', false],
  ])
  const human = await svc(['members', 'list'], { env: member })
  t.match(human.stdout, /EMAIL +ROLE +JOINED +LAST SIGN-IN +INVITED BY/, 'a table for people')
  t.match(human.stdout, /member@cli\.test \(you\) +admin/)

  const wrong = await svc(['password', '--json'], { env: member, input: 'not my password\na brand new password\n' })
  t.same([wrong.code, wrong.error.code], [1, 'unauthorized'], 'a wrong current password fails with the server\'s code')
  const short = await svc(['password', '--json'], { env: member, input: `${PASSWORD}\nshort\n` })
  t.same([short.code, short.error.code], [1, 'invalid_request'])
  const missing = await svc(['password', '--json'], { env: member, input: `${PASSWORD}\n` })
  t.same([missing.code, missing.error.code], [2, 'usage'], 'one line only is a usage error')
  const changed = await svc(['password', '--json'], { env: member, input: `${PASSWORD}\na brand new password\n` })
  t.equal(changed.code, 0, changed.stderr)
  t.same(changed.json, { ok: true, sessionsEnded: 1 }, 'the member\'s dashboard session ended')
  t.equal((await post('/cli/projects.list', {}, memberSession)).status, 401)
  t.equal((await post('/auth/login', { email: 'member@cli.test', password: 'a brand new password' }, {})).status, 200, 'the new password signs in')

  const memberId = listed.json.members[1].userId
  const byMember = await svc(['members', 'remove', seeded.userId, '--json'], { env: member })
  t.same([byMember.code, byMember.error.code], [1, 'forbidden'], 'a member\'s key removes no one')
  const usage = await svc(['members', 'remove', '--json'], { env: owner })
  t.same([usage.code, usage.error.code], [2, 'usage'])
  const removed = await svc(['members', 'remove', memberId], { env: owner })
  t.equal(removed.code, 0, removed.stderr)
  t.match(removed.stdout, /Removed usr_\w+: 1 session\(s\) ended, 1 API key\(s\)/)
  const after = await svc(['members', 'list', '--json'], { env: member })
  t.same([after.code, after.error.code], [1, 'unauthorized'], 'the removed member\'s key no longer works')
})

t.test('members role and audit: the owner sets a role and reads the log; a member does neither', async (t) => {
  const { seeded, svc } = await cliSetup(t, cluster)
  const owner = { SVC_API_KEY: seeded.apiKey }
  const invite = await post('/auth/invite', {}, { authorization: `Bearer ${seeded.apiKey}` })
  const joined = await post('/auth/accept-invite', { token: invite.body.inviteUrl.split('/invite/')[1], email: 'viewer@cli.test', password: PASSWORD }, {})
  const memberSession = { cookie: joined.headers.get('set-cookie')!.split(';')[0], 'x-csrf-token': joined.body.csrfToken }
  const member = { SVC_API_KEY: (await post('/cli/keys.create', { label: 'cli' }, memberSession)).body.apiKey as string }
  const memberId = joined.body.user.userId as string

  const bad = await svc(['members', 'role', memberId, 'owner', '--json'], { env: owner })
  t.same([bad.code, bad.error.code], [2, 'usage'], 'a role other than admin or viewer is a usage error, before any request')
  const set = await svc(['members', 'role', memberId, 'viewer'], { env: owner })
  t.equal(set.code, 0, set.stderr)
  t.match(set.stdout, `${memberId} is now viewer`)
  const refused = await svc(['projects', 'create', 'Nope', '--json'], { env: member })
  t.same([refused.code, refused.error.code], [1, 'forbidden'], 'the viewer\'s key creates nothing')
  const byMember = await svc(['members', 'role', seeded.userId, 'viewer', '--json'], { env: member })
  t.same([byMember.code, byMember.error.code], [1, 'forbidden'])

  const ownerEmail = (await post('/auth/members.list', {}, { authorization: `Bearer ${seeded.apiKey}` })).body.members[0].email
  const log = await svc(['audit', '--json'], { env: owner })
  t.equal(log.code, 0, log.stderr)
  t.same(log.json.entries.slice(0, 3).map((e: any) => [e.action, e.actorEmail, e.via]), [
    ['member.role', ownerEmail, 'apiKey'],
    ['key.create', 'viewer@cli.test', 'dashboard'],
    ['invite.accept', 'viewer@cli.test', 'dashboard'],
  ], 'newest first: the role change with the owner\'s key, the member\'s key and joining')
  const page = await svc(['audit', '--limit', '1'], { env: owner })
  t.match(page.stdout, /WHEN \(UTC\) +WHO +ACTION +TARGET/, 'a table for people')
  t.match(page.stdout, /member\.role +usr_\w+ +viewer +apiKey/)
  const older = /svc audit --before (\S+)/.exec(page.stdout)?.[1]
  t.ok(older, 'a full page says how to read on')
  const next = await svc(['audit', '--limit', '1', '--before', older!, '--json'], { env: owner })
  t.equal(next.json.entries[0].action, 'key.create', 'and --before reads the next older entry')
  const notOwner = await svc(['audit', '--json'], { env: member })
  t.same([notOwner.code, notOwner.error.code], [1, 'forbidden'], 'the audit log is the owner\'s to read')
})
