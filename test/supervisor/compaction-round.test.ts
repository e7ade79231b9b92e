/**
 * The primary's side of an online compaction (src/supervisor/compaction-round.ts),
 * with stand-in children: it compacts only once every live child answered
 * `paused`, then resumes each; a child that dies during the round is not
 * waited for and its restart waits for the round's end; an erasure finished
 * during a round makes exactly one more; a child that never answers makes the
 * round give up without compacting, and the others resume; shutdown waits
 * for the round. The end-to-end behaviour (no refused connection, no 5xx,
 * every acknowledged chunk read back) is in test/recordings/erasure-files.test.ts.
 */
import { EventEmitter } from 'node:events'
import type { ChildProcess } from 'node:child_process'
import t from 'tap'
import { CompactionRounds, type RoundChild } from '../../src/supervisor/compaction-round.js'
import type { PrimaryMessage } from '../../src/supervisor/messages.js'

interface FakeChild {
  unit: RoundChild
  sent: PrimaryMessage[]
  exit(): void
}

/** A child that records what it is sent and, unless `silent`, answers a pause on the next tick. */
function fakeChild(name: string, rounds: () => CompactionRounds, silent = false): FakeChild {
  const sent: PrimaryMessage[] = []
  const child = Object.assign(new EventEmitter(), {
    exitCode: null as number | null,
    signalCode: null,
    connected: true,
    send(message: PrimaryMessage) {
      sent.push(message)
      if (message.type === 'pause' && !silent) setImmediate(() => child.connected && rounds().paused(child as unknown as ChildProcess, message.round))
      return true
    },
  })
  return {
    unit: { name, child: child as unknown as ChildProcess, ready: true },
    sent,
    exit() {
      child.exitCode = 1
      child.connected = false
      rounds().exited(child as unknown as ChildProcess)
    },
  }
}

function setUp(options: { silent?: string; pauseDeadlineMs?: number } = {}) {
  const events: string[] = []
  let rounds!: CompactionRounds
  const children = ['control', 'front-1', 'front-2'].map((name) => fakeChild(name, () => rounds, name === options.silent))
  rounds = new CompactionRounds(
    () => children.map((c) => c.unit),
    async () => {
      events.push(`compact with ${children.filter((c) => c.sent.at(-1)?.type === 'pause').length} paused`)
      return true
    },
    () => false,
    { pauseDeadlineMs: options.pauseDeadlineMs ?? 5_000, retryMs: 60_000 },
  )
  return { rounds, children, events }
}

const kinds = (child: FakeChild) => child.sent.map((m) => `${m.type} ${'round' in m ? m.round : ''}`)

t.test('compacts once every child paused, then resumes each', async (t) => {
  const { rounds, children, events } = setUp()
  rounds.request()
  t.ok(rounds.active)
  await rounds.settled()
  t.same(events, ['compact with 3 paused'])
  for (const child of children) t.same(kinds(child), ['pause 1', 'resume 1'], child.unit.name)
  t.notOk(rounds.active)
})

t.test('a child that exits during the round is not waited for, and its restart waits for the round', async (t) => {
  const { rounds, children, events } = setUp({ silent: 'front-2' })
  rounds.request()
  await new Promise((resolve) => setImmediate(resolve))
  const restarted: string[] = []
  children[2].exit()
  rounds.whenOpen(() => restarted.push('front-2'))
  t.same(restarted, [], 'no restart while the store is closed')
  await rounds.settled()
  t.same(events, ['compact with 3 paused'])
  t.same(restarted, ['front-2'], 'restarted after the round')
  t.same(kinds(children[2]), ['pause 1'], 'the dead child is sent no resume')
  t.same(kinds(children[0]), ['pause 1', 'resume 1'])
})

t.test('an erasure finished during a round makes exactly one more', async (t) => {
  const { rounds, children, events } = setUp()
  rounds.request()
  rounds.request()
  rounds.request()
  await rounds.settled()
  t.same(events, ['compact with 3 paused', 'compact with 3 paused'])
  t.same(kinds(children[1]), ['pause 1', 'resume 1', 'pause 2', 'resume 2'])
})

t.test('a child that never answers: the round gives up without compacting, and every child resumes', async (t) => {
  const { rounds, children, events } = setUp({ silent: 'front-1', pauseDeadlineMs: 50 })
  rounds.request()
  await rounds.settled()
  t.same(events, [], 'nothing compacted')
  for (const child of children) t.same(kinds(child), ['pause 1', 'resume 1'], child.unit.name)
})

t.test('a child still starting is waited for before the round pauses anyone', async (t) => {
  const { rounds, children, events } = setUp()
  children[1].unit.ready = false
  rounds.request()
  await new Promise((resolve) => setTimeout(resolve, 60))
  t.same(children.map((c) => c.sent.length), [0, 0, 0], 'no pause sent while a child is starting')
  children[1].unit.ready = true
  await rounds.settled()
  t.same(events, ['compact with 3 paused'])
})
