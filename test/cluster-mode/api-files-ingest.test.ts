/**
 * Existing ingest test files run again against the cluster mode (see
 * api-files-control.test.ts): the fronts answer {ok:true} once the log holds
 * the item, and the tests' direct store reads wait for the node to apply it
 * and read a chunk's bytes from the log (test/helpers/log-store.ts).
 */
import t from 'tap'
import { importInTurn } from '../helpers/cluster-mode.js'

// Each cluster with its own NATS server; a busy machine makes a file several times slower.
t.setTimeout(400_000)
process.env.SVC_TEST_CLUSTER_MODE = '1'
await importInTurn(t, [
  new URL('../front/ingest-chunk-answers.test.js', import.meta.url),
  new URL('../front/ingest-chunk-storage.test.js', import.meta.url),
  new URL('../front/ingest-signals-answers.test.js', import.meta.url),
  new URL('../front/ingest-styles.test.js', import.meta.url),
  new URL('../front/cors.test.js', import.meta.url),
])
