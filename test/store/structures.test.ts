/**
 * Sessions, chunk records, project counters, signal batches and the
 * aggregates are stored with msgpack record structures shared through their
 * table (src/store/lmdb/index.ts, STRUCTURES). A shape
 * saved inside a child transaction that then aborts (a batch-mate that
 * cannot be stored) is rolled back with it: the values written afterwards
 * must not point at it, or no other process, and no later start, could read
 * them.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { openLmdbStore } from '../../src/store/lmdb/index.js'
import type { IngestItem, SignalsRecord } from '../../src/store/store.js'

const NOW = Date.UTC(2026, 10, 20, 12)

function chunk(sk: string): IngestItem {
  const meta = { sk, vid: 'v', seq: 0, encoding: 'json' as const, url: 'https://shop.test/a', pageIndex: 0, firstTs: NOW, lastTs: NOW, eventCount: 3 }
  return { kind: 'chunk', projectId: 'prj_structures', receivedAt: NOW, meta, body: new TextEncoder().encode('[]'), page: { key: 'shop.test/a', host: 'shop.test', path: '/a', firstSeenAt: NOW } }
}

function item(sk: string, batch: Partial<SignalsRecord>): IngestItem {
  return { kind: 'signals', projectId: 'prj_structures', receivedAt: NOW, batch: { sk, vid: 'v', dropped: 0, views: [], errors: [], clicks: [], ...batch } }
}

t.test('a shape first saved in an aborted child transaction is saved again with the values that use it', async (t) => {
  const path = mkdtempSync(join(tmpdir(), 'svc-store-'))
  t.teardown(() => rmSync(path, { recursive: true, force: true }))
  const open = () => openLmdbStore({ path, mapSize: 256 * 1024 * 1024, durability: 'commit' })
  const store = open()
  const click = { url: 'https://shop.test/a', page: 'shop.test/a', ts: NOW, xRatio: 0.25, yDoc: 10, vw: 1440, selector: '#buy', label: 'Buy', tag: 'button' }
  // Every shape is new to a fresh table. The second item's key is past LMDB's key limit: the batch's
  // child transaction aborts, and each item is then written alone.
  const outcomes = await store.appendBatch([chunk('s1'), item('s1', { clicks: [click] }), item('x'.repeat(2_100), { clicks: [click] })])
  t.same(outcomes, ['stored', 'stored', 'failed'], 'the good items are stored, the bad one fails alone')
  // A later batch of exactly the same shapes, in a transaction of its own: nothing new to save with it.
  t.same(await store.appendBatch([chunk('s2'), item('s2', { clicks: [click] })]), ['stored', 'stored'])
  t.equal(await store.applyDerivations(), 2, 'both folded')
  await store.close()

  // Another process knows only the shapes that were committed: it reads the raw tables with lmdb-js alone.
  const read = execFileSync(process.execPath, ['--input-type=module', '-e', READER, path], { encoding: 'utf8' })
  const { sessions, chunks, stats, signals, derived } = JSON.parse(read) as {
    sessions: unknown[]
    chunks: unknown[]
    stats: unknown
    signals: unknown[]
    derived: { values: number; elements: unknown[] }
  }
  t.same(sessions, [['s1', 1, 'shop.test/a'], ['s2', 1, 'shop.test/a']], 'the session records read back whole')
  t.same(chunks, [['s1', 0, 'json', 2], ['s2', 0, 'json', 2]], 'so does what is known of each chunk')
  t.same(stats, { sessionCount: 2, chunkCount: 2, signalBatches: 2 }, "and the project's counters")
  t.same(signals, [['s1', '#buy', 'Buy'], ['s2', '#buy', 'Buy']], 'every stored batch reads back whole')
  t.ok(derived.values > 5, `the aggregates read back too (${derived.values} values)`)
  t.same(derived.elements, [{ page: 'shop.test/a', selector: '#buy', label: 'Buy', tag: 'button' }], 'the element registry among them')
})

/** Opens both environments in a process of its own and prints what it can decode. */
const READER = `
import { open } from 'lmdb'
const path = process.argv[1]
const shared = { sharedStructuresKey: Symbol.for('structures') }
const root = open({ path, maxDbs: 32, readOnly: true })
const range = { start: ['prj_structures'], end: ['prj_structures', '\\uffff'] }
const sessions = [...root.openDB('sessions', shared).getRange(range)].map(({ value }) => [value.sk, value.chunkCount, value.pages[0]?.page])
const chunks = [...root.openDB('chunk-info', shared).getRange(range)].map(({ key, value }) => [key[1], value.seq, value.encoding, value.size])
const { sessionCount, chunkCount, signalBatches } = root.openDB('project-stats', shared).get('prj_structures')
const stats = { sessionCount, chunkCount, signalBatches }
const signals = [...root.openDB('signals', shared).getRange({ start: ['prj_structures'], end: ['prj_structures', '\\uffff'] })]
  .map(({ value }) => [value.sk, value.clicks[0]?.selector, value.clicks[0]?.label])
const aggregates = open({ path: path + '/aggregates', maxDbs: 8, readOnly: true })
const entries = [...aggregates.openDB('derived', shared).getRange({ start: ['prj_structures'], end: ['prj_structures', '\\uffff'] })]
const elements = entries.filter(({ key }) => key[2] === 'en').map(({ value }) => value)
console.log(JSON.stringify({ sessions, chunks, stats, signals, derived: { values: entries.length, elements } }))
`
