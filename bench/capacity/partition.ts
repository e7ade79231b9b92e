/**
 * How the read side's work (folding signals into the aggregates, and the
 * reads that follow it) could be spread over node groups, and how evenly.
 * Two ways of placing projects on groups, compared on the same day:
 * - by project hash: each project whole on the group its id hashes to;
 * - sharded and balanced (the design in docs/capacity.md): a project larger
 *   than a quarter of a group's fair share is split into shards by session
 *   key, and shards are placed largest first on the group whose busiest
 *   hour they raise least.
 */
import type { Day } from './traffic.js'

export interface Unit {
  project: number
  shard: number
  shards: number
  /** Recorded minutes per UTC hour this unit carries. */
  byHour: number[]
  daily: number
}

export interface Placement {
  name: string
  groups: number
  units: Unit[][]
}

const hash = (id: number) => Math.imul(id + 1, 2654435761) >>> 0

export function byProjectHash(day: Day, groups: number): Placement {
  const units: Unit[][] = Array.from({ length: groups }, () => [])
  for (const p of day.projects) units[hash(p.id) % groups].push({ project: p.id, shard: 0, shards: 1, byHour: p.byHour, daily: p.minutes })
  return { name: 'by project hash', groups, units }
}

export function shardedBalanced(day: Day, groups: number): Placement {
  const cap = day.totalMinutes / groups / 4
  const all: Unit[] = day.projects.flatMap((p) => {
    const shards = Math.max(1, Math.ceil(p.minutes / cap))
    return Array.from({ length: shards }, (_, shard) => ({ project: p.id, shard, shards, byHour: p.byHour.map((m) => m / shards), daily: p.minutes / shards }))
  })
  all.sort((a, b) => b.daily - a.daily || a.project - b.project || a.shard - b.shard)
  const units: Unit[][] = Array.from({ length: groups }, () => [])
  // Balanced hour by hour, not by the day's total: projects in different time zones peak at different hours.
  const load = Array.from({ length: groups }, () => new Array<number>(24).fill(0))
  const peakWith = (g: number, unit: Unit) => Math.max(...load[g].map((m, h) => m + unit.byHour[h]))
  for (const unit of all) {
    let best = 0
    for (let g = 1; g < groups; g++) if (peakWith(g, unit) < peakWith(best, unit)) best = g
    units[best].push(unit)
    for (let h = 0; h < 24; h++) load[best][h] += unit.byHour[h]
  }
  return { name: 'sharded and balanced', groups, units }
}

export interface Balance {
  /** The busiest group's day over the mean group's day. */
  daily: number
  /** The capacity the busiest group needs (its own busiest hour) over what an even split would need (the mean's busiest hour). */
  peakHour: number
  /** Units (projects, or shards of the largest) the busiest group folds. */
  largestUnits: number
  /** Shards the largest project is split into. */
  largestProjectShards: number
}

export function balance(placement: Placement): Balance {
  const daily = placement.units.map((units) => units.reduce((sum, u) => sum + u.daily, 0))
  const mean = daily.reduce((a, b) => a + b, 0) / placement.groups
  const hourly = placement.units.map((units) => Array.from({ length: 24 }, (_, h) => units.reduce((sum, u) => sum + u.byHour[h], 0)))
  const evenPeak = Math.max(...Array.from({ length: 24 }, (_, h) => hourly.reduce((sum, group) => sum + group[h], 0) / placement.groups))
  const peakHour = Math.max(...hourly.map((group) => Math.max(...group))) / evenPeak
  const busiest = daily.indexOf(Math.max(...daily))
  const largestProjectShards = Math.max(...placement.units.flat().filter((u) => u.project === 0).map((u) => u.shards))
  return { daily: Math.max(...daily) / mean, peakHour, largestUnits: placement.units[busiest].length, largestProjectShards }
}
