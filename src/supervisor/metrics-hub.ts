/**
 * The primary's side of GET /metrics: a front asks, the primary collects every
 * child's registry over IPC, sums them with its own (prom-client's
 * AggregatorRegistry aggregates Node `cluster` workers only; ours are forked)
 * and answers the text. A child that does not answer in time is left out
 * rather than holding the scrape.
 */
import type { ChildProcess } from 'node:child_process'
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client'
import type { MetricsAnswer, MetricsCollect, MetricsReport, MetricsRequest } from './messages.js'
import { snapshot } from '../metrics/registry.js'

const CHILD_TIMEOUT_MS = 2_000

type Json = MetricObjectWithValues<MetricValue<string>>[]

export function createMetricsHub(children: () => Array<ChildProcess | undefined>) {
  let nextId = 0
  const waiting = new Map<number, (metrics: Json) => void>()

  function collect(child: ChildProcess): Promise<Json | undefined> {
    const id = ++nextId
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        waiting.delete(id)
        resolve(undefined)
      }, CHILD_TIMEOUT_MS)
      waiting.set(id, (metrics) => {
        clearTimeout(timer)
        waiting.delete(id)
        resolve(metrics)
      })
      try {
        child.send({ type: 'metrics-collect', id } satisfies MetricsCollect)
      } catch {
        // The child is exiting: the primary restarts it; this scrape goes without it.
        waiting.get(id)?.([])
      }
    })
  }

  async function text(): Promise<string> {
    const live = children().filter((c): c is ChildProcess => !!c && c.connected)
    const reports = await Promise.all(live.map(collect))
    const all = [await snapshot(), ...reports.filter((r): r is Json => r !== undefined)]
    return AggregatorRegistry.aggregate(all).metrics()
  }

  return {
    /** Routes a child's metrics message; false for any other message. */
    handle(from: ChildProcess, message: MetricsRequest | MetricsReport): boolean {
      if (message?.type === 'metrics-report') {
        waiting.get(message.id)?.(message.metrics)
        return true
      }
      if (message?.type === 'metrics-request') {
        void text().then((body) => {
          if (from.connected) from.send({ type: 'metrics-answer', id: message.id, text: body } satisfies MetricsAnswer)
        })
        return true
      }
      return false
    },
  }
}
