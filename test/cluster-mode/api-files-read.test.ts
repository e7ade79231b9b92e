/**
 * Existing read-API test files run again against the cluster mode (see
 * api-files-control.test.ts): sessions, recordings (chunk bytes read back
 * from the log by direct get), insights and stored signal batches, each
 * read answered after the node's read barrier.
 */
import t from 'tap'
import { importInTurn } from '../helpers/cluster-mode.js'

// Each cluster with its own NATS server; a busy machine makes a file several times slower.
t.setTimeout(400_000)
process.env.SVC_TEST_CLUSTER_MODE = '1'
await importInTurn(t, [
  new URL('../control/sessions.test.js', import.meta.url),
  new URL('../control/recording-stream.test.js', import.meta.url),
  new URL('../control/insights.test.js', import.meta.url),
  new URL('../front/ingest-signals-entries.test.js', import.meta.url),
])
