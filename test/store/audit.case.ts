/**
 * The shared suite's audit-log part (src/store/audit-store.ts): entries read
 * back newest first per organisation, in pages that neither skip nor repeat
 * an entry, an entry appended twice kept once, nothing changed by reopening,
 * and the retention purge deleting by age only. Run by storeSuite
 * (store.case.ts) for every implementation.
 */
import type { Test } from 'tap'
import type { AuditRecord } from '../../src/store/store.js'
import type { StoreFactory } from './store.case.js'

const T0 = 1_700_000_000_000

const entry = (n: number, overrides: Partial<AuditRecord> = {}): AuditRecord => ({
  id: `aud_${String(n).padStart(4, '0')}`,
  orgId: 'org_1',
  at: T0 + n * 1000,
  actorUserId: 'usr_owner',
  actorEmail: 'owner@acme.test',
  via: 'dashboard',
  action: 'key.create',
  target: `key_${n}`,
  ...overrides,
})

export function auditSuite(t: Test, open: StoreFactory): void {
  t.test('audit entries: newest first per organisation, paged without gaps or repeats, kept across a reopen', async (t) => {
    const setup = await open(t)
    let store = setup.store
    for (let n = 1; n <= 25; n++) await store.appendAudit(entry(n))
    // Two entries in the same millisecond: the id orders them, and a page boundary between them loses neither.
    await store.appendAudit(entry(26, { at: T0 + 25_000, id: 'aud_0026' }))
    await store.appendAudit(entry(1, { orgId: 'org_2', id: 'aud_other' }))
    await store.appendAudit(entry(3))
    t.same(store.listAudit('org_1', { limit: 3 }).map((e) => e.id), ['aud_0026', 'aud_0025', 'aud_0024'], 'newest first; the same-millisecond pair by id')
    t.same(store.listAudit('org_1', { limit: 1 })[0], entry(26, { at: T0 + 25_000, id: 'aud_0026' }), 'read back whole')

    const seen: string[] = []
    let before: { at: number; id: string } | undefined
    for (;;) {
      const page = store.listAudit('org_1', { limit: 4, ...(before ? { before } : {}) })
      if (page.length === 0) break
      seen.push(...page.map((e) => e.id))
      before = { at: page[page.length - 1].at, id: page[page.length - 1].id }
    }
    t.equal(seen.length, 26, 'every entry once, the one appended twice included once')
    t.equal(new Set(seen).size, 26)
    t.same(store.listAudit('org_2', { limit: 10 }).map((e) => e.id), ['aud_other'], 'another organisation\'s log is its own')

    store = await setup.reopen()
    t.equal(store.listAudit('org_1', { limit: 100 }).length, 26, 'kept across a reopen')
  })

  t.test('purgeAuditBefore deletes entries older than the cutoff, of every organisation, and nothing newer', async (t) => {
    const { store } = await open(t)
    for (let n = 1; n <= 10; n++) await store.appendAudit(entry(n))
    await store.appendAudit(entry(2, { orgId: 'org_2', id: 'aud_other_old' }))
    await store.appendAudit(entry(9, { orgId: 'org_2', id: 'aud_other_new' }))
    t.equal(await store.purgeAuditBefore(T0 + 6_000), 6, 'entries 1-5 and the other organisation\'s old one')
    t.same(store.listAudit('org_1', { limit: 100 }).map((e) => e.id), ['aud_0010', 'aud_0009', 'aud_0008', 'aud_0007', 'aud_0006'])
    t.same(store.listAudit('org_2', { limit: 100 }).map((e) => e.id), ['aud_other_new'])
    t.equal(await store.purgeAuditBefore(T0 + 6_000), 0, 'a second run finds nothing')
  })
}
