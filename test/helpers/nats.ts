/**
 * A real three-server JetStream cluster on free loopback ports, stopped and
 * removed in teardown: from the shipped configuration (deploy/nats/: users,
 * TLS) unless `secure: false` asks for a server that lets anyone in.
 */
import { rmSync } from 'node:fs'
import type { Test } from 'tap'
import { startNatsCluster, type NatsCluster } from '../../src/journal/nats-servers.js'
import { freePort, tempDataDir } from './cluster.js'
import { profiled } from '../support/profile-events.js'

/** `dir`: where the servers' stores go (a small tmpfs, say) instead of a new temporary directory; left in place. */
export async function natsCluster(t: Test, size = 3, options: { secure?: boolean; dir?: string } = {}): Promise<NatsCluster> {
  const dir = tempDataDir('svc-nats-')
  const cluster = await profiled('nats', () => startNatsCluster({ dir: options.dir ?? dir, size, freePort, secure: options.secure }))
  t.teardown(async () => {
    await cluster.stop()
    rmSync(dir, { recursive: true, force: true })
  })
  return cluster
}
