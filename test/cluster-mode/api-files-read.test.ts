/**
 * Existing read-API test files run again against the cluster mode (see
 * api-files-control.test.ts): sessions, recordings (chunk bytes read back
 * from the log by direct get), insights and stored signal batches, each
 * read answered after the node's read barrier.
 */
import t from 'tap'

// Each cluster with its own NATS server; a busy machine makes a file several times slower.
t.setTimeout(400_000)
process.env.SVC_TEST_CLUSTER_MODE = '1'
await import('../control/sessions.test.js')
await import('../control/recording-stream.test.js')
await import('../control/insights.test.js')
await import('../front/ingest-signals-entries.test.js')
