/**
 * The pace a followed tracker keeps (tracker/src/live.ts), on Node's timers:
 * the service's `flushMs`, never under 1 s whatever an answer says; no timer
 * at all for a visitor nobody follows; and back to none when an answer no
 * longer says watched or the hold runs out.
 */
import t from 'tap'
import { liveFlushing } from '../../tracker/src/live.js'
import { LIVE_HOLD_MS } from '../../tracker/src/config.js'
import type { Guard } from '../../tracker/src/guard.js'

const guard = { wrap: (fn: any) => fn, run: (fn: any) => fn() } as unknown as Guard

t.test('a followed tracker sends at the service\'s pace, never more than once a second, and stops when unfollowed', async (t) => {
  const started: number[] = []
  const stopped: unknown[] = []
  const realSet = globalThis.setInterval
  const realClear = globalThis.clearInterval
  let next = 0
  globalThis.setInterval = ((_: unknown, ms: number) => (started.push(ms), ++next)) as never
  globalThis.clearInterval = ((id: unknown) => void stopped.push(id)) as never
  t.teardown(() => {
    globalThis.setInterval = realSet
    globalThis.clearInterval = realClear
  })
  let flushes = 0
  const live = liveFlushing(guard, () => flushes++)
  live.told(false)
  t.same(started, [], 'nobody follows: no timer')
  live.told(true, 2000)
  t.same(started, [2000], 'the service\'s pace')
  live.told(true, 2000)
  t.same(started, [2000], 'the same pace again keeps the timer')
  live.told(true, 10)
  t.same(started, [2000, 1000], 'an answer asking for more than once a second gets once a second')
  live.told(true, 10 * LIVE_HOLD_MS)
  t.same(started.at(-1), LIVE_HOLD_MS, 'and one asking for less than once per hold, the hold')
  live.told(true)
  t.same(started.at(-1), 1500, 'no pace named: 1.5 s')
  const before = stopped.length
  live.told(false)
  t.equal(stopped.length, before + 1, 'unfollowed: the timer stops')
  live.told(false)
  t.equal(stopped.length, before + 1, 'and nothing more to stop')
  t.equal(flushes, 0, 'nothing flushed by telling alone')
})
