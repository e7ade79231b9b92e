/**
 * A node whose log is unreachable (its NATS server stopped) keeps its
 * control worker: the read barrier, which asks the log where it stands,
 * gives up like a timeout instead of ending the worker with its rejection.
 * Reads made with an API key are answered from the node's read model (the
 * key's last use is bookkeeping, not recorded then); a change is answered
 * 500 internal_error saying the log did not take it.
 */
import t from 'tap'
import { call } from '../helpers/api.js'
import { nodeOn, ownerWithKey } from '../helpers/cluster-mode.js'
import { natsCluster } from '../helpers/nats.js'

t.setTimeout(120_000)

t.test('requests are answered while the log is unreachable, and no process of the node exits', async (t) => {
  const nats = await natsCluster(t, 1)
  const node = await nodeOn(t, nats, { env: { NATS_REPLICAS: '1', NATS_DEADLINE_MS: '2000' } })
  const { apiKey } = await ownerWithKey(node.url)
  await nats.stop()
  const anonymous = await call(node.url, '/cli/whoami')
  t.same([anonymous.status, anonymous.body.code], [401, 'unauthorized'], 'answered by the control worker, after the barrier gave up')
  // The key's first use: recording it needs the log, the answer does not.
  const read = await call(node.url, '/cli/projects.list', { token: apiKey })
  t.same([read.status, read.body.projects], [200, []], 'a read with an API key is answered from the read model')
  const change = await call(node.url, '/cli/projects.create', { token: apiKey, body: { name: 'Shop' } })
  t.same([change.status, change.body.code], [500, 'internal_error'], 'a change the log cannot take is a server error')
  t.match(change.body.error, /log \(NATS JetStream\) did not take this change/)
  t.notMatch(node.output(), /child exited; restarting/, 'the control worker did not exit')
})
