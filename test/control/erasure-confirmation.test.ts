/**
 * Large erasures need their dry run (issue 42): an admin's erasure of more
 * than ERASURE_CONFIRM_SESSIONS sessions, and an admin's deletion of a
 * project, go through only with the confirmation the dry run answered; the
 * owner needs none; small erasures need none. A confirmation names one
 * request and expires. A search of sessions by user id is audited, as a dry
 * run is. Every refusal with its status and code.
 */
import t from 'tap'
import { CONFIRMATION_TTL_MS, confirmationOf, confirms, ERASURE_CONFIRM_SESSIONS } from '../../src/recordings/erasure-confirmation.js'
import { clusterFor } from '../helpers/cluster.js'
import { firstOwner, join, post } from '../helpers/members.js'
import { postChunk } from '../helpers/read.js'

const KEY = Buffer.alloc(32, 7)
const AT = Date.UTC(2026, 10, 29, 12)

t.test('a confirmation names one request, expires, and cannot be made without the key', async (t) => {
  const token = confirmationOf(KEY, 'er_aaaa', AT)
  t.ok(confirms(KEY, 'er_aaaa', token, AT), 'its own request')
  t.ok(confirms(KEY, 'er_aaaa', token, AT + CONFIRMATION_TTL_MS - 1), 'until it expires')
  t.notOk(confirms(KEY, 'er_aaaa', token, AT + CONFIRMATION_TTL_MS), 'not after')
  t.notOk(confirms(KEY, 'er_bbbb', token, AT), 'not another request')
  t.notOk(confirms(Buffer.alloc(32, 8), 'er_aaaa', token, AT), 'not under another key')
  const [expires, mac] = token.split('.')
  t.notOk(confirms(KEY, 'er_aaaa', `${(parseInt(expires, 36) + 60_000).toString(36)}.${mac}`, AT), 'not with its expiry moved')
  t.notOk(confirms(KEY, 'er_aaaa', `${(AT + 10 * CONFIRMATION_TTL_MS).toString(36)}.${mac}`, AT), 'not one that claims to last longer than any does')
  for (const garbage of [undefined, '', 'x', `${expires}.`, `${expires}.${mac}=`, 'a'.repeat(64)]) t.notOk(confirms(KEY, 'er_aaaa', garbage, AT), `not ${JSON.stringify(garbage)}`)
})

t.test('an admin erases or deletes a project at scale only with the confirmation of the dry run; the owner without', async (t) => {
  const cluster = await clusterFor(t, { workers: 1, env: { COMPACTION_DELAY_MS: String(24 * 60 * 60 * 1000) } })
  const owner = await firstOwner(cluster.url)
  const admin = { key: (await post(cluster.url, '/cli/keys.create', { label: 'admin' }, await join(cluster.url, owner, 'admin@acme.test'))).body.apiKey as string }
  const ownerKey = { key: (await post(cluster.url, '/cli/keys.create', { label: 'owner' }, owner)).body.apiKey as string }
  const made = await post(cluster.url, '/cli/projects.create', { name: 'Shop' }, admin)
  t.equal(made.status, 200)
  const project = made.body.project
  const now = Date.now()
  const body = Buffer.from(JSON.stringify([{ type: 3, timestamp: now, data: { source: 1 } }]))
  const many = ERASURE_CONFIRM_SESSIONS + 2
  for (let n = 0; n < many; n++) {
    const status = await postChunk(cluster.url, project.publicKey, { sk: `s-${n}`, seq: 0, startedAt: now - 60_000, firstTs: now - 60_000, lastTs: now - 1_000, identity: { userId: n < many - 1 ? 'many@shop.test' : 'one@shop.test' } }, body)
    if (status !== 200) t.fail(`chunk ${n} answered ${status}`)
  }
  const erase = (by: unknown, who: { key: string }, more: Record<string, unknown> = {}) => post(cluster.url, '/cli/erasures.create', { projectId: project.id, by, ...more }, who)

  const search = { projectId: project.id, userId: 'many@shop.test', limit: 60 }
  const pages: number[] = []
  const found = new Set<string>()
  let cursor: string | undefined
  do {
    const page = await post(cluster.url, '/cli/sessions.list', { ...search, ...(cursor ? { cursor } : {}) }, admin)
    t.equal(page.status, 200)
    pages.push(page.body.sessions.length)
    for (const session of page.body.sessions as { sessionKey: string }[]) found.add(session.sessionKey)
    cursor = page.body.nextCursor
  } while (cursor && pages.length < 100)
  // A page ends at 60 or at its read budget, whichever comes first: a loaded machine pages in smaller steps.
  t.ok(pages.length >= 2 && pages.every((n) => n <= 60), `a search by user id, paged: ${pages.join(', ')}`)
  t.same([pages.reduce((sum, n) => sum + n, 0), found.size], [many - 1, many - 1], 'every session of that user is found, once')

  const small = await erase({ userId: 'one@shop.test' }, admin)
  t.same([small.status, small.body.dryRun], [200, false], 'an admin erases one session without a dry run')

  const byUser = { userId: 'many@shop.test' }
  const refused = await erase(byUser, admin)
  t.same([refused.status, refused.body.code], [403, 'forbidden'], `an admin's erasure of ${many - 1} sessions without its dry run is refused`)
  t.match(refused.body.hint, /dryRun/, 'and the hint says how to go on')
  const elsewhere = await erase({ query: { from: now - 120_000, until: now } }, admin, { dryRun: true })
  t.equal(elsewhere.body.wouldRemove.sessions, many - 1, 'another request\'s dry run counts its own sessions')
  const borrowed = await erase(byUser, admin, { confirmation: elsewhere.body.confirmation })
  t.same([borrowed.status, borrowed.body.code], [403, 'forbidden'], 'another request\'s confirmation does not do')
  const forged = await erase(byUser, admin, { confirmation: `${(now + 60_000).toString(36)}.${'A'.repeat(22)}` })
  t.same([forged.status, forged.body.code], [403, 'forbidden'], 'nor a made-up one')
  const tooLong = await erase(byUser, admin, { confirmation: 'x'.repeat(65) })
  t.same([tooLong.status, tooLong.body.code], [400, 'invalid_request'], 'a confirmation past 64 characters is not one')
  const dry = await erase(byUser, admin, { dryRun: true })
  t.same([dry.status, dry.body.wouldRemove.sessions, typeof dry.body.confirmation], [200, many - 1, 'string'], 'the dry run counts and answers a confirmation')
  const confirmed = await erase(byUser, admin, { confirmation: dry.body.confirmation })
  t.same([confirmed.status, confirmed.body.dryRun, confirmed.body.erasure.state === undefined], [200, false, false], 'with it, the erasure starts')

  const byOwner = await erase({ query: { from: now - 120_000, until: now } }, ownerKey)
  t.same([byOwner.status, byOwner.body.dryRun], [200, false], 'the owner\'s large erasure needs no confirmation')

  // A project of its own for the deletion: the erasures above are emptying this one.
  const doomed = (await post(cluster.url, '/cli/projects.create', { name: 'Doomed' }, admin)).body.project
  t.equal(await postChunk(cluster.url, doomed.publicKey, { sk: 'd-1', seq: 0, startedAt: now - 60_000, firstTs: now - 60_000, lastTs: now - 1_000 }, body), 200)
  const deleteAsAdmin = await post(cluster.url, '/cli/projects.delete', { projectId: doomed.id }, admin)
  t.same([deleteAsAdmin.status, deleteAsAdmin.body.code], [403, 'forbidden'], 'an admin deletes no project without its dry run')
  const deleteDry = await post(cluster.url, '/cli/projects.delete', { projectId: doomed.id, dryRun: true }, admin)
  t.same([deleteDry.status, deleteDry.body.ok, deleteDry.body.dryRun, typeof deleteDry.body.confirmation], [200, false, true, 'string'], 'its dry run deletes nothing and answers a confirmation')
  t.same([deleteDry.body.wouldRemove.sessions, deleteDry.body.wouldRemove.chunks], [1, 1], 'and counts what would go')
  t.equal((await post(cluster.url, '/cli/projects.list', {}, admin)).body.projects.length, 2, 'the project is still there')
  const deleted = await post(cluster.url, '/cli/projects.delete', { projectId: doomed.id, confirmation: deleteDry.body.confirmation }, admin)
  t.same([deleted.status, deleted.body.ok], [200, true], 'with the confirmation, the admin deletes it')

  const audit = await post(cluster.url, '/auth/audit.list', {}, owner)
  const actions = audit.body.entries.map((e: { action: string; detail?: string }) => `${e.action}${e.detail ? ` ${e.detail}` : ''}`)
  t.ok(actions.includes('erasure.dry_run project'), 'the deletion\'s dry run is in the audit log')
  t.ok(actions.includes('project.delete'), 'and the deletion')
  t.equal(actions.filter((a: string) => a === 'session.search_user userId').length, 1, 'a search by user id is audited once, however many pages it reads')
  t.notMatch(JSON.stringify(audit.body), /shop\.test/, 'and never with the id it searched for')
})
