/**
 * The shared suite of the Store interface (src/store/store.ts), with its
 * accounts (accounts.case.ts) and jobs (jobs.case.ts) parts. Every
 * implementation runs it through a test file beside this one
 * (test/store/lmdb.test.ts), with a factory that gives each test a fresh,
 * empty store of its own and can reopen it on the same data.
 */
import { gzipSync } from 'node:zlib'
import type { Test } from 'tap'
import type { ChunkMeta, IngestItem, NewProject, SignalsRecord, Store } from '../../src/store/store.js'
import { matchExactly } from '../helpers/match.js'
import { accountsSuite } from './accounts.case.js'
import { auditSuite } from './audit.case.js'
import { budgetSuite } from './budget.case.js'
import { completenessSuite } from './completeness.case.js'
import { credentialsSuite } from './credentials.case.js'
import { jobsSuite } from './jobs.case.js'
import { stylesSuite } from './styles.case.js'

export interface StoreUnderTest {
  store: Store
  /** Closes `store` and opens the same data again, as a restarted process would. */
  reopen(): Promise<Store>
}

/** Gives a test an empty store; the factory registers its own teardown on `t`. */
export type StoreFactory = (t: Test) => Promise<StoreUnderTest>

const T0 = 1_700_000_000_000

function project(overrides: Partial<NewProject> = {}): NewProject {
  const n = Math.random().toString(16).slice(2, 10)
  return { id: `prj_${n}`, orgId: 'org_1', name: `Site ${n}`, domain: null, pathRules: [], publicKey: `svc_pk_${n}`, createdAt: T0, ...overrides }
}

type ChunkItem = Extract<IngestItem, { kind: 'chunk' }>
type SignalsItem = Extract<IngestItem, { kind: 'signals' }>

function chunk(projectId: string, meta: Partial<ChunkMeta>, body: Uint8Array = Buffer.from('[{"type":4}]'), receivedAt = T0 + 5_000): ChunkItem {
  return { kind: 'chunk', projectId, receivedAt, body, meta: { sk: 's1', vid: 'v1', seq: 0, encoding: 'json', ...meta } }
}

function signals(projectId: string, batch: Partial<SignalsRecord> = {}, receivedAt = T0): SignalsItem {
  return { kind: 'signals', projectId, receivedAt, batch: { sk: 's1', vid: 'v1', dropped: 0, views: [], clicks: [], errors: [], ...batch } }
}

export function storeSuite(t: Test, open: StoreFactory): void {
  accountsSuite(t, open)
  auditSuite(t, open)
  budgetSuite(t, open)
  completenessSuite(t, open)
  credentialsSuite(t, open)
  jobsSuite(t, open)
  stylesSuite(t, open)

  t.test('finds a project by its public key, and nothing for an unknown key', async (t) => {
    const { store } = await open(t)
    const p = await store.createProject(project())
    t.equal(store.projectIdForPublicKey(p.publicKey), p.id)
    t.equal(store.projectIdForPublicKey('svc_pk_0000'), undefined)
    t.same(store.getProject(p.id), p)
  })

  t.test('lists an organisation\'s projects in order of creation, and only that organisation\'s', async (t) => {
    const { store } = await open(t)
    const late = await store.createProject(project({ orgId: 'org_a', createdAt: T0 + 2 }))
    const early = await store.createProject(project({ orgId: 'org_a', createdAt: T0 + 1 }))
    await store.createProject(project({ orgId: 'org_b' }))
    t.same(store.listProjects('org_a').map((p) => p.id), [early.id, late.id])
    t.same(store.listProjects('org_none'), [])
  })

  t.test('updateProject changes the fields it is given and keeps the others', async (t) => {
    const { store } = await open(t)
    const p = await store.createProject(project({ domain: 'shop.test' }))
    const updated = await store.updateProject(p.id, { pathRules: ['/{tenant}/*'], name: 'Renamed' })
    t.same(updated, { ...p, pathRules: ['/{tenant}/*'], name: 'Renamed' })
    t.same(store.getProject(p.id), updated)
    t.equal(store.projectIdForPublicKey(p.publicKey), p.id)
    t.equal(await store.updateProject('prj_missing', { name: 'x' }), undefined)
    t.equal(store.getProject('prj_missing'), undefined)
  })

  t.test('stores organisations and finds one by name', async (t) => {
    const { store } = await open(t)
    await store.putOrg({ id: 'org_1', name: 'Acme', createdAt: T0 })
    t.same(store.getOrg('org_1'), { id: 'org_1', name: 'Acme', createdAt: T0 })
    t.equal(store.findOrgByName('Acme')?.id, 'org_1')
    t.equal(store.findOrgByName('acme-other'), undefined)
    t.equal(store.getOrg('org_2'), undefined)
  })

  t.test('finds a user by email whatever its case', async (t) => {
    const { store } = await open(t)
    await store.putUser({ id: 'usr_1', orgId: 'org_1', email: 'Owner@Acme.test', createdAt: T0 })
    t.equal(store.findUserByEmail('owner@acme.test')?.id, 'usr_1')
    t.equal(store.findUserByEmail('OWNER@ACME.TEST')?.id, 'usr_1')
    t.equal(store.getUser('usr_1')?.orgId, 'org_1')
    t.equal(store.findUserByEmail('other@acme.test'), undefined)
  })

  t.test('lists API keys per organisation', async (t) => {
    const { store } = await open(t)
    for (const orgId of ['org_a', 'org_b']) await store.putUser({ id: `usr_${orgId}`, orgId, email: `${orgId}@acme.test`, createdAt: T0 })
    const key = (id: string, orgId: string) => ({ id, orgId, userId: `usr_${orgId}`, digestHex: 'ab'.repeat(32), lastFour: 'wxyz', createdAt: T0 })
    await store.putApiKey(key('k1', 'org_a'))
    await store.putApiKey(key('k2', 'org_a'))
    await store.putApiKey(key('k3', 'org_b'))
    t.same(store.listApiKeys('org_a').map((k) => k.id).sort(), ['k1', 'k2'])
    t.same(store.listApiKeys('org_b').map((k) => k.id), ['k3'])
    t.equal(store.getApiKey('k3')?.orgId, 'org_b')
    t.match(await store.updateApiKey('k1', { revokedAt: T0 + 1 }), { id: 'k1', orgId: 'org_a', revokedAt: T0 + 1 })
    t.equal(store.getApiKey('k1')?.revokedAt, T0 + 1)
    t.equal(store.listApiKeys('org_a').length, 2)
    t.equal(await store.updateApiKey('k9', { revokedAt: T0 }), undefined)
  })

  t.test('lists setup tokens per project', async (t) => {
    const { store } = await open(t)
    const token = (id: string, projectId: string) => ({ id, projectId, digestHex: 'cd'.repeat(32), createdAt: T0, expiresAt: T0 + 30 * 86_400_000 })
    for (const id of ['prj_a', 'prj_b']) await store.createProject(project({ id, publicKey: `svc_pk_${id}` }))
    await store.putSetupToken(token('t1', 'prj_a'))
    await store.putSetupToken(token('t2', 'prj_b'))
    t.same(store.listSetupTokens('prj_a').map((x) => x.id), ['t1'])
    t.equal(store.getSetupToken('t2')?.projectId, 'prj_b')
    t.equal(store.getSetupToken('t3'), undefined)
    t.match(await store.updateSetupToken('t1', { revokedAt: T0 + 5 }), { id: 't1', projectId: 'prj_a', revokedAt: T0 + 5 })
    t.equal(store.getSetupToken('t1')?.revokedAt, T0 + 5)
  })

  t.test('stores a chunk byte for byte and answers "stored"', async (t) => {
    const { store } = await open(t)
    const p = await store.createProject(project())
    const body = gzipSync(Buffer.from(JSON.stringify([{ type: 2, data: { node: 'x'.repeat(5000) } }])))
    t.same(await store.appendBatch([chunk(p.id, { seq: 0, encoding: 'gzip' }, body)]), ['stored'])
    t.same(Buffer.from(store.getChunk(p.id, 's1', 0)!), body)
    t.equal(store.getChunk(p.id, 's1', 1), undefined)
    t.equal(store.getChunk(p.id, 'other', 0), undefined)
  })

  t.test('a repeated seq is a duplicate that keeps the first copy, in one batch or across batches', async (t) => {
    const { store } = await open(t)
    const p = await store.createProject(project())
    const first = Buffer.from('[1]')
    t.same(await store.appendBatch([chunk(p.id, { seq: 3 }, first), chunk(p.id, { seq: 3 }, Buffer.from('[2]'))]), ['stored', 'duplicate'])
    t.same(await store.appendBatch([chunk(p.id, { seq: 3 }, Buffer.from('[3]'))]), ['duplicate'])
    t.same(Buffer.from(store.getChunk(p.id, 's1', 3)!), first)
    const session = store.getSession(p.id, 's1')!
    t.equal(session.chunkCount, 1)
    t.equal(session.bytes, first.byteLength)
    t.equal(store.listChunks(p.id, 's1').length, 1)
    t.match(store.projectStats(p.id), { sessionCount: 1, chunkCount: 1, bytes: first.byteLength, signalBatches: 0 })
  })

  t.test('the session record sums its chunks: first and last time, counts, bytes, visitor, identity, pages', async (t) => {
    const { store } = await open(t)
    const p = await store.createProject(project())
    const a = Buffer.from('[{"a":1}]')
    const b = Buffer.from('[{"b":22}]')
    const c = Buffer.from('[{"c":333}]')
    await store.appendBatch([
      chunk(p.id, { seq: 1, pageIndex: 1, url: 'https://shop.test/cart', firstTs: T0 + 2_000, lastTs: T0 + 3_000, eventCount: 4, startedAt: T0, viewport: { w: 1280, h: 720 } }, b),
    ])
    // Arrives later but happened earlier: the times widen, they are not overwritten.
    await store.appendBatch([
      chunk(p.id, { seq: 0, pageIndex: 0, url: 'https://shop.test/', firstTs: T0 + 1_000, lastTs: T0 + 1_500, eventCount: 10, identity: { userId: 'u_42', email: 'ada@shop.test' } }, a),
      chunk(p.id, { seq: 2, pageIndex: 1, url: 'https://shop.test/cart', firstTs: T0 + 3_000, lastTs: T0 + 9_000, eventCount: 1, identity: { name: 'Ada' } }, c),
    ])
    const session = store.getSession(p.id, 's1')!
    matchExactly(t, session, {
      projectId: p.id,
      sk: 's1',
      vid: 'v1',
      startedAt: T0,
      firstTs: T0 + 1_000,
      lastTs: T0 + 9_000,
      chunkCount: 3,
      bytes: a.byteLength + b.byteLength + c.byteLength,
      eventCount: 15,
      identity: { userId: 'u_42', email: 'ada@shop.test', name: 'Ada' },
      viewport: { w: 1280, h: 720 },
    })
    matchExactly(t, session.pages, [
      { pageIndex: 0, url: 'https://shop.test/' },
      { pageIndex: 1, url: 'https://shop.test/cart' },
    ])
    t.equal(store.getSession(p.id, 'other'), undefined)
  })

  t.test('lists a session\'s chunks in seq order, numerically', async (t) => {
    const { store } = await open(t)
    const p = await store.createProject(project())
    await store.appendBatch([10, 2, 0, 1_000_000].map((seq) => chunk(p.id, { seq })))
    await store.appendBatch([chunk(p.id, { sk: 's2', seq: 5 })])
    t.same(store.listChunks(p.id, 's1').map((c) => c.seq), [0, 2, 10, 1_000_000])
    t.match(store.listChunks(p.id, 's1')[0], { seq: 0, encoding: 'json', size: 12, pageIndex: 0 })
  })

  t.test('project stats start at zero and count sessions, chunks, bytes and signal batches', async (t) => {
    const { store } = await open(t)
    const p = await store.createProject(project())
    t.match(store.projectStats(p.id), { sessionCount: 0, chunkCount: 0, bytes: 0, signalBatches: 0 })
    const body = Buffer.from('[{"x":1}]')
    await store.appendBatch([chunk(p.id, { sk: 'a', seq: 0 }, body), chunk(p.id, { sk: 'a', seq: 1 }, body), chunk(p.id, { sk: 'b', seq: 0 }, body), signals(p.id)])
    t.match(store.projectStats(p.id), { sessionCount: 2, chunkCount: 3, bytes: 3 * body.byteLength, signalBatches: 1 })
    t.match(store.projectStats('prj_other'), { sessionCount: 0, chunkCount: 0, bytes: 0, signalBatches: 0 })
  })

  t.test('lists every session of a project and none of another, whatever characters their keys hold', async (t) => {
    const { store } = await open(t)
    const p = await store.createProject(project({ id: 'prj_a' }))
    const q = await store.createProject(project({ id: 'prj_ab' }))
    // Session keys are client strings: astral characters, U+FFFF, control characters and an empty-looking key.
    const keys = ['plain', '\u{1F600}-emoji', '\uffff\uffff', '\u0001ctl', 'z'.repeat(256), '__proto__']
    await store.appendBatch(keys.map((sk) => chunk(p.id, { sk })))
    await store.appendBatch([chunk(q.id, { sk: 'other-project' })])
    t.same(Array.from(store.listSessions(p.id), (s) => s.sk).sort(), [...keys].sort())
    t.same(Array.from(store.listSessions(q.id), (s) => s.sk), ['other-project'])
    for (const sk of keys) t.equal(store.listChunks(p.id, sk).length, 1, `chunks of ${JSON.stringify(sk)}`)
  })

  t.test('stores signal batches per project, two received in the same millisecond included', async (t) => {
    const { store } = await open(t)
    const p = await store.createProject(project())
    const q = await store.createProject(project())
    const click = { url: 'https://shop.test/', ts: T0, xRatio: 0.5, yDoc: 100, kind: 'rage' as const, n: 3 }
    t.same(await store.appendBatch([signals(p.id, { clicks: [click], dropped: 2 }, T0 + 1), signals(p.id, { sk: 's2' }, T0 + 1), signals(q.id, {}, T0)]), ['stored', 'stored', 'stored'])
    const listed = Array.from(store.listSignals(p.id))
    t.equal(listed.length, 2)
    t.same(listed.map((s) => s.receivedAt), [T0 + 1, T0 + 1])
    matchExactly(t, listed.find((s) => s.batch.sk === 's1')?.batch, { sk: 's1', vid: 'v1', dropped: 2, views: [], clicks: [click], errors: [] })
    t.equal(Array.from(store.listSignals(q.id)).length, 1)
  })

  t.test('a batch resent with its batchId is a duplicate, whenever it arrives; the id is the session\'s own, and one without an id is taken as it comes', async (t) => {
    const { store } = await open(t)
    const p = await store.createProject(project())
    const click = { url: 'https://shop.test/', ts: T0, xRatio: 0.5, yDoc: 100 }
    const first = signals(p.id, { batchId: 'a1.0', clicks: [click] }, T0)
    t.same(await store.appendBatch([first, signals(p.id, { batchId: 'a1.0', clicks: [click] }, T0 + 5)]), ['stored', 'duplicate'], 'in one batch, a moment later')
    t.same(await store.appendBatch([signals(p.id, { batchId: 'a1.0', clicks: [click] }, T0 + 60_000)]), ['duplicate'], 'in a later one, a minute later')
    t.same(await store.appendBatch([signals(p.id, { sk: 's2', batchId: 'a1.0' }, T0 + 1), signals(p.id, { batchId: 'a1.1' }, T0 + 1)]), ['stored', 'stored'], 'the same id in another session, another id in this one')
    t.same(await store.appendBatch([signals(p.id, {}, T0 + 2), signals(p.id, {}, T0 + 2)]), ['stored', 'stored'], 'without ids, both taken')
    t.equal(Array.from(store.listSignals(p.id)).length, 5, 'each stored once')
    t.equal(store.projectStats(p.id).signalBatches, 5, 'and counted once')
  })

  t.test('indexes pages whose keys are as long as a URL may be, multi-byte characters included', async (t) => {
    const { store } = await open(t)
    const p = await store.createProject(project())
    const page = (path: string) => ({ key: `shop.test${path}`, host: 'shop.test', path, firstSeenAt: T0 })
    const ascii = page('/' + 'u'.repeat(1990))
    const wide = page('/' + '\u00e9\u4e16'.repeat(995))
    const url = (pg: { path: string }) => `https://shop.test${pg.path}`
    const items: IngestItem[] = [
      { ...chunk(p.id, { sk: 'long-ascii', url: url(ascii) }), page: ascii },
      { ...chunk(p.id, { sk: 'long-wide', url: url(wide) }), page: wide },
      { ...signals(p.id, { views: [{ url: url(ascii), startedAt: T0, page: ascii.key }], clicks: [{ url: url(wide), ts: T0, xRatio: 0.5, yDoc: 1, page: wide.key, selector: 'a' }] }), pages: [ascii, wide] },
    ]
    t.same(await store.appendBatch(items), ['stored', 'stored', 'stored'])
    t.equal(store.getSession(p.id, 'long-ascii')?.chunkCount, 1)
    t.equal(store.getSession(p.id, 'long-wide')?.chunkCount, 1)
    t.same(store.listPages(p.id).map((pg) => pg.key).sort(), [ascii.key, wide.key].sort())
    t.equal(store.countPages(p.id), 2)
  })

  t.test('an item that cannot be written fails alone: nothing of it is kept, and the rest of its batch is stored', async (t) => {
    const { store } = await open(t)
    const p = await store.createProject(project())
    const body = Buffer.from('[{"x":1}]')
    // A session key far past any documented bound: a backend may store it or refuse it, but never half of it.
    const huge = 'k'.repeat(5_000)
    const outcomes = await store.appendBatch([chunk(p.id, { sk: 'before' }, body), chunk(p.id, { sk: huge }, body), signals(p.id, { sk: 'sig' }), chunk(p.id, { sk: 'after' }, body)])
    t.equal(outcomes.length, 4)
    t.same([outcomes[0], outcomes[2], outcomes[3]], ['stored', 'stored', 'stored'], 'the other items are stored')
    t.ok(outcomes[1] === 'stored' || outcomes[1] === 'failed', `the item is stored or failed, got ${outcomes[1]}`)
    t.equal(store.getSession(p.id, 'before')?.chunkCount, 1)
    t.equal(store.getSession(p.id, 'after')?.chunkCount, 1)
    t.same(Array.from(store.listSignals(p.id), (s) => s.batch.sk), ['sig'])
    const sessions = Array.from(store.listSessions(p.id))
    // (Read through listings: a key that long may not even be readable on its own.)
    t.equal(sessions.some((session) => session.sk === huge), outcomes[1] === 'stored', 'a session for the item only if it was stored')
    const stored = outcomes.filter((o, i) => o === 'stored' && i !== 2).length
    t.match(store.projectStats(p.id), { sessionCount: sessions.length, chunkCount: stored, bytes: stored * body.byteLength, signalBatches: 1 }, 'stats count exactly what was stored')
    t.equal(sessions.length, stored)
    // And the store goes on.
    t.same(await store.appendBatch([chunk(p.id, { sk: 'later' }, body)]), ['stored'])
  })

  t.test('what was committed is there after the store is closed and opened again', async (t) => {
    const handle = await open(t)
    const p = await handle.store.createProject(project())
    const body = Buffer.from('[{"persist":true}]')
    await handle.store.appendBatch([chunk(p.id, { seq: 7 }, body), signals(p.id)])
    const store = await handle.reopen()
    t.equal(store.projectIdForPublicKey(p.publicKey), p.id)
    t.same(Buffer.from(store.getChunk(p.id, 's1', 7)!), body)
    t.equal(store.getSession(p.id, 's1')?.chunkCount, 1)
    t.match(store.projectStats(p.id), { sessionCount: 1, chunkCount: 1, bytes: body.byteLength, signalBatches: 1 })
  })
}
