/**
 * Taking an account back: a password set through an operator's sign-in link
 * ends every other session of the account and voids the links handed out
 * before it, so whoever got in cannot stay; and who may revoke whose API key.
 */
import t from 'tap'
import { mintSignInLink } from '../../src/accounts/credentials.js'
import { clusterFor } from '../helpers/cluster.js'
import { firstOwner, join, PASSWORD, post, session, type Caller } from '../helpers/members.js'
import { storeAt } from '../helpers/seed.js'

const NEW_PASSWORD = 'a password nobody else knows'

t.test('a password set by a sign-in link ends every other session of the account and voids the older links', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const owner = await firstOwner(cluster.url)
  const victim = await join(cluster.url, owner, 'victim@acme.test')
  // The intruder knows the password and has signed in twice.
  const intruder = [victim, session(await post(cluster.url, '/auth/login', { email: 'victim@acme.test', password: PASSWORD }))]

  const store = storeAt(cluster.dataDir)
  const user = store.getUser(victim.userId)!
  const first = await mintSignInLink(store, user, cluster.url)
  const second = await mintSignInLink(store, user, cluster.url)
  const tokenOf = (url: string) => url.split('/invite/')[1]
  const older = await post(cluster.url, '/auth/accept-invite', { token: tokenOf(first.url), email: 'victim@acme.test', password: NEW_PASSWORD })
  t.same([older.status, older.body.code], [401, 'unauthorized'], 'a link minted before the newest is void')

  // Sign-ins with the old password race the recovery: none of them may outlive it.
  const racing = Array.from({ length: 6 }, () => post(cluster.url, '/auth/login', { email: 'victim@acme.test', password: PASSWORD }))
  const claimed = await post(cluster.url, '/auth/accept-invite', { token: tokenOf(second.url), email: 'victim@acme.test', password: NEW_PASSWORD })
  t.equal(claimed.status, 200, 'the newest link sets the password')
  const raced = (await Promise.all(racing)).filter((a) => a.status === 200).map(session)

  const surviving: string[] = []
  for (const [i, who] of [...intruder, ...raced].entries()) {
    const read = await post(cluster.url, '/cli/projects.list', {}, who)
    if (read.status !== 401 || read.body.code !== 'unauthorized') surviving.push(`session ${i}: ${read.status}`)
  }
  t.same(surviving, [], `every earlier session is ended (${intruder.length} before, ${raced.length} racing sign-ins that got in)`)
  t.equal((await post(cluster.url, '/cli/projects.list', {}, session(claimed))).status, 200, 'the session the link started works')
  const oldPassword = await post(cluster.url, '/auth/login', { email: 'victim@acme.test', password: PASSWORD })
  t.same([oldPassword.status, oldPassword.body.code], [401, 'unauthorized'], 'the old password no longer signs in')
  const again = await post(cluster.url, '/auth/accept-invite', { token: tokenOf(second.url), email: 'victim@acme.test', password: 'and yet another one' })
  t.same([again.status, again.body.code], [401, 'unauthorized'], 'the link works once')
})

t.test('a member revokes only their own API keys; the owner revokes anyone\'s', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const owner = await firstOwner(cluster.url)
  const member = await join(cluster.url, owner, 'member@acme.test')
  const keyOf = async (who: Caller) => (await post(cluster.url, '/cli/keys.create', { label: 'cli' }, who)).body
  const ownerKey = await keyOf(owner)
  const memberKey = await keyOf(member)
  const memberOther = await keyOf(member)

  const revocable = async (who: Caller) => (await post(cluster.url, '/cli/keys.list', {}, who)).body.keys.map((k: any) => [k.keyId, k.revocable])
  t.same(await revocable(member), [[ownerKey.keyId, false], [memberKey.keyId, true], [memberOther.keyId, true]], 'the list tells a member which keys they may revoke')
  t.same(await revocable(owner), [[ownerKey.keyId, true], [memberKey.keyId, true], [memberOther.keyId, true]], 'and the owner that they may revoke every one')
  for (const who of [member, { key: memberKey.apiKey }]) {
    const refused = await post(cluster.url, '/cli/keys.revoke', { keyId: ownerKey.keyId }, who)
    t.same([refused.status, refused.body.code], [401, 'unauthorized'], 'a member cannot revoke the owner\'s key, signed in or with a key')
  }
  t.equal((await post(cluster.url, '/cli/whoami', {}, { key: ownerKey.apiKey })).status, 200, 'the owner\'s key still works')
  t.equal((await post(cluster.url, '/cli/keys.revoke', { keyId: memberOther.keyId }, member)).status, 200, 'a member revokes their own')
  t.equal((await post(cluster.url, '/cli/keys.revoke', { keyId: memberKey.keyId }, owner)).status, 200, 'the owner revokes a member\'s')
  for (const key of [memberKey, memberOther]) {
    const used = await post(cluster.url, '/cli/whoami', {}, { key: key.apiKey })
    t.same([used.status, used.body.code], [401, 'unauthorized'])
  }
})
