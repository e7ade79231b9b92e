/**
 * A day of a large deployment's traffic, by project and hour: many small
 * projects and a few huge ones (sizes drawn from a Zipf law), each with a
 * diurnal curve peaking in its own afternoon (time zones drawn from where
 * visitors are). Seeded: the same seed gives the same day.
 */
import { generator as random } from '../payloads.js'

export interface Project {
  id: number
  /** Recorded minutes in the day. */
  minutes: number
  /** Recorded minutes per hour of the day (UTC), summing to `minutes`. */
  byHour: number[]
}

/** Share of a day's traffic in each local hour: quiet at night, a peak mid-afternoon (peak/mean about 1.9). */
export const LOCAL_DAY = (() => {
  const raw = Array.from({ length: 24 }, (_, hour) => 0.15 + Math.max(0, Math.sin(((hour - 6) / 18) * Math.PI)) ** 1.5)
  const sum = raw.reduce((a, b) => a + b, 0)
  return raw.map((x) => x / sum)
})()

/** UTC offsets of visitors, weighted as a global site's (Americas, Europe, Asia). */
const ZONES: [offset: number, weight: number][] = [[-8, 0.12], [-5, 0.22], [0, 0.12], [1, 0.22], [3, 0.05], [5.5, 0.1], [8, 0.12], [9, 0.05]]

function zone(next: () => number): number {
  let r = next()
  for (const [offset, weight] of ZONES) if ((r -= weight) <= 0) return offset
  return 0
}

export interface Day {
  projects: Project[]
  totalMinutes: number
}

/** `count` projects sharing `totalMinutes` by a Zipf law of exponent `s`, each in a time zone of its own. */
export function largeSiteDay(options: { seed: number; count: number; totalMinutes: number; s: number }): Day {
  const next = random(options.seed)
  const weights = Array.from({ length: options.count }, (_, i) => 1 / (i + 1) ** options.s)
  const sum = weights.reduce((a, b) => a + b, 0)
  const projects = weights.map((w, id) => {
    const minutes = (options.totalMinutes * w) / sum
    const offset = zone(next)
    const byHour = Array.from({ length: 24 }, (_, utc) => minutes * LOCAL_DAY[(((utc + Math.round(offset)) % 24) + 24) % 24])
    return { id, minutes, byHour }
  })
  return { projects, totalMinutes: options.totalMinutes }
}

/** The busiest hour over the mean hour, for traffic of this shape summed over every project. */
export function peakFactor(day: Day): number {
  const hours = Array.from({ length: 24 }, (_, h) => day.projects.reduce((sum, p) => sum + p.byHour[h], 0))
  return Math.max(...hours) / (day.totalMinutes / 24)
}
