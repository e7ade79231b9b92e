/**
 * The shared suite's accounts part (src/store/account-store.ts): the first
 * owner, invites, dashboard sessions and members. Run by storeSuite
 * (store.case.ts) for every implementation.
 */
import type { Test } from 'tap'
import type { InviteRecord, UserRecord } from '../../src/store/store.js'
import type { StoreFactory } from './store.case.js'

const T0 = 1_700_000_000_000
const HOUR = 3_600_000

const user = (id: string, overrides: Partial<UserRecord> = {}): UserRecord => ({ id, orgId: 'org_1', email: `${id}@acme.test`, createdAt: T0, ...overrides })
const invite = (id: string, overrides: Partial<InviteRecord> = {}): InviteRecord => ({
  id,
  digestHex: `d-${id}`,
  orgId: 'org_1',
  invitedBy: 'usr_owner',
  createdAt: T0,
  expiresAt: T0 + 24 * HOUR,
  ...overrides,
})

/** The organisation's owner, whom the invites above name as their creator: a credential is written only for a user of its organisation. */
const owner = () => user('usr_owner', { role: 'owner', passwordHash: 'h-owner' })

export function accountsSuite(t: Test, open: StoreFactory): void {
  t.test('createFirstOwner creates the organisation and its owner once, however many calls race', async (t) => {
    const { store } = await open(t)
    const org = (n: number) => ({ id: `org_${n}`, name: `Acme ${n}`, createdAt: T0 })
    const results = await Promise.all([1, 2, 3, 4].map((n) => store.createFirstOwner(org(n), user(`usr_${n}`, { orgId: `org_${n}`, role: 'owner' }))))
    t.equal(results.filter(Boolean).length, 1, 'exactly one call created')
    const winner = results.indexOf(true) + 1
    t.equal(store.countUsers(), 1)
    t.equal(store.getUser(`usr_${winner}`)?.role, 'owner')
    t.equal(store.findOrgByName(`Acme ${winner}`)?.id, `org_${winner}`)
    t.equal(await store.createFirstOwner(org(9), user('usr_9', { orgId: 'org_9' })), false, 'and none later')
    t.equal(store.getOrg('org_9'), undefined)
  })

  t.test('ensureOrgAndUser makes one organisation of a name and one user of an email, however many calls race', async (t) => {
    const { store } = await open(t)
    const org = (n: number) => ({ id: `org_${n}`, name: 'Globex', createdAt: T0 + n })
    const person = (n: number, email = `p${n}@globex.test`) => ({ id: `usr_${n}`, email, createdAt: T0 + n })
    const results = await Promise.all([1, 2, 3, 4].map((n) => store.ensureOrgAndUser(org(n), person(n))))
    const orgIds = new Set(results.map((r) => r.org.id))
    t.equal(orgIds.size, 1, 'every call settled on the same organisation')
    t.equal(store.findOrgByName('Globex')?.id, [...orgIds][0])
    t.same(results.map((r) => r.user.orgId), [...Array(4)].map(() => [...orgIds][0]), 'and put its user in it')
    t.equal(results.filter((r) => r.user.role === 'owner').length, 1, 'the first user is the owner, the others members')
    const again = await store.ensureOrgAndUser(org(5), person(5, 'P1@Globex.test'))
    t.equal(again.user.id, 'usr_1', 'an email already known is that user (case-insensitive), not a new one')
    t.equal(store.listUsers([...orgIds][0]).length, 4)
    const elsewhere = await store.ensureOrgAndUser({ id: 'org_other', name: 'Initech', createdAt: T0 }, person(6, 'p2@globex.test'))
    t.equal(elsewhere.org.id, 'org_other', 'a new name makes a new organisation')
    t.not(elsewhere.user.orgId, 'org_other', 'while the email stays with the organisation it belongs to, for the caller to refuse')
  })

  t.test('an invite is consumed once, however many calls race, and never when expired or revoked', async (t) => {
    const { store } = await open(t)
    await store.putUser(owner())
    await store.putInvite(invite('inv_live'))
    const consumed = await Promise.all([1, 2, 3, 4, 5].map(() => store.consumeInvite('inv_live', T0 + HOUR)))
    t.equal(consumed.filter((c) => c !== undefined).length, 1, 'one call got it')
    t.equal(store.getInvite('inv_live')?.usedAt, T0 + HOUR)
    await store.putInvite(invite('inv_old', { expiresAt: T0 + HOUR }))
    t.equal(await store.consumeInvite('inv_old', T0 + HOUR), undefined, 'expired at its expiry')
    await store.putInvite(invite('inv_revoked'))
    t.match(await store.revokeInvite('inv_revoked', T0 + 1), { revokedAt: T0 + 1 })
    t.equal(await store.consumeInvite('inv_revoked', T0 + 2), undefined)
    t.equal(await store.consumeInvite('inv_none', T0), undefined)
  })

  t.test('revoking and consuming an invite race to one outcome', async (t) => {
    const { store } = await open(t)
    await store.putUser(owner())
    await store.putInvite(invite('inv_1'))
    const [consumed, revoked] = await Promise.all([store.consumeInvite('inv_1', T0 + 5), store.revokeInvite('inv_1', T0 + 5)])
    const final = store.getInvite('inv_1')!
    t.ok(Boolean(final.usedAt) !== Boolean(final.revokedAt), 'used or revoked, not both')
    t.equal(consumed !== undefined, Boolean(final.usedAt))
    t.same(revoked, final, 'revoke answers the record as it now is')
    t.equal(await store.revokeInvite('inv_none', T0), undefined)
  })

  t.test('lists every invite of an organisation, used and revoked ones included, and none of another', async (t) => {
    const { store } = await open(t)
    await store.putUser(owner())
    await store.putUser(user('usr_2', { orgId: 'org_2' }))
    await store.putInvite(invite('inv_a'))
    await store.putInvite(invite('inv_b'))
    await store.putInvite(invite('inv_c', { orgId: 'org_2', invitedBy: 'usr_2' }))
    await store.consumeInvite('inv_a', T0 + 1)
    await store.revokeInvite('inv_b', T0 + 1)
    t.same(store.listInvites('org_1').map((i) => i.id).sort(), ['inv_a', 'inv_b'])
    t.same(store.listInvites('org_2').map((i) => i.id), ['inv_c'])
  })

  t.test('joining by invite: joined once, then the link is gone; a taken email still uses the link up', async (t) => {
    const { store } = await open(t)
    await store.putUser(owner())
    await store.putInvite(invite('inv_1'))
    await store.putInvite(invite('inv_2'))
    t.equal(await store.joinByInvite('inv_1', user('usr_new', { orgId: 'ignored' }), T0 + 1), 'joined')
    t.match(store.getUser('usr_new'), { orgId: 'org_1', invitedBy: 'usr_owner' }, 'the invite decides the organisation')
    t.equal(store.findUserByEmail('USR_NEW@acme.test')?.id, 'usr_new')
    t.equal(await store.joinByInvite('inv_1', user('usr_other'), T0 + 2), 'invite_gone')
    t.equal(await store.joinByInvite('inv_2', user('usr_dup', { email: 'usr_new@acme.test' }), T0 + 2), 'email_taken')
    t.ok(store.getInvite('inv_2')?.usedAt, 'the link is used up all the same')
    t.equal(store.getUser('usr_dup'), undefined)
    t.equal(store.countUsers(), 2)
  })

  t.test('dashboard sessions are stored, read, deleted, and ended per user but the one kept', async (t) => {
    const { store } = await open(t)
    for (const id of ['usr_a', 'usr_b']) await store.putUser(user(id, { passwordHash: 'h' }))
    const session = (id: string, userId: string) => ({ id, digestHex: `d-${id}`, userId, orgId: 'org_1', csrfToken: `c-${id}`, createdAt: T0, expiresAt: T0 + HOUR })
    for (const [id, userId] of [['ds_1', 'usr_a'], ['ds_2', 'usr_a'], ['ds_3', 'usr_a'], ['ds_4', 'usr_b']]) await store.putDashboardSession(session(id, userId), 'h')
    t.same(store.getDashboardSession('ds_1'), session('ds_1', 'usr_a'))
    await store.deleteDashboardSession('ds_1')
    t.equal(store.getDashboardSession('ds_1'), undefined)
    t.equal(await store.endDashboardSessions('usr_a', 'ds_3'), 1)
    t.equal(store.getDashboardSession('ds_2'), undefined)
    t.ok(store.getDashboardSession('ds_3'), 'the kept one stays')
    t.ok(store.getDashboardSession('ds_4'), 'another user\'s stays')
    t.equal(await store.endDashboardSessions('usr_a'), 1)
  })

  t.test('removing a member ends their sessions and revokes their keys and live invites, and no one else\'s', async (t) => {
    const { store } = await open(t)
    await store.putUser(owner())
    await store.putUser(user('usr_m', { createdAt: T0 + 1, passwordHash: 'h-m' }))
    t.same(store.listUsers('org_1').map((u) => u.id), ['usr_owner', 'usr_m'], 'oldest first')
    t.equal(await store.putDashboardSession({ id: 'ds_m', digestHex: 'd', userId: 'usr_m', orgId: 'org_1', csrfToken: 'c', createdAt: T0, expiresAt: T0 + HOUR }, 'h-m'), 'created')
    await store.createProject({ id: 'prj_1', orgId: 'org_1', name: 'Site', domain: null, pathRules: [], publicKey: 'svc_pk_1', createdAt: T0 })
    const token = (id: string, createdBy?: string) => ({ id, projectId: 'prj_1', ...(createdBy ? { createdBy } : {}), digestHex: `d-${id}`, createdAt: T0, expiresAt: T0 + HOUR })
    for (const [id, by] of [['st_m', 'usr_m'], ['st_o', 'usr_owner'], ['st_operator', undefined]]) t.equal(await store.putSetupToken(token(id!, by)), 'created')
    const key = (id: string, userId: string, revokedAt?: number) => ({ id, orgId: 'org_1', userId, digestHex: `d-${id}`, lastFour: 'abcd', createdAt: T0, ...(revokedAt ? { revokedAt } : {}) })
    await store.putApiKey(key('key_m', 'usr_m'))
    await store.putApiKey(key('key_m_old', 'usr_m', T0))
    await store.putApiKey(key('key_o', 'usr_owner'))
    await store.putInvite(invite('inv_m', { invitedBy: 'usr_m' }))
    await store.putInvite(invite('inv_m_used', { invitedBy: 'usr_m', usedAt: T0 }))
    await store.putInvite(invite('inv_o'))
    const removed = await store.removeUser('usr_m', T0 + 10)
    t.match(removed, { user: { id: 'usr_m' }, sessionsEnded: 1, keysRevoked: 1, invitesRevoked: 1, setupTokensRevoked: 1 })
    t.equal(store.getSetupToken('st_m')?.revokedAt, T0 + 10, 'the setup token they minted is revoked')
    t.same([store.getSetupToken('st_o')?.revokedAt, store.getSetupToken('st_operator')?.revokedAt], [undefined, undefined], 'the owner\'s and the operator\'s stay')
    t.equal(store.getUser('usr_m'), undefined)
    t.equal(store.findUserByEmail('usr_m@acme.test'), undefined)
    t.equal(store.getDashboardSession('ds_m'), undefined)
    t.equal(store.getApiKey('key_m')?.revokedAt, T0 + 10)
    t.equal(store.getApiKey('key_m_old')?.revokedAt, T0, 'an earlier revocation stays as it was')
    t.equal(store.getApiKey('key_o')?.revokedAt, undefined)
    t.equal(store.getInvite('inv_m')?.revokedAt, T0 + 10)
    t.equal(store.getInvite('inv_m_used')?.revokedAt, undefined, 'a used invite is not revoked')
    t.equal(store.getInvite('inv_o')?.revokedAt, undefined)
    t.equal(await store.removeUser('usr_m', T0 + 11), undefined, 'no such user any more')
  })

  t.test('updates merge into the record and answer undefined for a missing one', async (t) => {
    const { store } = await open(t)
    await store.putUser(user('usr_1'))
    t.match(await store.updateUser('usr_1', { lastSignInAt: T0 + 5 }), { id: 'usr_1', email: 'usr_1@acme.test', lastSignInAt: T0 + 5 })
    t.equal(await store.updateUser('usr_none', { lastSignInAt: 1 }), undefined)
    await store.createProject({ id: 'prj_1', orgId: 'org_1', name: 'Site', domain: null, pathRules: [], publicKey: 'svc_pk_1', createdAt: T0 })
    await store.putSetupToken({ id: 'st_1', projectId: 'prj_1', digestHex: 'd', createdAt: T0, expiresAt: T0 + HOUR })
    t.match(await store.updateSetupToken('st_1', { revokedAt: T0 + 1 }), { id: 'st_1', revokedAt: T0 + 1 })
    t.equal(store.getSetupToken('st_1')?.revokedAt, T0 + 1)
  })
}
