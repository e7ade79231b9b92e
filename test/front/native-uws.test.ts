import t from 'tap'
import { clusterFor } from '../helpers/cluster.js'

t.test('the native uWebSockets.js binary serves, not its pure-Node fallback', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const res = await fetch(`${cluster.url}/health`)
  t.equal(res.status, 200)
  // Only the native binary writes this header; the fallback implementation does not.
  t.equal(res.headers.get('uwebsockets'), '20')
  t.match(cluster.output(), /"msg":"front listening","port":\d+,"native":true/)
  t.match(cluster.output(), /"msg":"listening".*"native":true/)
})

t.test('a front refuses to start on the fallback implementation', async (t) => {
  // UWS_USE_FALLBACK makes the package load its pure-Node implementation; the front must refuse it.
  await t.rejects(clusterFor(t, { workers: 1, env: { UWS_USE_FALLBACK: '1' } }).then((c) => c.stop()), /did not start|exited/)
})
