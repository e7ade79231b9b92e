/**
 * A NATS server can be reachable and useless: one cut off from the rest of
 * its cluster keeps its clients, answers their pings, and times out every
 * JetStream call, so the client's pings never move it to another server. A
 * node on such a server refused every request for the whole of a 300 s
 * partition (`npm run chaos -- --faults=nats-minority`). So each connection
 * asks JetStream's API (account info, which the cluster's metadata leader
 * answers) every PROBE_MS; after FAILURES failed probes in a row, longer
 * than a leader election takes, the client is told to reconnect, and dials
 * another server of NATS_URL.
 */
import type { NatsConnection } from '@nats-io/transport-node'
import { jetstreamManager } from '@nats-io/jetstream'
import { log } from '../log.js'

export const PROBE_MS = 2_000
/** Four probes in a row, 8 s: a stream or the metadata leader is elected again in about 5 s after a server dies. */
export const FAILURES = 4

export interface Watch {
  /** One probe: resolves when JetStream answered, rejects when it did not. */
  probe(): Promise<unknown>
  reconnect(): Promise<void>
  /** Which server the connection is on, for the log line. */
  server(): string
}

/** Runs one probe and says whether to reconnect now; the count of failures in a row is carried between calls. */
export async function probeOnce(watch: Watch, state: { failures: number }): Promise<boolean> {
  try {
    await watch.probe()
    state.failures = 0
    return false
  } catch {
    state.failures++
    if (state.failures < FAILURES) return false
    state.failures = 0
    return true
  }
}

/** Probes `nc`'s JetStream every PROBE_MS until the returned function is called. */
export function watchJetStream(nc: NatsConnection): () => void {
  const state = { failures: 0 }
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  const manager = jetstreamManager(nc, { timeout: PROBE_MS, checkAPI: false })
  const watch: Watch = {
    probe: async () => (await manager).getAccountInfo(),
    reconnect: () => nc.reconnect(),
    server: () => nc.getServer(),
  }
  const tick = async () => {
    if (stopped || nc.isClosed() || nc.isDraining()) return
    if (await probeOnce(watch, state)) {
      log.warn('JetStream does not answer through this NATS server; reconnecting to another', { server: watch.server(), failedProbes: FAILURES, everyMs: PROBE_MS })
      await watch.reconnect().catch(() => undefined) // disconnected or closing already: the client is on it
    }
    if (!stopped) timer = setTimeout(tick, PROBE_MS).unref()
  }
  timer = setTimeout(tick, PROBE_MS).unref()
  return () => {
    stopped = true
    clearTimeout(timer)
  }
}
