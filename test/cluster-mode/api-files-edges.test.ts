/**
 * Existing test files of the contract's edges run again against the cluster
 * mode (see api-files-control.test.ts): garbage at the ingest routes, every
 * answer checked against the OpenAPI document, the CLI's account commands,
 * and the session list's pages.
 */
import t from 'tap'
import { importInTurn } from '../helpers/cluster-mode.js'

// Each cluster with its own NATS server; a busy machine makes a file several times slower.
t.setTimeout(400_000)
process.env.SVC_TEST_CLUSTER_MODE = '1'
await importInTurn(t, [
  new URL('../front/garbage-bytes.test.js', import.meta.url),
  new URL('../openapi.test.js', import.meta.url),
  new URL('../cli/account.test.js', import.meta.url),
  new URL('../control/sessions-pagination.test.js', import.meta.url),
])
