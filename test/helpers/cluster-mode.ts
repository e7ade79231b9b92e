/**
 * Nodes of the cluster mode for tests: each a whole service (dist/main.js)
 * with its own data directory and port, on one real NATS cluster; and a
 * signed-in owner with an API key, made through the API as a user would.
 */
import type { Test } from 'tap'
import type { NatsCluster } from '../../src/journal/nats-servers.js'
import { call } from './api.js'
import { clusterFor, type Cluster, type ClusterOptions } from './cluster.js'

/** A node on `nats`; the operator makes the log's streams first, as on real machines (the node user may not). */
export async function nodeOn(t: { teardown(fn: () => unknown): void }, nats: NatsCluster, options: ClusterOptions = {}): Promise<Cluster> {
  const env = { ...nats.env(), NATS_PARTITIONS: '2', ...options.env }
  await nats.makeStreams(env)
  return clusterFor(t, { workers: 1, startTimeoutMs: 120_000, ...options, env })
}

export interface Owner {
  apiKey: string
  cookie: string
  csrf: string
}

/** The deployment's first owner (POST /auth/setup), then an API key made in their signed-in session. */
export async function ownerWithKey(url: string): Promise<Owner> {
  const setup = await fetch(`${url}/api/v1/auth/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ orgName: 'Acme', email: 'owner@acme.test', password: 'correct horse battery' }),
  })
  if (setup.status !== 200) throw new Error(`first-run set-up answered ${setup.status}: ${await setup.text()}`)
  const cookie = setup.headers.get('set-cookie')!.split(';')[0]
  const csrf = ((await setup.json()) as { csrfToken: string }).csrfToken
  const created = await fetch(`${url}/api/v1/cli/keys.create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': csrf },
    body: JSON.stringify({ label: 'test' }),
  })
  if (created.status !== 200) throw new Error(`keys.create answered ${created.status}: ${await created.text()}`)
  return { apiKey: ((await created.json()) as { apiKey: string }).apiKey, cookie, csrf }
}

export async function createProject(url: string, apiKey: string, name: string): Promise<{ id: string; publicKey: string }> {
  const answer = await call(url, '/cli/projects.create', { token: apiKey, body: { name } })
  if (answer.status !== 200) throw new Error(`projects.create answered ${answer.status}: ${JSON.stringify(answer.body)}`)
  return answer.body.project
}

/**
 * Runs test files one after another in this process (api-files-*.test.ts),
 * each import inside a subtest of its own. A file that starts its cluster at
 * its top level (`const cluster = await clusterFor(t)`) gives the root test a
 * teardown, and tap then ends the root once it sits idle for three timer
 * turns: that happens while the next such file awaits its cluster, whose tests
 * are then refused ("cannot create subtest after parent test ends") and whose
 * teardown never runs, so its node and NATS server keep the process alive. A
 * subtest that lasts as long as the import keeps the root busy instead.
 */
export async function importInTurn(t: Test, files: URL[]): Promise<void> {
  for (const file of files) await t.test(`loads ${file.pathname.split('/test/')[1]}`, () => import(file.href))
}
