/**
 * Existing API test files of the control plane (projects, keys, accounts,
 * members), run again against the cluster mode: every cluster they start is
 * a node on its own NATS server (SVC_TEST_CLUSTER_MODE, test/helpers/
 * cluster.ts), so each mutation is a control log entry applied before it is
 * answered, and what the files seed goes through the log too (seed.ts).
 * The other api-files-*.test.ts files run the rest, in parallel with this one.
 */
import t from 'tap'

// Each cluster with its own NATS server; a busy machine makes a file several times slower.
t.setTimeout(400_000)
process.env.SVC_TEST_CLUSTER_MODE = '1'
await import('../control/projects.test.js')
await import('../control/credentials.test.js')
await import('../control/accounts.test.js')
await import('../control/members.test.js')
