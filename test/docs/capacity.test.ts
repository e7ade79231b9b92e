/**
 * docs/capacity.md holds the capacity model's tables as `npm run
 * bench:capacity` wrote them: computed again here (the model is arithmetic on
 * recorded figures and a seeded day, nothing timed), they must be the same,
 * and every figure the model uses must name a section bench/RESULTS.md has.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { FIGURES } from '../../bench/capacity/figures.js'
import { capacityTables } from '../../bench/capacity/model.js'
import { balance, byProjectHash, shardedBalanced } from '../../bench/capacity/partition.js'
import { largeSiteDay } from '../../bench/capacity/traffic.js'
import { fillPage } from '../../bench/capacity/run.js'
import { ROOT } from '../helpers/cluster.js'

t.test('the page holds the model\'s output, not typed figures', async (t) => {
  const page = readFileSync(join(ROOT, 'docs', 'capacity.md'), 'utf8')
  t.equal(fillPage(page, capacityTables()), page, 'npm run bench:capacity would write nothing new')
})

t.test('every figure names a section of bench/RESULTS.md', async (t) => {
  const results = readFileSync(join(ROOT, 'bench', 'RESULTS.md'), 'utf8')
  const headings = results.split('\n').filter((line) => line.startsWith('#'))
  for (const [name, figure] of Object.entries(FIGURES)) {
    const section = /"([^"]+)"/.exec(figure.source)?.[1]
    t.ok(section && headings.some((heading) => heading.includes(section)), `${name}: "${section}" is a heading of RESULTS.md`)
  }
})

t.test('the partitioned read side: whole projects by hash pile up, shards placed by hour stay within 20% of even', async (t) => {
  const day = largeSiteDay({ seed: 7, count: 500, totalMinutes: 1e6, s: 1.1 })
  const total = day.projects.reduce((sum, p) => sum + p.minutes, 0)
  t.ok(Math.abs(total - 1e6) < 1e-3, 'the day shares out exactly its minutes')
  for (const groups of [3, 10, 30]) {
    const sharded = shardedBalanced(day, groups)
    t.equal(sharded.units.flat().reduce((sum, u) => sum + u.daily, 0).toFixed(3), total.toFixed(3), `${groups} groups: every minute placed once`)
    t.ok(balance(sharded).peakHour <= 1.2, `${groups} groups: the busiest group's peak within 20% of an even split's`)
    t.ok(balance(byProjectHash(day, groups)).peakHour > 1.2, `${groups} groups: whole projects by hash do not`)
  }
})
