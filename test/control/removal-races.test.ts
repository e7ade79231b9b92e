/**
 * Removing a member while they create credentials as fast as they can: keys,
 * invites and setup tokens through dozens of parallel connections, and
 * dashboard sessions through parallel sign-ins. Every credential the service
 * handed out must be refused once the removal has answered, and the store
 * must hold none of theirs that is live (issue 28: 25 keys of 30 connections
 * outlived the removal when creation was not in the removal's transaction).
 */
import t from 'tap'
import { clusterFor } from '../helpers/cluster.js'
import { firstOwner, inviteToken, join, PASSWORD, post, session, type Answer, type Caller } from '../helpers/members.js'
import { storeAt } from '../helpers/seed.js'

/** Parallel creators: each keeps calling until it is refused, so that the calls surround the removal. */
async function flood(creators: number, create: () => Promise<Answer>): Promise<Answer[]> {
  const made: Answer[] = []
  await Promise.all(
    Array.from({ length: creators }, async () => {
      for (let i = 0; i < 200; i++) {
        const answer = await create()
        if (answer.status !== 200) return
        made.push(answer)
      }
    }),
  )
  return made
}

/** Resolves once `made` has `count` entries (the flood is under way), bounded in time. */
async function underWay(made: () => number, count: number): Promise<void> {
  for (const deadline = Date.now() + 20_000; made() < count && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 5))
}

t.test('keys, invites and setup tokens created by 36 connections while the owner removes their member: none outlives the removal', async (t) => {
  const cluster = await clusterFor(t, { workers: 2 })
  const owner = await firstOwner(cluster.url)
  const mallory = await join(cluster.url, owner, 'mallory@acme.test')
  const project = (await post(cluster.url, '/cli/projects.create', { name: 'Site' }, owner)).body.project

  let count = 0
  const counted = (answer: Answer) => ((count += 1), answer)
  const keys = flood(24, async () => counted(await post(cluster.url, '/cli/keys.create', { label: 'race' }, mallory)))
  const invites = flood(6, async () => counted(await post(cluster.url, '/auth/invite', {}, mallory)))
  const tokens = flood(6, async () => counted(await post(cluster.url, '/cli/projects.setup-token', { projectId: project.id }, mallory)))
  await underWay(() => count, 40)
  const removed = await post(cluster.url, '/auth/members.remove', { userId: mallory.userId }, owner)
  t.equal(removed.status, 200)
  const [madeKeys, madeInvites, madeTokens] = await Promise.all([keys, invites, tokens])
  t.ok(madeKeys.length > 0 && madeInvites.length > 0 && madeTokens.length > 0, `created before the removal: ${madeKeys.length} keys, ${madeInvites.length} invites, ${madeTokens.length} setup tokens`)

  const store = storeAt(cluster.dataDir)
  const liveKeys = store.listApiKeys(owner.orgId).filter((k) => k.userId === mallory.userId && !k.revokedAt)
  t.same(liveKeys.map((k) => k.id), [], 'the store holds no live key of theirs')
  const surviving: string[] = []
  for (const answer of madeKeys) {
    const used = await post(cluster.url, '/cli/projects.list', {}, { key: answer.body.apiKey })
    if (used.status !== 401 || used.body.code !== 'unauthorized') surviving.push(`key ${answer.body.keyId}: ${used.status}`)
  }
  for (const [i, answer] of madeInvites.entries()) {
    const accepted = await post(cluster.url, '/auth/accept-invite', { token: inviteToken(answer), email: `eve${i}@acme.test`, password: PASSWORD })
    if (accepted.status !== 401 || accepted.body.code !== 'unauthorized') surviving.push(`invite ${answer.body.inviteId}: ${accepted.status}`)
  }
  for (const answer of madeTokens) {
    const used = await post(cluster.url, '/setup/whoami', {}, { key: answer.body.token })
    if (used.status !== 401 || used.body.code !== 'unauthorized') surviving.push(`setup token: ${used.status}`)
  }
  t.same(surviving, [], 'every credential they were handed is refused')
  t.same((await post(cluster.url, '/auth/members.list', {}, owner)).body.members.map((m: any) => m.email), ['owner@acme.test'], 'no one joined by their links')
})

t.test('sign-ins racing the removal of their account: no session they got survives it, nor mints a key', async (t) => {
  const cluster = await clusterFor(t, { workers: 2 })
  const owner = await firstOwner(cluster.url)
  const mallory = await join(cluster.url, owner, 'mallory@acme.test')

  let count = 0
  const signIns = flood(14, async () => {
    const answer = await post(cluster.url, '/auth/login', { email: 'mallory@acme.test', password: PASSWORD })
    count += 1
    return answer
  })
  await underWay(() => count, 14)
  const removed = await post(cluster.url, '/auth/members.remove', { userId: mallory.userId }, owner)
  t.equal(removed.status, 200)
  const sessions: Caller[] = [mallory, ...(await signIns).map(session)]
  t.ok(sessions.length > 1, `${sessions.length - 1} sign-ins answered before the removal`)

  const surviving: string[] = []
  for (const [i, who] of sessions.entries()) {
    const read = await post(cluster.url, '/cli/projects.list', {}, who)
    const minted = await post(cluster.url, '/cli/keys.create', { label: 'after' }, who)
    if (read.status !== 401 || minted.status !== 401 || minted.body.code !== 'unauthorized') surviving.push(`session ${i}: read ${read.status}, key ${minted.status}`)
  }
  t.same(surviving, [], 'every session is refused, and mints nothing')
  const store = storeAt(cluster.dataDir)
  t.same(store.listApiKeys(owner.orgId).filter((k) => k.userId === mallory.userId), [], 'no key was made for them')
})
