/**
 * The write queue batches ingest items for the writer pool. A fake pool stands
 * in for piscina: it records each task and lets the test decide when (and how)
 * each one settles.
 */
import t from 'tap'
import type { WriteItem, WriteOutcome, WriteResult, WriteTask } from '../../src/messages.js'
import { WriteQueue } from '../../src/front/write-queue.js'

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
const options = { maxItems: 64, maxBytes: 1_000_000, maxInFlight: 2 }

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

t.test('a rejected task rejects every item of its batch, and later batches still run', async (t) => {
  const pool = fakePool()
  const queue = new WriteQueue(pool, { ...options, maxInFlight: 1 })
  const failed = [queue.enqueue(chunk()), queue.enqueue(chunk())]
  await turn()
  const later = queue.enqueue(chunk())
  await turn()
  const failure = new Error('writer thread died')
  pool.calls[0].reject(failure)
  for (const p of failed) await t.rejects(p, failure)
  await turn()
  t.equal(pool.calls.length, 2)
  pool.store(1)
  t.equal(await later, 'stored')
  t.equal(queue.written, 1)
  t.notOk(queue.busy)
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
