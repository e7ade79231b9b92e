import tap, { type Test } from 'tap'
import { clusterFor, sharedCluster, type Cluster, type ClusterOptions } from './cluster.js'
import type { Answer, RawAnswer } from './http.js'
import { seedProject, storeAt, type Seeded } from './seed.js'
import type { Store } from '../../src/store/store.js'

export interface IngestSetup {
  cluster: Cluster
  seeded: Seeded
  pk: string
  projectId: string
  store: Store
}

/**
 * A running cluster with a project of its own, for a test of the ingest path:
 * the cluster (one front unless told), the project's public key, and the store
 * opened from the test process to read back what the cluster wrote.
 *
 * Tests of one file that ask for the same options share one cluster, started
 * at the first ask and stopped when the file's tests end: each gets a new
 * organisation and project, which is all an ingest test reads back by. A test
 * that names its `dataDir` (to fill its disk, say) gets a cluster of its own,
 * torn down with the test.
 */
export async function ingestCluster(t: { teardown(fn: () => unknown): void }, options: ClusterOptions = {}): Promise<IngestSetup> {
  const { cluster, store } = options.dataDir ? await ownCluster(t, options) : await sharedWithStore(options)
  const n = ++seeds
  const seeded = await seedProject(cluster.dataDir, `Ingest Org ${n}`, `owner${n}@ingest${n}.test`)
  return { cluster, seeded, pk: seeded.project.publicKey, projectId: seeded.project.id, store }
}

let seeds = 0
const stores = new Map<Cluster, Store>()

async function sharedWithStore(options: ClusterOptions): Promise<{ cluster: Cluster; store: Store }> {
  const cluster = await sharedCluster(options)
  let store = stores.get(cluster)
  if (!store) {
    const opened = (store = storeAt(cluster.dataDir))
    stores.set(cluster, opened)
    tap.teardown(() => opened.close())
  }
  return { cluster, store }
}

async function ownCluster(t: { teardown(fn: () => unknown): void }, options: ClusterOptions): Promise<{ cluster: Cluster; store: Store }> {
  const cluster = await clusterFor(t, options)
  const store = storeAt(cluster.dataDir)
  t.teardown(() => store.close())
  return { cluster, store }
}

interface Asserts {
  equal: Test['equal']
  match: Test['match']
  ok: Test['ok']
  type: Test['type']
  same: Test['same']
}

/** An ingest error: its status, its `code`, `ok: false`, a message, as JSON. */
export function isIngestError(t: Asserts, answer: Answer | RawAnswer, status: number, code: string, what = ''): void {
  t.equal(answer.status, status, `${what} status ${status}`.trim())
  t.match(answer.json, { ok: false, code, error: String }, `${what} code ${code}, ok:false`.trim())
  t.match(answer.headers['content-type'], /^application\/json/, `${what} JSON`.trim())
}

/** What garbage must get: JSON, never a 5xx; {ok:true} when discarded, an ingest error with a code when refused. */
export function answeredWithJson(t: Asserts, answer: Answer | RawAnswer, what: string): void {
  t.ok(answer.status < 500, `${what}: not a server error (${answer.status})`)
  t.type(answer.json, 'object', `${what}: a JSON body`)
  if (answer.status === 200) t.same(answer.json, { ok: true }, `${what}: {ok:true}`)
  else t.match(answer.json, { ok: false, code: /^(invalid_request|not_found|payload_too_large)$/ }, `${what}: an ingest error with a code`)
}
