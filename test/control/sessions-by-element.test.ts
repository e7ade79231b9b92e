/**
 * sessions.list {page, selector}: the sessions that clicked an element of the
 * leaderboard, through the real cluster (few sessions: read from the
 * element's own index) and through the store with more sessions than that
 * index lists directly (the time index is scanned with them as a filter).
 */
import { rmSync } from 'node:fs'
import t from 'tap'
import { READ_LIMITS, ReadBudget } from '../../src/store/read-budget.js'
import { groupUrl } from '../../src/grouping/group.js'
import type { IngestItem } from '../../src/store/store.js'
import { call } from '../helpers/api.js'
import { clusterFor, tempDataDir } from '../helpers/cluster.js'
import { foldAll } from '../helpers/fold.js'
import { postChunk, postSignals } from '../helpers/read.js'
import { seedProject, storeAt } from '../helpers/seed.js'

const NOW = Date.now()

/** A project in a fresh data directory, written and read through the store module (no cluster). */
async function seededStore(t: { teardown(fn: () => unknown): void }) {
  const dataDir = tempDataDir()
  const { project } = await seedProject(dataDir)
  const store = storeAt(dataDir)
  t.teardown(async () => {
    await store.close()
    rmSync(dataDir, { recursive: true, force: true })
  })
  return { project, store }
}
const body = Buffer.from('[{"type":3,"timestamp":1,"data":{}}]')

t.test('lists exactly the sessions that clicked the element, newest first, paged, with the other filters', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const { apiKey, project } = await seedProject(cluster.dataDir)
  const list = (filters: Record<string, unknown>) => call(cluster.url, '/cli/sessions.list', { token: apiKey, body: { projectId: project.id, ...filters } })
  const keys = async (filters: Record<string, unknown>) => {
    const answer = await list(filters)
    t.equal(answer.status, 200, JSON.stringify(filters))
    return answer.body.sessions.map((s: any) => s.sessionKey)
  }

  const click = (url: string, selector: string, extra: Record<string, unknown> = {}) => ({ url, ts: NOW - 5_000, xRatio: 0.5, yDoc: 100, selector, tag: 'button', ...extra })
  // [session, started seconds ago, its clicks (in two batches for s1)]
  const sessions: [string, number, ReturnType<typeof click>[][]][] = [
    ['s1', 50, [[click('https://shop.test/product/1', '#buy')], [click('https://shop.test/product/1', '#buy')]]],
    ['s2', 40, [[click('https://shop.test/product/2', '#buy', { kind: 'rage', n: 3 })]]],
    ['s3', 30, [[click('https://shop.test/product/3', '#nav')]]],
    ['s4', 20, [[click('https://shop.test/cart', '#buy')]]],
    ['s5', 10, [[click('https://shop.test/product/4', '#buy')]]],
  ]
  for (const [sk, ago, batches] of sessions) {
    const startedAt = NOW - ago * 1000
    t.equal(await postChunk(cluster.url, project.publicKey, { sk, seq: 0, startedAt, firstTs: startedAt, lastTs: startedAt + 1000, url: batches[0][0].url }, body), 200)
    for (const clicks of batches) t.equal(await postSignals(cluster.url, project.publicKey, { sk, vid: `v-${sk}`, clicks }), 200)
  }

  t.same(await keys({ page: '/product/:id', selector: '#buy' }), ['s5', 's2', 's1'], 'the product page\'s #buy, newest first, each session once')
  t.same(await keys({ page: '/product/:id', selector: '#nav' }), ['s3'])
  t.same(await keys({ page: '/cart', selector: '#buy' }), ['s4'], 'the same selector on another page is another element')
  t.same(await keys({ page: '/product/:id', selector: '#missing' }), [])
  t.same(await keys({ page: '/product/:id', selector: '#buy', hasRage: true }), ['s2'], 'combined with another filter')
  t.same(await keys({ page: '/product/:id', selector: '#buy', since: NOW - 45_000, until: NOW - 15_000 }), ['s2'], 'within a time range')

  const paged: string[] = []
  let cursor: string | undefined
  do {
    const answer = await list({ page: '/product/:id', selector: '#buy', limit: 1, ...(cursor ? { cursor } : {}) })
    t.equal(answer.status, 200)
    paged.push(...answer.body.sessions.map((s: any) => s.sessionKey))
    cursor = answer.body.nextCursor ?? undefined
  } while (cursor && paged.length < 10)
  t.same(paged, ['s5', 's2', 's1'], 'a page at a time, neither skipping nor repeating')

  const noPage = await list({ selector: '#buy' })
  t.equal(noPage.status, 400)
  t.equal(noPage.body.code, 'invalid_request')
  t.match(noPage.body.error, /selector needs page/)
  const tooLong = await list({ page: '/product/:id', selector: 'x'.repeat(257) })
  t.equal(tooLong.status, 400)
  t.equal(tooLong.body.code, 'invalid_request')
  const empty = await list({ page: '/product/:id', selector: '' })
  t.equal(empty.status, 400)
  t.equal(empty.body.code, 'invalid_request')
})

t.test('an element clicked in more sessions than its index lists directly is found by scanning with them as a filter', async (t) => {
  const { project, store } = await seededStore(t)
  const url = 'https://shop.test/pricing'
  const page = { ...groupUrl(url, []), firstSeenAt: NOW }
  const SESSIONS = 2_100
  const items: IngestItem[] = []
  for (let i = 0; i < SESSIONS; i++) {
    const sk = `s${String(i).padStart(5, '0')}`
    const startedAt = NOW - (SESSIONS - i) * 1000
    items.push({ kind: 'chunk', projectId: project.id, receivedAt: NOW, body, page, meta: { sk, vid: 'v', seq: 0, encoding: 'json', url, startedAt, firstTs: startedAt, lastTs: startedAt } })
    // Every session clicks #plan; every third one also #faq.
    const clicks = [{ url, ts: startedAt, xRatio: 0.1, yDoc: 10, selector: '#plan', page: page.key }]
    if (i % 3 === 0) clicks.push({ url, ts: startedAt, xRatio: 0.9, yDoc: 10, selector: '#faq', page: page.key })
    items.push({ kind: 'signals', projectId: project.id, receivedAt: NOW, pages: [page], batch: { sk, vid: 'v', dropped: 0, views: [], clicks, errors: [] } })
  }
  for (let i = 0; i < items.length; i += 500) await store.appendBatch(items.slice(i, i + 500))
  await foldAll(store)

  const all = (selector: string) => {
    const found: string[] = []
    let after
    for (let calls = 0; calls < 100; calls++) {
      const answer = store.listSessionPage(project.id, { pages: [page.key], selector, limit: 200, after })
      found.push(...answer.sessions.map((s) => s.session.sk))
      if (!answer.next) break
      after = answer.next
    }
    return found
  }
  const plan = all('#plan')
  t.equal(plan.length, SESSIONS, 'every session that clicked #plan, over the scan path')
  t.equal(new Set(plan).size, SESSIONS, 'none twice')
  t.same(plan.slice(0, 2), ['s02099', 's02098'], 'newest first')
  const faq = all('#faq')
  t.equal(faq.length, Math.ceil(SESSIONS / 3), 'only the sessions that clicked #faq, over the direct path')
  t.ok(faq.every((sk) => Number(sk.slice(1)) % 3 === 0))
})

t.test('a selective filter answers within its scan budget: short pages with a cursor, and every match over the pages', async (t) => {
  const { SESSION_SCAN_BUDGET } = await import('../../src/store/insights.js')
  const { project, store } = await seededStore(t)
  const url = 'https://shop.test/'
  const page = { ...groupUrl(url, []), firstSeenAt: NOW }
  const SESSIONS = SESSION_SCAN_BUDGET * 2 + 300
  const items: IngestItem[] = []
  for (let i = 0; i < SESSIONS; i++) {
    const startedAt = NOW - (SESSIONS - i) * 1000
    // Only the three oldest sessions belong to account "rare".
    const identity = i < 3 ? { accountId: 'rare' } : undefined
    items.push({ kind: 'chunk', projectId: project.id, receivedAt: NOW, body, page, meta: { sk: `s${String(i).padStart(5, '0')}`, vid: 'v', seq: 0, encoding: 'json', url, startedAt, firstTs: startedAt, lastTs: startedAt, identity } })
  }
  for (let i = 0; i < items.length; i += 1000) await store.appendBatch(items.slice(i, i + 1000))

  const calls: number[] = []
  const found: string[] = []
  let after
  for (let call = 0; call < 10; call++) {
    // Time is the budget's backstop (10 ms): left out here, so that the entries alone are what each page examines.
    const budget = new ReadBudget({ ...READ_LIMITS, ms: Number.POSITIVE_INFINITY })
    const answer = store.listSessionPage(project.id, { accountId: 'rare', limit: 50, after, budget })
    calls.push(answer.sessions.length)
    found.push(...answer.sessions.map((s) => s.session.sk))
    if (!answer.next) break
    after = answer.next
  }
  t.same(calls, [0, 0, 3], 'two empty pages with a cursor (each examined the budget), then the three')
  t.same(found, ['s00002', 's00001', 's00000'])
})
