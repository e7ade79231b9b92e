/**
 * The shared suite's credentials part (src/store/account-store.ts): a new
 * credential is written only in the transaction that finds its user in the
 * organisation and the organisation under its quota; a sign-in link takes an
 * account back; expired records are purged. Run by storeSuite (store.case.ts)
 * for every implementation.
 */
import type { Test } from 'tap'
import type { ApiKeyRecord, DashboardSessionRecord, InviteRecord, UserRecord } from '../../src/store/store.js'
import type { StoreFactory } from './store.case.js'

const T0 = 1_700_000_000_000
const HOUR = 3_600_000
const DAY = 24 * HOUR

const user = (id: string, overrides: Partial<UserRecord> = {}): UserRecord => ({ id, orgId: 'org_1', email: `${id}@acme.test`, createdAt: T0, passwordHash: `h-${id}`, ...overrides })
const key = (id: string, userId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({ id, orgId: 'org_1', userId, digestHex: `d-${id}`, lastFour: 'abcd', createdAt: T0, ...overrides })
const session = (id: string, userId: string, overrides: Partial<DashboardSessionRecord> = {}): DashboardSessionRecord => ({
  id,
  digestHex: `d-${id}`,
  userId,
  orgId: 'org_1',
  csrfToken: `c-${id}`,
  createdAt: T0,
  expiresAt: T0 + DAY,
  ...overrides,
})
const invite = (id: string, invitedBy: string, overrides: Partial<InviteRecord> = {}): InviteRecord => ({ id, digestHex: `d-${id}`, orgId: 'org_1', invitedBy, createdAt: T0, expiresAt: T0 + DAY, ...overrides })
const project = (id: string, orgId = 'org_1') => ({ id, orgId, name: id, domain: null, pathRules: [], publicKey: `svc_pk_${id}`, createdAt: T0 })

export function credentialsSuite(t: Test, open: StoreFactory): void {
  t.test('a credential is written only for a user of its organisation, and never after their removal, however the calls race', async (t) => {
    const { store } = await open(t)
    await store.putUser(user('usr_owner', { role: 'owner' }))
    await store.putUser(user('usr_m'))
    await store.putUser(user('usr_x', { orgId: 'org_2' }))
    await store.createProject(project('prj_1'))
    t.equal(await store.putApiKey(key('key_x', 'usr_x')), 'holder_gone', 'a key for a user of another organisation')
    t.equal(await store.putInvite(invite('inv_x', 'usr_x')), 'holder_gone')
    t.equal(await store.putDashboardSession(session('ds_x', 'usr_x'), 'h-usr_x'), 'holder_gone')
    t.equal(await store.putSetupToken({ id: 'st_x', projectId: 'prj_1', createdBy: 'usr_x', digestHex: 'd', createdAt: T0, expiresAt: T0 + DAY }), 'holder_gone')
    t.equal(await store.putSetupToken({ id: 'st_none', projectId: 'prj_gone', digestHex: 'd', createdAt: T0, expiresAt: T0 + DAY }), 'holder_gone', 'a token of a project that does not exist')
    t.equal(await store.putDashboardSession(session('ds_old', 'usr_m'), 'an older hash'), 'holder_gone', 'a session for a password that has changed since it was checked')

    // Creations in flight while the removal commits: each lands before it (and is swept) or after (and is refused).
    const creations = Array.from({ length: 12 }, (_, i) => [
      store.putApiKey(key(`key_${i}`, 'usr_m')),
      store.putDashboardSession(session(`ds_${i}`, 'usr_m'), 'h-usr_m'),
      store.putInvite(invite(`inv_${i}`, 'usr_m')),
      store.putSetupToken({ id: `st_${i}`, projectId: 'prj_1', createdBy: 'usr_m', digestHex: 'd', createdAt: T0, expiresAt: T0 + DAY }),
    ]).flat()
    const [removed, ...outcomes] = await Promise.all([store.removeUser('usr_m', T0 + 1), ...creations])
    t.ok(removed, 'removed')
    t.ok(outcomes.every((o) => o === 'created' || o === 'holder_gone'), 'each creation either landed or was refused')
    for (let i = 0; i < 12; i++) {
      t.ok(store.getApiKey(`key_${i}`)?.revokedAt ?? !store.getApiKey(`key_${i}`), `key ${i}: revoked or never written`)
      t.equal(store.getDashboardSession(`ds_${i}`), undefined, `session ${i}: ended or never written`)
      t.ok(store.getInvite(`inv_${i}`)?.revokedAt ?? !store.getInvite(`inv_${i}`), `invite ${i}: revoked or never written`)
      t.ok(store.getSetupToken(`st_${i}`)?.revokedAt ?? !store.getSetupToken(`st_${i}`), `setup token ${i}: revoked or never written`)
    }
    t.equal(await store.putApiKey(key('key_late', 'usr_m')), 'holder_gone', 'and nothing is written for them afterwards')
  })

  t.test('quotas: live API keys, open invites and projects per organisation, counted where they are written', async (t) => {
    const { store } = await open(t)
    await store.putUser(user('usr_owner', { role: 'owner' }))
    await store.putUser(user('usr_x', { orgId: 'org_2' }))
    const keys = await Promise.all([1, 2, 3, 4, 5].map((n) => store.putApiKey(key(`key_${n}`, 'usr_owner'), 3)))
    t.same([keys.filter((o) => o === 'created').length, keys.filter((o) => o === 'quota_exceeded').length], [3, 2], 'parallel creators get 3 keys, no more')
    const live = store.listApiKeys('org_1').filter((k) => !k.revokedAt)
    await store.updateApiKey(live[0].id, { revokedAt: T0 + 1 })
    t.equal(await store.putApiKey(key('key_after_revoke', 'usr_owner'), 3), 'created', 'a revoked key frees its place')
    t.equal(await store.putApiKey(key('key_other_org', 'usr_x', { orgId: 'org_2' }), 3), 'created', 'another organisation counts its own')
    t.equal(await store.putApiKey(key('key_no_quota', 'usr_owner')), 'created', 'no quota given: none applies')

    t.equal(await store.putInvite(invite('inv_1', 'usr_owner'), 2), 'created')
    t.equal(await store.putInvite(invite('inv_2', 'usr_owner'), 2), 'created')
    t.equal(await store.putInvite(invite('inv_3', 'usr_owner'), 2), 'quota_exceeded')
    await store.revokeInvite('inv_1', T0 + 1)
    t.equal(await store.putInvite(invite('inv_4', 'usr_owner', { createdAt: T0 + 2 }), 2), 'created', 'only pending invites count')
    t.equal(await store.putInvite(invite('inv_5', 'usr_owner', { createdAt: T0 + DAY }), 2), 'created', 'nor expired ones')

    const projects = await Promise.all([1, 2, 3].map((n) => store.createProject(project(`prj_${n}`), 2)))
    t.equal(projects.filter(Boolean).length, 2, 'two projects of three')
    t.equal(store.listProjects('org_1').length, 2)
  })

  t.test('a claimed sign-in link sets the password, ends every session of its user and voids their other links; a new link voids the older', async (t) => {
    const { store } = await open(t)
    await store.putUser(user('usr_owner', { role: 'owner' }))
    await store.putUser(user('usr_m'))
    const link = (id: string, createdAt: number) => invite(id, 'usr_m', { forUserId: 'usr_m', createdAt, expiresAt: createdAt + DAY })
    t.equal(await store.putInvite(link('inv_old', T0)), 'created')
    t.equal(await store.putInvite(invite('inv_team', 'usr_m')), 'created')
    t.equal(await store.putInvite(link('inv_new', T0 + 1)), 'created', 'a sign-in link is written, and…')
    t.equal(store.getInvite('inv_old')?.revokedAt, T0 + 1, '…it voids the link minted before it')
    await store.putInvite(link('inv_new', T0 + 1))
    t.equal(store.getInvite('inv_new')?.revokedAt, undefined, 'written again (a log entry applied twice), a link does not void itself')
    await store.putDashboardSession(session('ds_1', 'usr_m'), 'h-usr_m')
    await store.putDashboardSession(session('ds_2', 'usr_m'), 'h-usr_m')
    await store.putDashboardSession(session('ds_o', 'usr_owner'), 'h-usr_owner')

    t.equal(await store.claimSignInLink('inv_old', 'h-new', T0 + 2), undefined, 'a voided link claims nothing')
    const claimed = await store.claimSignInLink('inv_new', 'h-new', T0 + 2)
    t.match(claimed, { id: 'usr_m', passwordHash: 'h-new' })
    t.equal(store.getUser('usr_m')?.passwordHash, 'h-new')
    t.same([store.getDashboardSession('ds_1'), store.getDashboardSession('ds_2')], [undefined, undefined], 'every session of the account ended')
    t.ok(store.getDashboardSession('ds_o'), 'another user\'s stays')
    t.equal(store.getInvite('inv_team')?.revokedAt, undefined, 'an ordinary invite they made stays')
    t.equal(await store.claimSignInLink('inv_new', 'h-again', T0 + 3), undefined, 'a link works once')
    t.equal(await store.putDashboardSession(session('ds_3', 'usr_m'), 'h-usr_m'), 'holder_gone', 'a sign-in that checked the old password is refused')
    t.equal(await store.putDashboardSession(session('ds_4', 'usr_m'), 'h-new'), 'created')

    await store.putInvite(link('inv_gone', T0 + 4))
    await store.removeUser('usr_m', T0 + 5)
    t.equal(await store.claimSignInLink('inv_gone', 'h', T0 + 6), undefined, 'nor for a removed user')
  })

  t.test('the housekeeping purges expired sessions and setup tokens, and invites a week past their expiry', async (t) => {
    const { store } = await open(t)
    await store.putUser(user('usr_owner', { role: 'owner' }))
    await store.createProject(project('prj_1'))
    const now = T0 + 10 * DAY
    await store.putDashboardSession(session('ds_expired', 'usr_owner', { expiresAt: now }), 'h-usr_owner')
    await store.putDashboardSession(session('ds_live', 'usr_owner', { expiresAt: now + 1 }), 'h-usr_owner')
    await store.putInvite(invite('inv_long_gone', 'usr_owner', { expiresAt: now - 7 * DAY }))
    await store.putInvite(invite('inv_recent', 'usr_owner', { expiresAt: now - DAY }))
    await store.putInvite(invite('inv_live', 'usr_owner', { expiresAt: now + DAY }))
    const token = (id: string, expiresAt: number) => ({ id, projectId: 'prj_1', digestHex: 'd', createdAt: T0, expiresAt })
    await store.putSetupToken(token('st_expired', now - 1))
    await store.putSetupToken(token('st_live', now + 1))
    t.same(await store.purgeExpiredCredentials(now), { sessions: 1, invites: 1, setupTokens: 1 })
    t.same([store.getDashboardSession('ds_expired'), store.getInvite('inv_long_gone'), store.getSetupToken('st_expired')], [undefined, undefined, undefined])
    t.ok(store.getDashboardSession('ds_live') && store.getInvite('inv_recent') && store.getInvite('inv_live') && store.getSetupToken('st_live'), 'the rest stays')
    t.same(store.listInvites('org_1').map((i) => i.id).sort(), ['inv_live', 'inv_recent'], 'the list no longer has the purged one')
    t.same(store.listSetupTokens('prj_1').map((s) => s.id), ['st_live'])
    t.same(await store.purgeExpiredCredentials(now), { sessions: 0, invites: 0, setupTokens: 0 }, 'and a second pass finds nothing')
  })
}
