/**
 * The control worker's read pool (src/control/read-pool.ts): organisations'
 * reads take the threads in a fair order, and a read in a thread answers
 * what the store answers where it is, including what was committed a moment
 * before on another thread. Order and values only: nothing here is timed.
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FairQueue, threadReads } from '../../src/control/read-pool.js'
import { ApiError, statusOf } from '../../src/errors.js'
import { FairTurns } from '../../src/control/turns.js'
import { openLmdbStore } from '../../src/store/lmdb/index.js'
import type { ClickHeatmap } from '../../src/store/insights.js'
import { foldAll } from '../helpers/fold.js'
import { chunk, signals } from '../store/insights.case.js'

t.test('an organisation with a read running takes no other thread while another organisation waits', async (t) => {
  const queue = new FairQueue<{ org: string; name: string }>()
  for (let i = 1; i <= 4; i++) queue.push({ org: 'hostile', name: `h${i}` })
  queue.push({ org: 'bystander', name: 'b1' })
  queue.push({ org: 'other', name: 'o1' })
  const first = queue.take()!
  const second = queue.take()!
  t.same([first.name, second.name], ['h1', 'b1'], 'two threads: the hostile organisation gets one, the bystander the other')
  queue.done(first)
  t.equal(queue.take()!.name, 'o1', 'the next free thread goes to the organisation with nothing running, not to the hostile one\'s second read')
  queue.done(second)
  t.equal(queue.take()!.name, 'h2', 'with no one else waiting, the hostile organisation\'s reads go on')
  t.equal(queue.take()!.name, 'h3', 'and may take every free thread')
  t.equal(queue.waiting, 1)
})

t.test('a step that waits for a read gives its organisation\'s turn away meanwhile', async (t) => {
  const turns = new FairTurns(100)
  const done: string[] = []
  let finishRead!: (rows: number) => void
  const reading = turns.run('hostile', async (turn) => {
    done.push('hostile asks')
    const rows = await turn.away(() => new Promise<number>((resolve) => (finishRead = resolve)))
    done.push(`hostile answers ${rows}`)
    return rows
  })
  const other = turns.run('bystander', () => (done.push('bystander served'), 'ok'))
  t.equal(await other, 'ok', 'served while the hostile read is out')
  finishRead(7)
  t.equal(await reading, 7)
  t.same(done, ['hostile asks', 'bystander served', 'hostile answers 7'])
  t.same(turns.served, ['hostile', 'bystander', 'hostile'], 'the read\'s answer waited for its organisation\'s turn again')
})

t.test('a read in a thread answers what the store answers, and sees what was committed just before', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-read-pool-'))
  const config = { dataDir: dir, mapSizeBytes: 256 * 1024 * 1024, durability: 'commit' as const, maxPagesPerProject: 10_000 }
  const store = openLmdbStore({ path: dir, mapSize: config.mapSizeBytes, durability: 'commit' })
  // The pool's thread runs the built reader (workers/read.ts), as the control worker does.
  const reads = threadReads(config, 2, 60_000, new URL('../../dist/read.js', import.meta.url))
  t.teardown(async () => {
    await reads.close()
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const now = Date.UTC(2026, 0, 5, 10, 30)
  const click = (n: number) => ({ url: 'https://shop.test/pricing', ts: now + n, xRatio: 0.5, yDoc: 100, vw: 1440, selector: '#plan' })
  await store.appendBatch([signals('prj_pool', now, { sk: 's1', clicks: [click(1), click(2)] })])
  await foldAll(store)
  const query = { since: now - 3_600_000, until: now + 3_600_000, pages: ['shop.test/pricing'], kind: 'click' as const }
  const there = await reads.run('org_a', 'heatmap', ['prj_pool', query])
  t.same(there, store.heatmap('prj_pool', query), 'the same answer from the thread as from here')
  t.equal((there as ClickHeatmap).total, 2)
  await store.appendBatch([signals('prj_pool', now, { sk: 's2', clicks: [click(3)] })])
  await foldAll(store)
  t.equal(((await reads.run('org_a', 'heatmap', ['prj_pool', query])) as ClickHeatmap).total, 3, 'a commit of this thread is in the next read of the pool')
  await store.appendBatch([signals('prj_pool', now, { sk: 's3', clicks: [click(4)] })])
  t.equal(await reads.run('org_a', 'applyDerivations', [4]), 1, 'a read\'s fold runs in the pool too, and answers once committed')
  t.equal((store.heatmap('prj_pool', query) as ClickHeatmap).total, 4, 'what the pool folded is seen here')
  t.equal(store.derivationLag(), 0)
  const [overview, elements] = await Promise.all([
    reads.run('org_a', 'overview', ['prj_pool', { since: now - 3_600_000, until: now + 3_600_000, bucket: 'hour', top: 5 }]),
    reads.run('org_b', 'topElements', ['prj_pool', { since: now - 3_600_000, until: now + 3_600_000, limit: 5 }]),
  ])
  t.same(overview, store.overview('prj_pool', { since: now - 3_600_000, until: now + 3_600_000, bucket: 'hour', top: 5 }), 'typed arrays and all')
  t.same(elements, store.topElements('prj_pool', { since: now - 3_600_000, until: now + 3_600_000, limit: 5 }))
  // A search's query is data too (its path pattern compiled, not a function): it crosses to the thread whole.
  await store.appendBatch(['s1', 's2', 's3'].map((sk) => chunk('prj_pool', { sk, startedAt: now, firstTs: now, lastTs: now + 1_000 }, now)))
  await store.appendBatch([signals('prj_pool', now, { sk: 's1', views: [{ url: 'https://shop.test/pricing', startedAt: now + 10 }] })])
  await foldAll(store)
  const search = { limit: 10, find: { visited: { pattern: '/pricing', segments: [{ kind: 'literal' as const, value: 'pricing' }], rest: false } } }
  const found = await reads.run('org_a', 'listSessionPage', ['prj_pool', search])
  t.same(found, store.listSessionPage('prj_pool', search), 'a session search answers the same from the thread')
  t.same(found.sessions.map((s) => s.session.sk), ['s1'], 'the one session that visited the path')
})

t.test('a reader that dies fails only the read it had; its slot gets a new reader and the next read is answered', async (t) => {
  const config = { dataDir: '/nonexistent', mapSizeBytes: 1, durability: 'commit' as const, maxPagesPerProject: 1 }
  const reads = threadReads(config, 1, 60_000, new URL('../fixtures/read-worker-exits.mjs', import.meta.url))
  t.teardown(() => reads.close())
  t.equal(await reads.run('org_a', 'overview', [] as never), 'overview', 'a read is answered')
  await t.rejects(reads.run('org_a', 'heatmap', [] as never), /the read thread exited \(3\) during heatmap/, 'the read whose thread died is answered as failed')
  // Asked while the slot has no live reader: it waits for the new one rather than going to the dead one.
  t.equal(await reads.run('org_b', 'topElements', [] as never), 'topElements', 'and the next is answered by the new reader')
})

t.test('a read past the deadline is stopped with its thread and answered 400 invalid_request; the next read gets a new thread', async (t) => {
  const config = { dataDir: '/nonexistent', mapSizeBytes: 1, durability: 'commit' as const, maxPagesPerProject: 1 }
  const reads = threadReads(config, 1, 200, new URL('../fixtures/read-worker-stuck.mjs', import.meta.url))
  t.teardown(() => reads.close())
  // The fixture answers a method's name and its thread's number in place of the method's answer.
  const first = (await reads.run('org_a', 'heatmap', [] as never)) as unknown as string
  const stuck = reads.run('org_a', 'overview', [] as never)
  // Queued behind the stuck read on the only thread: answered by the thread that replaces it.
  const next = reads.run('org_b', 'topElements', [] as never)
  const error = await stuck.then(() => undefined, (e: unknown) => e as ApiError)
  t.ok(error instanceof ApiError, 'answered as an API error')
  t.equal(error?.code, 'invalid_request')
  t.equal(statusOf(error!.code), 400)
  t.match(error?.message, /more than 200 ms, the most one read may take/, 'naming the bound')
  const answer = (await next) as unknown as string
  t.match(answer, /^topElements \d+$/)
  t.not(answer.split(' ')[1], first.split(' ')[1], 'on a new thread: the stopped one is gone')
})

t.test('a fold is never cut at the deadline: it writes', async (t) => {
  const config = { dataDir: '/nonexistent', mapSizeBytes: 1, durability: 'commit' as const, maxPagesPerProject: 1 }
  // The fixture's fold answers after 300 ms, three times this deadline.
  const reads = threadReads(config, 2, 100, new URL('../fixtures/read-worker-stuck.mjs', import.meta.url))
  t.teardown(() => reads.close())
  const fold = reads.run('org_a', 'applyDerivations', [4])
  const beside = (await reads.run('org_b', 'heatmap', [] as never)) as unknown as string
  const folded = (await fold) as unknown as string
  t.match(folded, /^applyDerivations \d+$/, 'the fold answered')
  t.not(folded.split(' ')[1], beside.split(' ')[1], 'and the other read ran beside it, on the second thread')
})
