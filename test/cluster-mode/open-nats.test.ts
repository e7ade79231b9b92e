/**
 * A node against a NATS server that lets anyone in (no users, no TLS: what
 * `nats-server -js` runs by default) refuses to start and says why, unless
 * NATS_TRUSTED_NETWORK=1 says only trusted hosts can reach that server: on
 * such a server anyone who reaches the port reads and appends to the log.
 */
import t from 'tap'
import { nodeOn } from '../helpers/cluster-mode.js'
import { natsCluster } from '../helpers/nats.js'

t.setTimeout(120_000)

t.test('a node refuses an open NATS server and logs why; NATS_TRUSTED_NETWORK=1 lets it start, with a warning', async (t) => {
  const nats = await natsCluster(t, 1, { secure: false })
  const env = { NATS_REPLICAS: '1' }
  const refused = await nodeOn(t, nats, { env }).then(
    () => undefined,
    (error: unknown) => String(error),
  )
  t.ok(refused, 'the node does not start')
  t.match(refused, /"level":"error"[^\n]*"msg":"refusing to start: a NATS server of NATS_URL lets in clients without credentials[^"]*"[^\n]*"fix":"[^"]*NATS_TRUSTED_NETWORK=1/, 'its log says why and what to do')

  const trusted = await nodeOn(t, nats, { env: { ...env, NATS_TRUSTED_NETWORK: '1' } })
  t.equal((await fetch(`${trusted.url}/health`)).status, 200, 'told the network is trusted, it starts and serves')
  t.match(trusted.output(), /"level":"warn"[^\n]*NATS_TRUSTED_NETWORK=1/, 'and its log says it started on that word')
})
