/**
 * Existing API test files, run again against the cluster mode: every cluster
 * they start is a node on its own NATS server (SVC_TEST_CLUSTER_MODE, see
 * test/helpers/cluster.ts), so the same requests and assertions hold with the
 * log between the API and LMDB. Files that read the store directly right
 * after an acknowledgement are left out: in the cluster mode an
 * acknowledgement means the log holds the item, and a node's LMDB applies it
 * moments later (reads through the API wait for that).
 */
import t from 'tap'

// Three API test files, each cluster with its own NATS server.
t.setTimeout(400_000)
process.env.SVC_TEST_CLUSTER_MODE = '1'
await import('../control/projects.test.js')
await import('../control/credentials.test.js')
await import('../control/insights.test.js')
