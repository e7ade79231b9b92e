/**
 * Existing test files of the contract's edges run again against the cluster
 * mode (see api-files-control.test.ts): garbage at the ingest routes, every
 * answer checked against the OpenAPI document, the CLI's account commands,
 * and the session list's pages.
 */
import t from 'tap'

// Each cluster with its own NATS server; a busy machine makes a file several times slower.
t.setTimeout(400_000)
process.env.SVC_TEST_CLUSTER_MODE = '1'
await import('../front/garbage-bytes.test.js')
await import('../openapi.test.js')
await import('../cli/account.test.js')
await import('../control/sessions-pagination.test.js')
