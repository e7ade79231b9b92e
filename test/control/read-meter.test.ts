/**
 * Every read of the read pool runs under READ_MAX_ENTRIES and READ_MAX_BYTES
 * (src/store/lmdb/read-meter.ts), counted at the tables themselves, so that
 * no operation can forget its bound. On a project built to make every read
 * examine many entries: each read's cost is counted exactly (one entry less
 * and it stops), and through the pool's threads a read past either bound is
 * answered 400 invalid_request naming it, while the same reads under a larger
 * bound answer what the store answers. Counts only: nothing here is timed.
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { threadReads, type ReadArgs, type ReadMethod } from '../../src/control/read-pool.js'
import { ApiError, statusOf } from '../../src/errors.js'
import { openLmdbStore } from '../../src/store/lmdb/index.js'
import { installMeter, metered, ReadMeter, ReadPastBound } from '../../src/store/lmdb/read-meter.js'
import { READ_LIMITS, ReadBudget } from '../../src/store/read-budget.js'
import { foldAll } from '../helpers/fold.js'
import { chunk, signals } from '../store/insights.case.js'

const DAY = 24 * 60 * 60 * 1000
const now = Date.UTC(2026, 0, 20, 12)
const since = now - 8 * DAY
const PAGES = Array.from({ length: 30 }, (_, i) => `https://shop.test/p${i}`)

t.test('each pool read is bounded by the entries and bytes it examines, exactly, and answered 400 past them', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-read-meter-'))
  const config = { dataDir: dir, mapSizeBytes: 256 * 1024 * 1024, durability: 'commit' as const, maxPagesPerProject: 10_000 }
  const store = openLmdbStore({ path: dir, mapSize: config.mapSizeBytes, durability: 'commit' })
  t.teardown(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  // Worst case at a small scale: every page active on every day, each with clicks on many elements, rage, dead clicks and errors, many sessions.
  for (let day = 0; day < 7; day++) {
    const at = since + day * DAY + 3_600_000
    const batches = PAGES.map((url, p) =>
      signals('prj_meter', at, {
        sk: `s${day}-${p}`,
        views: [{ url, startedAt: at }],
        clicks: Array.from({ length: 12 }, (_, c) => ({ url, ts: at + c * 100, xRatio: c / 12, yDoc: 50 * c, vw: 1440, selector: `#e${c}`, kind: c === 0 ? ('rage' as const) : c === 1 ? ('dead' as const) : ('click' as const) })),
        errors: [{ url, ts: at + 5, message: `TypeError: e${p} of undefined` }],
      }),
    )
    await store.appendBatch(batches)
    await store.appendBatch(PAGES.map((url, p) => chunk('prj_meter', { sk: `s${day}-${p}`, url, startedAt: at, firstTs: at, lastTs: at + 60_000 }, at)))
  }
  await foldAll(store)

  const range = { since, until: now }
  const reads: { [M in ReadMethod]?: ReadArgs<M> } = {
    overview: ['prj_meter', { ...range, bucket: 'hour', top: 20 }],
    heatmap: ['prj_meter', { ...range, pages: store.listSignalPages('prj_meter'), kind: 'click' }],
    topElements: ['prj_meter', { ...range, limit: 100 }],
    listFriction: ['prj_meter', { ...range, limit: 200 }],
    pageInsights: ['prj_meter', { ...range, pages: store.listSignalPages('prj_meter') }],
    listSessionPage: ['prj_meter', { limit: 200 }],
  }
  const entries = Object.keys(reads) as ReadMethod[]
  // The session list also stops at its own 10 ms (read-budget.ts): here, in this process, without it, so that its cost is entries alone.
  const untimed = (method: ReadMethod) => (method === 'listSessionPage' ? ['prj_meter', { limit: 200, budget: new ReadBudget({ ...READ_LIMITS, ms: Number.POSITIVE_INFINITY }) }] : reads[method])
  const call = (method: ReadMethod) => (store[method] as (...a: unknown[]) => unknown).apply(store, untimed(method) as unknown[])

  // In this process, with the same meter a read thread installs: the exact cost of each read, and the bound at one entry less.
  installMeter(Object.values(store.tables))
  const cost = new Map<ReadMethod, { entries: number; bytes: number }>()
  for (const method of entries) {
    const meter = new ReadMeter({ entries: Infinity, bytes: Infinity })
    await metered(meter, () => call(method))
    cost.set(method, { entries: meter.entries, bytes: meter.bytes })
    t.ok(meter.entries >= 30, `${method} examines ${meter.entries} entries (${meter.bytes} bytes) on this project`)
    const short = new ReadMeter({ entries: meter.entries - 1, bytes: Infinity })
    await t.rejects(metered(short, () => call(method)), new ReadPastBound('entries', meter.entries - 1), `${method} stops at one entry less`)
    t.equal(short.entries, meter.entries - 1, 'having examined exactly its bound')
    await t.resolves(metered(new ReadMeter(meter), () => call(method)), `${method} is answered at exactly its cost`)
  }
  t.notOk(metered(new ReadMeter({ entries: 1, bytes: 1 }), () => 0) instanceof ReadPastBound, 'a read that examines nothing costs nothing')

  // Through the pool's threads: every read past its bound is answered 400 invalid_request naming it; under it, what the store answers.
  const smallest = Math.min(...[...cost.values()].map((c) => c.entries))
  const refusing = threadReads({ ...config, readMaxEntries: smallest - 1 }, 1, 60_000, new URL('../../dist/read.js', import.meta.url))
  const roomy = threadReads({ ...config, readMaxEntries: 1_000_000, readMaxBytes: 64 * 1024 * 1024 }, 1, 60_000, new URL('../../dist/read.js', import.meta.url))
  t.teardown(() => Promise.all([refusing.close(), roomy.close()]))
  for (const method of entries) {
    const outcome = await refusing.run('org_a', method, reads[method] as never).then((answer) => answer, (e: unknown) => e)
    // In the thread the session list keeps its 10 ms: on a loaded machine its page may end at that first, with its cursor.
    if (method === 'listSessionPage' && !(outcome instanceof ApiError)) {
      t.ok((outcome as ReturnType<typeof store.listSessionPage>).next, 'the session list stopped at its own budget first, with a cursor')
      continue
    }
    const error = outcome
    t.ok(error instanceof ApiError, `${method} past the bound is refused as an API error`)
    t.equal((error as ApiError).code, 'invalid_request')
    t.equal(statusOf((error as ApiError).code), 400)
    t.match((error as ApiError).message, `more than ${smallest - 1} entries, the most one read may (READ_MAX_ENTRIES)`, 'naming the bound')
    const there = await roomy.run('org_a', method, reads[method] as never)
    if (method !== 'listSessionPage') t.same(there, call(method), `${method} under the bound answers as the store does`)
    else {
      // The session list also stops at its own 10 ms (read-budget.ts) on a loaded machine: one answer is a page of the other.
      const [a, b] = [(there as ReturnType<typeof store.listSessionPage>).sessions, store.listSessionPage(...reads.listSessionPage!).sessions].sort((x, y) => x.length - y.length)
      t.ok(a.length > 0, 'the session list under the bound answers sessions')
      t.same(a, b.slice(0, a.length), 'as the store does')
    }
  }
  const heaviest = entries.reduce((a, b) => (cost.get(a)!.bytes >= cost.get(b)!.bytes ? a : b))
  const byBytes = threadReads({ ...config, readMaxBytes: cost.get(heaviest)!.bytes - 1 }, 1, 60_000, new URL('../../dist/read.js', import.meta.url))
  t.teardown(() => byBytes.close())
  const error = await byBytes.run('org_a', heaviest, reads[heaviest] as never).then(() => undefined, (e: unknown) => e as ApiError)
  t.equal(error?.code, 'invalid_request', `${heaviest}, the read that materialises most, is refused past its bytes`)
  t.match(error?.message, 'bytes of values, the most one read may (READ_MAX_BYTES)')
  t.equal(await byBytes.run('org_a', 'applyDerivations', [4]), 0, 'a fold, which writes, is never metered')
})
