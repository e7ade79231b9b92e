/**
 * Requests by route and status, and their duration, on the front. Each route
 * resolves its metric children once: the hot path only stamps the response
 * and, when it is answered, observes and increments.
 */
import { performance } from 'node:perf_hooks'
import type { CounterSeries, HistogramSeries } from '../metrics/local.js'
import { metrics } from '../metrics/registry.js'
import type { HttpResponse } from './uws.js'

export interface RouteMeter {
  route: string
  duration: HistogramSeries
  byStatus: Map<number | 'aborted', CounterSeries>
}

export function routeMeter(route: string): RouteMeter {
  return { route, duration: metrics.duration.labels('front', route), byStatus: new Map() }
}

/** Stamps a request as it reaches its handler. */
export function begin(res: HttpResponse, meter: RouteMeter): void {
  res.svcMeter = meter
  res.svcStart = performance.now()
}

/** Counts a request as its status goes out (or as `aborted` when its client left first); once per request. */
export function answered(res: HttpResponse, status: number | 'aborted'): void {
  const meter = res.svcMeter as RouteMeter | undefined
  if (!meter) return
  res.svcMeter = undefined
  meter.duration.observe((performance.now() - (res.svcStart as number)) / 1000)
  let counter = meter.byStatus.get(status)
  if (!counter) {
    counter = metrics.requests.labels('front', meter.route, String(status))
    meter.byStatus.set(status, counter)
  }
  counter.inc()
}
