/**
 * The queue in front of password hashing (src/control/hash-queue.ts): a few
 * at once, a bounded line behind them in arrival order, and an immediate 429
 * overloaded with Retry-After past the line, never a line that grows.
 */
import t from 'tap'
import { ApiError } from '../../src/errors.js'
import { HashQueue } from '../../src/control/hash-queue.js'
import { hashPassword, hashQueue, verifyPassword } from '../../src/control/passwords.js'

t.test('runs at most `running` tasks at once, queues `waiting` more in order, and refuses the rest at once', async (t) => {
  const queue = new HashQueue({ running: 2, waiting: 3 })
  const releases: (() => void)[] = []
  const started: number[] = []
  let peak = 0
  const tasks = Array.from({ length: 8 }, (_, i) =>
    queue
      .run(async () => {
        started.push(i)
        peak = Math.max(peak, queue.load.running)
        await new Promise<void>((resolve) => releases.push(resolve))
        return i
      })
      .catch((error: unknown) => error),
  )
  await new Promise((resolve) => setImmediate(resolve))
  t.same(queue.load, { running: 2, waiting: 3 })
  t.same(started, [0, 1], 'two run')
  while (releases.length > 0 || started.length < 5) {
    releases.shift()?.()
    await new Promise((resolve) => setImmediate(resolve))
  }
  const results = await Promise.all(tasks)
  t.same(results.slice(0, 5), [0, 1, 2, 3, 4], 'the five admitted ran')
  t.same(started, [0, 1, 2, 3, 4], 'in the order they came')
  t.equal(peak, 2, 'never more than two at once')
  for (const refused of results.slice(5)) {
    t.ok(refused instanceof ApiError, 'the rest are refused')
    t.match(refused, { code: 'overloaded', options: { retryAfterSeconds: 1 } }, '429 overloaded with Retry-After')
  }
  t.same(queue.load, { running: 0, waiting: 0 }, 'and the queue is empty afterwards')
})

t.test('a check from a known place starts at once on the slot kept for it, past a full line of guesses', async (t) => {
  const queue = new HashQueue({ running: 2, waiting: 2, reservedForPriority: 1 })
  const releases: (() => void)[] = []
  const started: string[] = []
  const task = (name: string) => async () => {
    started.push(name)
    await new Promise<void>((resolve) => releases.push(resolve))
    return name
  }
  const guesses = Array.from({ length: 4 }, (_, i) => queue.run(task(`guess ${i}`)).catch((error: unknown) => error))
  await new Promise((resolve) => setImmediate(resolve))
  t.same(started, ['guess 0'], 'guesses use one slot: the other is kept')
  const owner = queue.run(task('owner'), { priority: true })
  await new Promise((resolve) => setImmediate(resolve))
  t.same(started, ['guess 0', 'owner'], 'the known place starts at once')
  t.match(await guesses[3], { code: 'overloaded' }, 'the guess past the line was refused')
  while (releases.length > 0 || started.length < 4) {
    releases.shift()?.()
    await new Promise((resolve) => setImmediate(resolve))
  }
  t.equal(await owner, 'owner')
  t.same(started, ['guess 0', 'owner', 'guess 1', 'guess 2'], 'the line of guesses in order after it')
  t.same(queue.load, { running: 0, waiting: 0 })
})

/** A queue whose tasks wait until released, in the order they started. */
function held(queue: HashQueue) {
  const releases: (() => void)[] = []
  const started: string[] = []
  const run = (name: string, turn: { priority?: boolean; key?: string }) =>
    queue
      .run(async () => {
        started.push(name)
        await new Promise<void>((resolve) => releases.push(resolve))
        return name
      }, turn)
      .catch((error: unknown) => error)
  const settle = () => new Promise((resolve) => setImmediate(resolve))
  const drain = async (count: number) => {
    while (releases.length > 0 || started.length < count) {
      releases.shift()?.()
      await settle()
    }
  }
  return { run, started, settle, drain }
}

t.test('one organisation signing in again and again cannot hold another\'s known place out of the priority line, nor ahead of it for more than a turn', async (t) => {
  const queue = new HashQueue({ running: 2, waiting: 4, reservedForPriority: 1 })
  const { run, started, settle, drain } = held(queue)
  // Org A's member, with the right password, sends checks as fast as the line takes them: both slots and the whole line.
  const flood = Array.from({ length: 8 }, (_, i) => run(`a${i}`, { priority: true, key: 'org A' }))
  await settle()
  t.same([started, queue.load], [['a0', 'a1'], { running: 2, waiting: 4 }], 'A runs on both slots, and fills the line')
  for (const refused of await Promise.all(flood.slice(6))) t.match(refused, { code: 'overloaded' }, 'A\'s checks past the line are refused 429')
  const b = run('b0', { priority: true, key: 'org B' })
  await settle()
  t.match(await flood[5], { code: 'overloaded' }, 'B is let in: A\'s newest waiter makes room for it')
  t.same(queue.load, { running: 2, waiting: 4 }, 'the line stays at its bound')
  const again = run('a6', { priority: true, key: 'org A' })
  await settle()
  t.match(await again, { code: 'overloaded' }, 'A asking again finds no room it is owed')
  await drain(6)
  t.equal(await b, 'b0')
  t.same(started, ['a0', 'a1', 'a2', 'b0', 'a3', 'a4'], 'B goes after one turn of A\'s, not after A\'s whole line')
  t.same(queue.load, { running: 0, waiting: 0 })
})

t.test('guesses from one address take turns with those from others, and a full line of equals refuses the newcomer', async (t) => {
  const queue = new HashQueue({ running: 1, waiting: 3 })
  const { run, started, settle, drain } = held(queue)
  const first = run('x0', { key: 'address x' })
  const many = Array.from({ length: 3 }, (_, i) => run(`x${i + 1}`, { key: 'address x' }))
  await settle()
  const others = [run('y0', { key: 'address y' }), run('z0', { key: 'address z' })]
  await settle()
  t.match(await many[2], { code: 'overloaded' }, 'y made room by refusing x\'s newest')
  t.match(await many[1], { code: 'overloaded' }, 'and z, x\'s next newest: each of the three holds one place now')
  const w = run('w0', { key: 'address w' })
  await settle()
  t.match(await w, { code: 'overloaded' }, 'a fourth address, with the line shared evenly, is refused rather than swapped in')
  await drain(4)
  t.same(await Promise.all([first, many[0], ...others]), ['x0', 'x1', 'y0', 'z0'])
  t.same(started, ['x0', 'x1', 'y0', 'z0'], 'in turns, each key first come first served')
  t.same(queue.load, { running: 0, waiting: 0 })
})

t.test('real scrypt: 40 password checks at once run two at a time and refuse what the line cannot hold', async (t) => {
  const stored = await hashPassword('correct horse battery')
  let peak = 0
  const watch = setInterval(() => (peak = Math.max(peak, hashQueue.load.running)), 1)
  const outcomes = await Promise.all(Array.from({ length: 40 }, () => verifyPassword('correct horse battery', stored).catch((error: unknown) => error)))
  clearInterval(watch)
  const checked = outcomes.filter((o) => o === true).length
  const refused = outcomes.filter((o) => o instanceof ApiError && o.code === 'overloaded').length
  t.same([checked, refused], [17, 23], 'one running (the other slot is kept for known places) and 16 waiting were checked; the other 23 refused at once')
  t.ok(peak <= 2, `at most two hashes at once (saw ${peak})`)
})
