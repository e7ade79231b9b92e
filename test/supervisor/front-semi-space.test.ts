/**
 * FRONT_SEMI_SPACE_MB: each front process (and so its writer threads) runs
 * with a larger young generation, the control worker with V8's default, and
 * 0 leaves the fronts at V8's default too.
 */
import { readFileSync } from 'node:fs'
import t from 'tap'
import { clusterFor } from '../helpers/cluster.js'
import { childrenOf } from '../helpers/front-kill.js'

function semiSpaceFlags(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((arg) => arg.startsWith('--max-semi-space-size'))
}

t.test('by default every front gets --max-semi-space-size=32 and the control worker none', async (t) => {
  const cluster = await clusterFor(t, { workers: 2 })
  const children = childrenOf(cluster.child.pid!)
  const fronts = children.filter((c) => c.role === 'front')
  t.equal(fronts.length, 2)
  for (const front of fronts) t.same(semiSpaceFlags(front.pid), ['--max-semi-space-size=32'], `front ${front.pid}`)
  const control = children.find((c) => c.role === 'control')
  t.ok(control, 'a control worker')
  t.same(semiSpaceFlags(control!.pid), [])
})

t.test('FRONT_SEMI_SPACE_MB=0 leaves the fronts at V8\'s default', async (t) => {
  const cluster = await clusterFor(t, { workers: 1, env: { FRONT_SEMI_SPACE_MB: '0' } })
  const fronts = childrenOf(cluster.child.pid!).filter((c) => c.role === 'front')
  t.equal(fronts.length, 1)
  t.same(semiSpaceFlags(fronts[0].pid), [])
})
