/**
 * Organisations take turns on the control worker (src/control/turns.ts):
 * round robin between organisations, one step at a time, a long operation's
 * steps interleaved with everyone else's, and a failure answered to its
 * caller without stopping the line. Order only: nothing here is timed.
 */
import t from 'tap'
import { FairTurns } from '../../src/control/turns.js'
import { waitAway } from '../../src/waiting.js'

t.test('organisations are served round robin, however many operations one of them queues', async (t) => {
  const turns = new FairTurns(100)
  const done: string[] = []
  const work = (name: string) => () => void done.push(name)
  const all = [...Array.from({ length: 5 }, (_, i) => turns.run('hostile', work(`h${i}`))), turns.run('bystander', work('b0')), turns.run('other', work('o0')), turns.run('bystander', work('b1'))]
  await Promise.all(all)
  t.same(done, ['h0', 'b0', 'o0', 'h1', 'b1', 'h2', 'h3', 'h4'], 'the bystander waits for one of the hostile organisation\'s operations, not five')
  t.same(turns.served, ['hostile', 'bystander', 'other', 'hostile', 'bystander', 'hostile', 'hostile', 'hostile'])
  t.equal(turns.waiting, 0)
})

t.test('a long operation passes its turn between steps: others run between them', async (t) => {
  const turns = new FairTurns(100)
  const done: string[] = []
  const long = turns.run('hostile', async (turn) => {
    for (let step = 0; step < 4; step++) {
      done.push(`dry run step ${step}`)
      if (step < 3) await turn.pass()
    }
    return 'counted'
  })
  const short = turns.run('bystander', () => (done.push('bystander read'), 'read'))
  const later = turns.run('bystander', () => (done.push('bystander write'), 'written'))
  t.same(await Promise.all([long, short, later]), ['counted', 'read', 'written'], 'each answers its own')
  t.same(done, ['dry run step 0', 'bystander read', 'dry run step 1', 'bystander write', 'dry run step 2', 'dry run step 3'])
})

t.test('an operation that throws answers its caller; the line goes on', async (t) => {
  const turns = new FairTurns()
  const failing = turns.run('a', () => {
    throw new Error('boom')
  })
  const rejecting = turns.run('b', async () => Promise.reject(new Error('later boom')))
  const fine = turns.run('a', () => 'fine')
  await t.rejects(failing, /boom/)
  await t.rejects(rejecting, /later boom/)
  t.equal(await fine, 'fine')
})

t.test('between two steps, I/O that arrived meanwhile is served first', async (t) => {
  const turns = new FairTurns()
  const order: string[] = []
  const first = turns.run('a', () => {
    // A callback queued while a step runs (as a socket's data would be) runs before the next step.
    setImmediate(() => order.push('io'))
    order.push('step 1')
  })
  const second = turns.run('a', () => void order.push('step 2'))
  await Promise.all([first, second])
  t.same(order, ['step 1', 'io', 'step 2'])
})

t.test('a wait on the cluster\'s log anywhere inside a step gives the turn away while it waits; a wait inside it holds nothing', async (t) => {
  const turns = new FairTurns(100)
  const done: string[] = []
  let acknowledge!: () => void
  // What replicated-store.ts does for a change: the wait for the log, deep in the store, knows nothing of turns.
  const submit = () => waitAway(() => waitAway(() => new Promise<void>((resolve) => (acknowledge = resolve))))
  const writing = turns.run('hostile', async () => {
    done.push('hostile writes')
    await submit()
    done.push('hostile answered')
  })
  const other = turns.run('bystander', () => void done.push('bystander served'))
  await other
  t.same(done, ['hostile writes', 'bystander served'], 'served while the change waits for the log')
  acknowledge()
  await writing
  t.same(done, ['hostile writes', 'bystander served', 'hostile answered'])
  t.same(turns.served, ['hostile', 'bystander', 'hostile'], 'the answer waited for its organisation\'s turn again, once')
  t.equal(await waitAway(async () => 'outside any turn'), 'outside any turn', 'outside a turn, a wait just runs')
})
