/**
 * Group commit's bounds, on the in-memory log with appends held by hand: how
 * many groups of one stream are in flight, how large a group grows, how long
 * a lone item waits, and that a refused group refuses each of its items.
 */
import t from 'tap'
import { decodeIngestMessage, encodeIngest } from '../../src/journal/entries.js'
import { GroupCommit } from '../../src/journal/group-commit.js'
import { LogFull, type Appended, type Log } from '../../src/journal/log.js'
import { MemoryLog } from '../../src/journal/memory-log.js'
import { testLogSeal } from '../helpers/log-secret.js'

const STREAMS = [
  { name: 'A', subjects: ['a.>'] },
  { name: 'B', subjects: ['b.>'] },
]

/** The memory log with each append held until `release()`: what is in flight can be counted. */
function heldLog() {
  const inner = new MemoryLog(STREAMS)
  const held: (() => void)[] = []
  let most = 0
  let inFlight = 0
  const log: Log = {
    read: inner.read.bind(inner),
    heads: inner.heads.bind(inner),
    get: inner.get.bind(inner),
    getFromLeader: inner.getFromLeader.bind(inner),
    remove: inner.remove.bind(inner),
    close: inner.close.bind(inner),
    async append(subject, data, options): Promise<Appended> {
      inFlight += 1
      most = Math.max(most, inFlight)
      await new Promise<void>((resolve) => held.push(resolve))
      inFlight -= 1
      return inner.append(subject, data, options)
    },
  }
  return { log, inner, release: () => held.splice(0).forEach((go) => go()), most: () => most, waiting: () => held.length }
}

const frame = (n: number, bytes = 1_000) =>
  encodeIngest({ after: 0, item: { kind: 'chunk', projectId: 'p', receivedAt: 1, meta: { sk: 's', vid: 'v', seq: n, encoding: 'json' }, body: new Uint8Array(bytes).fill(n % 256) } })

const tick = () => new Promise((resolve) => setTimeout(resolve, 5))

t.test('at most inFlight groups per stream are published at once; items arriving meanwhile wait in groups of at most maxBytes', async (t) => {
  const { log, inner, release, most, waiting } = heldLog()
  const groups = new GroupCommit(log, testLogSeal, { windowMs: 0, maxBytes: 10_000, inFlight: 2 })
  const deadline = Date.now() + 10_000
  const placed = Array.from({ length: 60 }, (_, n) => groups.add('A', 'a.group', frame(n), deadline))
  const other = groups.add('B', 'b.group', frame(99), deadline)
  await tick()
  t.equal(waiting(), 3, 'two groups of stream A in flight, and one of B: the bound is per stream')
  while (waiting() > 0) {
    release()
    await tick()
  }
  t.equal(most(), 3)
  const places = await Promise.all(placed)
  await other
  const entries = (await inner.heads(['A'])).get('A')!
  t.ok(entries < 60 && entries >= 60 / 9, `60 items in ${entries} messages of at most 10,000 bytes (9 frames)`)
  for (let seq = 1; seq <= entries; seq++) {
    const data = (await inner.get('A', seq))!
    t.ok(data.byteLength <= 10_000 + 64, `message ${seq}: ${data.byteLength} bytes, sealed`)
  }
  // Each item is where its place says: its group's sequence, its index in the group.
  for (const [n, place] of places.entries()) {
    const entry = decodeIngestMessage(testLogSeal.open('ingest', (await inner.get('A', place.seq))!))[place.part]
    if (entry.item.kind !== 'chunk' || entry.item.meta.seq !== n) t.fail(`item ${n} is not at ${JSON.stringify(place)}`)
  }
  t.same(places.map((p) => p.seq), [...places.map((p) => p.seq)].sort((x, y) => x - y), 'groups keep the order items arrived in')
})

t.test('a lone item goes out after the window, not later', async (t) => {
  const log = new MemoryLog(STREAMS)
  const groups = new GroupCommit(log, testLogSeal, { windowMs: 30, maxBytes: 1 << 20, inFlight: 4 })
  const started = performance.now()
  await groups.add('A', 'a.group', frame(1), Date.now() + 10_000)
  const waited = performance.now() - started
  t.ok(waited >= 25 && waited < 500, `acknowledged after ${waited.toFixed(0)} ms`)
  const many = await Promise.all(Array.from({ length: 5 }, (_, n) => groups.add('A', 'a.group', frame(n), Date.now() + 10_000)))
  t.equal(new Set(many.map((p) => p.seq)).size, 1, 'items inside one window share one message')
})

t.test('a group the log refuses refuses each of its items with the log\'s error', async (t) => {
  const log = new MemoryLog([{ name: 'A', subjects: ['a.>'], maxBytes: 5_000 }])
  const groups = new GroupCommit(log, testLogSeal, { windowMs: 10, maxBytes: 1 << 20, inFlight: 1 })
  const settled = await Promise.allSettled(Array.from({ length: 8 }, (_, n) => groups.add('A', 'a.group', frame(n), Date.now() + 10_000)))
  t.same(new Set(settled.map((s) => s.status)), new Set(['rejected']))
  t.ok(settled.every((s) => s.status === 'rejected' && s.reason instanceof LogFull), 'LogFull, so the front answers 429 at once')
  t.equal((await log.heads(['A'])).get('A'), 0, 'nothing of the group was added')
})
