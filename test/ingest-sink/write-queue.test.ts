/**
 * The write queue batches ingest items for the writer pool. A fake pool stands
 * in for piscina: it records each task and lets the test decide when (and how)
 * each one settles.
 */
import t from 'tap'
import type { WriteItem, WriteOutcome, WriteResult, WriteTask } from '../../src/supervisor/messages.js'
import { BIG_SIGNALS_BYTES, bigSignalsAside, WriteQueue } from '../../src/ingest-sink/write-queue.js'

interface Call {
  task: WriteTask
  transferList: readonly unknown[]
  resolve(result: WriteResult): void
  reject(error: unknown): void
}

function fakePool() {
  const calls: Call[] = []
  return {
    calls,
    run(task: WriteTask, options?: { transferList?: readonly unknown[] }): Promise<WriteResult> {
      return new Promise((resolve, reject) => calls.push({ task, transferList: options?.transferList ?? [], resolve, reject }))
    },
    /** Answers a call with "stored" for every item. */
    store(i: number) {
      calls[i].resolve({ outcomes: calls[i].task.items.map((): WriteOutcome => 'stored') })
    },
  }
}

let nextSeq = 0
function chunk(bytes = 10): WriteItem {
  return { kind: 'chunk', projectId: 'prj_1', receivedAt: 1, meta: { sk: 's', vid: 'v', seq: nextSeq++, encoding: 'json' }, body: new Uint8Array(bytes) }
}
function signals(bytes = 10): WriteItem {
  return { kind: 'signals-body', projectId: 'prj_1', receivedAt: 1, body: new Uint8Array(bytes) }
}

const turn = () => new Promise((resolve) => setImmediate(resolve))
const options = { maxItems: 64, maxBytes: 1_000_000, maxInFlight: 2, maxQueuedItems: 10_000, maxQueuedBytes: 100_000_000 }

t.test('items enqueued in one event-loop turn go to the pool as one task', async (t) => {
  const pool = fakePool()
  const queue = new WriteQueue(pool, options)
  const items = [chunk(), signals(), chunk()]
  const done = Promise.all(items.map((item) => queue.enqueue(item)))
  t.equal(pool.calls.length, 0, 'waits for the turn to end')
  await turn()
  t.equal(pool.calls.length, 1)
  t.same(pool.calls[0].task.items, items)
  pool.store(0)
  t.same(await done, ['stored', 'stored', 'stored'])
  t.equal(queue.written, 3)
})

t.test('each item resolves with its own outcome', async (t) => {
  const pool = fakePool()
  const queue = new WriteQueue(pool, options)
  const done = Promise.all([queue.enqueue(chunk()), queue.enqueue(chunk()), queue.enqueue(chunk())])
  await turn()
  pool.calls[0].resolve({ outcomes: ['stored', 'duplicate', 'failed'] })
  t.same(await done, ['stored', 'duplicate', 'failed'])
})

t.test('a batch holds at most maxItems items; a full batch leaves at once', async (t) => {
  const pool = fakePool()
  const queue = new WriteQueue(pool, { ...options, maxItems: 4, maxInFlight: 10 })
  const done = Promise.all(Array.from({ length: 10 }, () => queue.enqueue(chunk())))
  t.equal(pool.calls.length, 2, 'two full batches leave without waiting for the turn')
  await turn()
  t.same(pool.calls.map((c) => c.task.items.length), [4, 4, 2])
  pool.calls.forEach((_, i) => pool.store(i))
  t.equal((await done).length, 10)
})

t.test('a batch holds at most maxBytes of bodies, and a body larger than that still goes, alone', async (t) => {
  const pool = fakePool()
  const queue = new WriteQueue(pool, { ...options, maxBytes: 100, maxInFlight: 10 })
  const sizes = [40, 40, 40, 500, 10, 90, 20]
  const done = Promise.all(sizes.map((size) => queue.enqueue(chunk(size))))
  await turn()
  t.same(
    pool.calls.map((c) => c.task.items.map((item) => item.body.byteLength)),
    [[40, 40], [40], [500], [10, 90], [20]],
  )
  pool.calls.forEach((_, i) => pool.store(i))
  await done
})

t.test('a task takes at most 256 KiB of signals bodies (parsed on the writing thread); chunks beside them are bounded by maxBytes only', async (t) => {
  const pool = fakePool()
  const queue = new WriteQueue(pool, { ...options, maxInFlight: 10 })
  const KB = 1024
  const items = [signals(285 * KB), signals(285 * KB), chunk(300 * KB), signals(100 * KB), signals(100 * KB), signals(100 * KB), ...Array.from({ length: 40 }, () => signals(5 * KB))]
  const done = Promise.all(items.map((item) => queue.enqueue(item)))
  await turn()
  t.same(
    pool.calls.map((c) => c.task.items.map((item) => `${item.kind === 'chunk' ? 'c' : 's'}${item.body.byteLength / KB}`)),
    [['s285'], ['s285', 'c300'], ['s100', 's100'], ['s100', ...Array.from({ length: 31 }, () => 's5')], Array.from({ length: 9 }, () => 's5')],
    'a flood batch goes alone, ordinary ones dozens to a task',
  )
  pool.calls.forEach((_, i) => pool.store(i))
  await done
})

t.test('at most maxInFlight tasks run at once; items that wait join the next batch', async (t) => {
  const pool = fakePool()
  const queue = new WriteQueue(pool, { ...options, maxInFlight: 2 })
  const first = queue.enqueue(chunk())
  await turn()
  const second = queue.enqueue(chunk())
  await turn()
  t.equal(pool.calls.length, 2)
  // The pipeline is full: these wait, whatever the number of turns.
  const waiting = [queue.enqueue(chunk()), queue.enqueue(chunk())]
  await turn()
  const more = queue.enqueue(chunk())
  await turn()
  await turn()
  t.equal(pool.calls.length, 2, 'nothing more is handed over while two tasks run')
  t.ok(queue.busy)
  pool.store(0)
  await first
  t.equal(pool.calls.length, 3)
  t.equal(pool.calls[2].task.items.length, 3, 'the three waiting items leave together')
  pool.store(1)
  pool.store(2)
  t.same(await Promise.all([second, ...waiting, more]), ['stored', 'stored', 'stored', 'stored'])
  await turn()
  t.notOk(queue.busy)
})

t.test('a rejected task answers every item of its batch unavailable (never acknowledged), and later batches still run', async (t) => {
  const pool = fakePool()
  const queue = new WriteQueue(pool, { ...options, maxInFlight: 1 })
  const failed = [queue.enqueue(chunk()), queue.enqueue(chunk())]
  await turn()
  const later = queue.enqueue(chunk())
  await turn()
  pool.calls[0].reject(new Error('writer thread died'))
  t.same(await Promise.all(failed), ['unavailable', 'unavailable'])
  await turn()
  t.equal(pool.calls.length, 2)
  pool.store(1)
  t.equal(await later, 'stored')
  t.equal(queue.written, 1)
  t.notOk(queue.busy)
  t.equal(queue.queuedItems, 0, 'the failed items no longer count against the bound')
})

t.test('past maxQueuedItems an item is answered full at once and kept nowhere; room comes back as batches finish', async (t) => {
  const pool = fakePool()
  const queue = new WriteQueue(pool, { ...options, maxItems: 2, maxInFlight: 1, maxQueuedItems: 5 })
  // The slow pool holds one batch of 2; 3 more wait: 5 held.
  const held = Array.from({ length: 5 }, () => queue.enqueue(chunk()))
  await turn()
  t.equal(queue.queuedItems, 5)
  t.equal(await queue.enqueue(chunk()), 'full', 'the sixth is refused without waiting for the pool')
  t.equal(await queue.enqueue(signals()), 'full', 'signals share the bound')
  t.equal(queue.queuedItems, 5, 'a refused item is not held')
  t.equal(pool.calls.length, 1, 'nothing refused reached the pool')
  pool.store(0)
  await held[0]
  t.equal(queue.queuedItems, 3, 'the written batch left the bound')
  const again = queue.enqueue(chunk())
  t.not(await Promise.race([again, turn().then(() => 'waiting')]), 'full', 'room again')
  for (let i = 1; pool.calls.length > i || queue.busy; i++) {
    await turn()
    if (pool.calls[i]) pool.store(i)
  }
  t.same(await Promise.all([...held, again]), Array(6).fill('stored'))
  t.equal(queue.queuedItems, 0)
  t.equal(queue.queuedBytes, 0)
})

t.test('past maxQueuedBytes an item is answered full; a small one that fits is still taken', async (t) => {
  const pool = fakePool()
  const queue = new WriteQueue(pool, { ...options, maxInFlight: 1, maxQueuedBytes: 1000 })
  const held = [queue.enqueue(chunk(600)), queue.enqueue(chunk(300))]
  t.equal(queue.queuedBytes, 900)
  t.equal(await queue.enqueue(chunk(101)), 'full', '1,001 bytes would pass the bound')
  const fits = queue.enqueue(chunk(100))
  t.equal(queue.queuedBytes, 1000, 'exactly the bound is taken')
  await turn()
  pool.store(0)
  t.same(await Promise.all([...held, fits]), ['stored', 'stored', 'stored'])
  t.equal(queue.queuedBytes, 0, 'bytes counted before the bodies were transferred are all given back')
})

t.test('a fatal result calls onFatal once and refuses every later item', async (t) => {
  const pool = fakePool()
  let fatal = 0
  const queue = new WriteQueue(pool, { ...options, maxInFlight: 1, onFatal: () => (fatal += 1) })
  const first = queue.enqueue(chunk())
  await turn()
  pool.calls[0].resolve({ outcomes: ['unavailable'], fatal: true })
  t.equal(await first, 'unavailable')
  t.equal(fatal, 1)
  t.equal(await queue.enqueue(chunk()), 'full', 'nothing more goes to a pool whose storage cannot recover')
  t.equal(pool.calls.length, 1)
})

t.test('chunk and signals bodies are handed over in the transfer list, not copied', async (t) => {
  const pool = fakePool()
  const queue = new WriteQueue(pool, options)
  const items = [chunk(), signals(), chunk()]
  const done = Promise.all(items.map((item) => queue.enqueue(item)))
  await turn()
  t.same(pool.calls[0].transferList, items.map((item) => item.body.buffer))
  t.ok(items.every((item, i) => pool.calls[0].transferList[i] === item.body.buffer), 'the very buffers')
  pool.store(0)
  await done
})

t.test('a signals body found invalid by the writer resolves with why, its batch-mates with theirs', async (t) => {
  const pool = fakePool()
  const queue = new WriteQueue(pool, options)
  const done = Promise.all([queue.enqueue(chunk()), queue.enqueue(signals()), queue.enqueue(signals())])
  await turn()
  pool.calls[0].resolve({ outcomes: ['stored', { invalid: 'The body is not JSON.' }, 'stored'] })
  t.same(await done, ['stored', { invalid: 'The body is not JSON.' }, 'stored'])
})

t.test('busy is false when nothing waits and nothing is being written', async (t) => {
  const pool = fakePool()
  const queue = new WriteQueue(pool, options)
  t.notOk(queue.busy)
  const done = queue.enqueue(chunk())
  t.ok(queue.busy)
  await turn()
  t.ok(queue.busy)
  pool.store(0)
  await done
  t.notOk(queue.busy)
})

t.test('held for a compaction: hold resolves once the batches in flight commit; items queue under the bounds, none leaves or is answered until release', async (t) => {
  const pool = fakePool()
  const queue = new WriteQueue(pool, { ...options, maxQueuedItems: 3 })
  const first = queue.enqueue(chunk())
  await turn()
  t.equal(pool.calls.length, 1)
  let held = false
  const holding = queue.hold().then(() => (held = true))
  await turn()
  t.notOk(held, 'a batch in flight is waited for')
  pool.store(0)
  await holding
  t.equal(await first, 'stored')
  const waiting = [queue.enqueue(chunk()), queue.enqueue(chunk()), queue.enqueue(chunk())]
  t.equal(await queue.enqueue(chunk()), 'full', 'past the bound: full (429 overloaded), as ever')
  let answered = 0
  for (const item of waiting) void item.then(() => (answered += 1))
  await turn()
  t.same([pool.calls.length, answered], [1, 0], 'nothing written nor answered while held')
  queue.release()
  t.equal(pool.calls.length, 2, 'released: the held items leave as one batch')
  pool.store(1)
  t.same(await Promise.all(waiting), ['stored', 'stored', 'stored'])
})

t.test('writing on the front\'s thread, a task with a large signals body goes to a writer thread, started at the first and ended for a compaction', async (t) => {
  const ran: string[] = []
  const pool = (name: string) => ({ run: async (task: WriteTask) => (ran.push(`${name}:${task.items.map((item) => item.body.byteLength).join('+')}`), { outcomes: task.items.map((): WriteOutcome => 'stored') }), destroy: async () => void ran.push(`${name} ended`) })
  let started = 0
  const routed = bigSignalsAside(pool('front'), () => pool(`thread${++started}`))
  await routed.run({ items: [chunk(300 * 1024), signals(BIG_SIGNALS_BYTES - 1)] })
  t.equal(started, 0, 'no thread while no task needs one')
  await routed.run({ items: [signals(10), signals(BIG_SIGNALS_BYTES)] })
  await routed.run({ items: [signals(200 * 1024)] })
  await routed.stopThread()
  await routed.run({ items: [signals(100 * 1024)] })
  t.same(ran, [`front:${300 * 1024}+${BIG_SIGNALS_BYTES - 1}`, `thread1:10+${BIG_SIGNALS_BYTES}`, `thread1:${200 * 1024}`, 'thread1 ended', `thread2:${100 * 1024}`], 'chunks and ordinary batches stay; large ones go to the thread, a new one after the compaction')
})
