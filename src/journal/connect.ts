/**
 * A node's connection to the log: the NATS servers of NATS_URL, JetStream
 * once its cluster has a metadata leader, and the streams of the layout.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { connect, type NatsConnection } from '@nats-io/transport-node'
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream'
import { ensureStreams, type JournalLayout } from './streams.js'

export interface Journal {
  nc: NatsConnection
  js: JetStreamClient
  jsm: JetStreamManager
  close(): Promise<void>
}

/** `nats://h1:4222,nats://h2:4222` → the servers the client may use; it reconnects to any of them. */
export function natsServers(url: string): string[] {
  return url.split(',').map((s) => s.trim()).filter(Boolean)
}

/**
 * Connects and waits for JetStream: a cluster that has just started answers
 * its API only once it has elected a metadata leader, and a stream created
 * before its routes settle can time out, so both are tried again until
 * `timeoutMs` has passed.
 */
export async function openJournal(url: string, layout: JournalLayout, timeoutMs = 30_000): Promise<Journal> {
  const deadline = Date.now() + timeoutMs
  const nc = await connect({ servers: natsServers(url), maxReconnectAttempts: -1, reconnectTimeWait: 250, name: 'svc-node' })
  let lastError: unknown
  while (Date.now() < deadline) {
    try {
      const jsm = await jetstreamManager(nc, { timeout: 5_000 })
      await ensureStreams(jsm, layout)
      return { nc, js: jetstream(nc), jsm, close: () => nc.drain() }
    } catch (error) {
      lastError = error
      await sleep(250)
    }
  }
  await nc.close()
  throw new Error(`JetStream at ${url} not ready within ${timeoutMs} ms: ${String(lastError)}`)
}
