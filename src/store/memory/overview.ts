/**
 * The overview of the in-memory store: the units and hourly buckets of
 * src/store/aggregates/overview.ts, updated entry by entry as batches are
 * applied (the LMDB fold gathers a transaction's entries first; contributions
 * telescope, so both come to the same buckets). Days are summed from hours at
 * read time.
 */
import {
  addInto,
  applyToUnit,
  assembleOverview,
  COUNT_FIELDS,
  countUnitClick,
  countUnitView,
  emptyUnitCounts,
  placeOf,
  type Overview,
  type OverviewQuery,
  type Totals,
  type UnitCounts,
  type UnitState,
} from '../aggregates/overview.js'
import type { ClickKind } from '../aggregates/clicks.js'
import type { DeviceSlot } from '../aggregates/slots.js'
import { hashVisitor, REGISTERS } from '../aggregates/visitors.js'
import type { SignalsRecord } from '../records.js'

const PROJECT = '*'
const scopeOf = (page: string) => `p:${page}`

interface Bucket {
  counts: Float64Array
  registers: Uint8Array
}

export class MemoryOverview {
  private readonly units = new Map<string, UnitState>()
  /** By scope, then `${hour}:${slot}`. */
  private readonly buckets = new Map<string, Map<string, Bucket>>()
  private readonly visitors = new Map<string, string>()

  /** A batch of a session: its project unit exists from the first one on. */
  session(batch: SignalsRecord, receivedAt: number): void {
    if (!this.units.has(`${PROJECT}\n${batch.sk}`)) this.visitors.set(batch.sk, batch.vid)
    this.apply(PROJECT, batch.sk, emptyUnitCounts(), placeOf(batch, receivedAt))
  }

  click(sk: string, page: string, kind: ClickKind): void {
    this.both(sk, page, (counts) => countUnitClick(counts, kind))
  }

  error(sk: string, page: string): void {
    this.both(sk, page, (counts) => (counts.jsError += 1))
  }

  view(sk: string, page: string, before: Parameters<typeof countUnitView>[1], after: Parameters<typeof countUnitView>[2]): void {
    this.both(sk, page, (counts) => countUnitView(counts, before, after))
  }

  read(query: OverviewQuery, pages: readonly string[]): Overview {
    const sum = (scope: string, from: number, to: number, slots: readonly DeviceSlot[], totals: Totals) => {
      const byHour = this.buckets.get(scope)
      if (!byHour) return totals
      for (let hour = from; hour < to; hour++) {
        for (const slot of slots) {
          const bucket = byHour.get(`${hour}:${slot}`)
          if (!bucket) continue
          addInto(totals.counts, bucket.counts)
          for (let i = 0; i < totals.registers.length; i++) if (bucket.registers[i] > totals.registers[i]) totals.registers[i] = bucket.registers[i]
        }
      }
      return totals
    }
    return assembleOverview(
      {
        scopesOf: (wanted) => (wanted ? wanted.map(scopeOf) : [PROJECT]),
        steps: (scopes, from, to, step, slots) => {
          const out: Totals[] = []
          for (let at = from; at < to; at += step) {
            const totals = { counts: new Float64Array(COUNT_FIELDS), registers: new Uint8Array(REGISTERS) }
            for (const scope of scopes) sum(scope, at, at + step, slots, totals)
            out.push(totals)
          }
          return out
        },
        pageTotals: (wanted, from, to, slots) =>
          (wanted ?? pages).map((page) => ({ page, totals: sum(scopeOf(page), from, to, slots, { counts: new Float64Array(COUNT_FIELDS), registers: new Uint8Array(0) }) })),
      },
      query,
    )
  }

  private both(sk: string, page: string, count: (counts: UnitCounts) => void): void {
    for (const scope of [PROJECT, scopeOf(page)]) {
      const delta = emptyUnitCounts()
      count(delta)
      this.apply(scope, sk, delta)
    }
  }

  /** Page units take the place of their session's project unit. */
  private apply(scope: string, sk: string, delta: UnitCounts, place?: { h: number; d: DeviceSlot }): void {
    const key = `${scope}\n${sk}`
    const before = this.units.get(key)
    const project = this.units.get(`${PROJECT}\n${sk}`)
    const { after, gain, isNew } = applyToUnit(before, delta, place ?? { h: project!.h, d: project!.d })
    this.units.set(key, after)
    let byHour = this.buckets.get(scope)
    if (!byHour) this.buckets.set(scope, (byHour = new Map()))
    const id = `${after.h}:${after.d}`
    let bucket = byHour.get(id)
    if (!bucket) byHour.set(id, (bucket = { counts: new Float64Array(COUNT_FIELDS), registers: new Uint8Array(REGISTERS) }))
    addInto(bucket.counts, gain)
    if (isNew) {
      const { register, rank } = hashVisitor(this.visitors.get(sk)!)
      if (rank > bucket.registers[register]) bucket.registers[register] = rank
    }
  }
}
