/**
 * A node whose log is unreachable (its NATS server stopped) keeps its
 * control worker: the read barrier, which asks the log where it stands,
 * gives up like a timeout instead of ending the worker with its rejection.
 */
import t from 'tap'
import { call } from '../helpers/api.js'
import { nodeOn } from '../helpers/cluster-mode.js'
import { natsCluster } from '../helpers/nats.js'

t.setTimeout(120_000)

t.test('requests are answered while the log is unreachable, and no process of the node exits', async (t) => {
  const nats = await natsCluster(t, 1)
  const node = await nodeOn(t, nats, { env: { NATS_REPLICAS: '1', NATS_DEADLINE_MS: '2000' } })
  await nats.stop()
  const anonymous = await call(node.url, '/cli/whoami')
  t.same([anonymous.status, anonymous.body.code], [401, 'unauthorized'], 'answered by the control worker, after the barrier gave up')
  t.notMatch(node.output(), /child exited; restarting/, 'the control worker did not exit')
})
