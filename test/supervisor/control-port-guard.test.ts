/**
 * The control worker listens on a loopback port any local user can reach: it
 * answers only requests carrying the secret the primary minted for this start
 * and handed the fronts, which overwrite any copy a client sends.
 */
import t from 'tap'
import { clusterFor } from '../helpers/cluster.js'

t.test('a direct request to the control port is refused; the same request through the front is served', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  // The port the control worker logged (a free one it was given at start-up).
  const controlPort = /"msg":"control listening".*?"port":(\d+)/.exec(cluster.output())?.[1]
  t.ok(controlPort, 'the control worker logged its port')
  const control = `http://127.0.0.1:${controlPort}`

  for (const [name, headers] of [
    ['no secret', {}],
    ['a guessed secret', { 'x-svc-control-secret': 'f'.repeat(64) }],
    ['an empty secret', { 'x-svc-control-secret': '' }],
  ] as const) {
    const direct = await fetch(`${control}/api/v1/auth/state`, { headers })
    t.same([direct.status, (await direct.json()).code], [401, 'unauthorized'], `the control port refuses ${name}`)
  }
  const setup = await fetch(`${control}/api/v1/auth/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ orgName: 'Evil', email: 'evil@evil.test', password: 'correct horse battery' }) })
  t.same([setup.status, (await setup.json()).code], [401, 'unauthorized'], 'not even the first-run set-up')
  const dashboard = await fetch(`${control}/app/`)
  t.equal(dashboard.status, 401, 'nor the dashboard files')

  const front = await fetch(`${cluster.url}/api/v1/auth/state`, { headers: { 'x-svc-control-secret': 'f'.repeat(64) } })
  t.same([front.status, await front.json()], [200, { firstRun: true, signedIn: false }], 'through the front, a client-sent secret is replaced by the real one')
  t.notOk(cluster.output().includes('SVC_CONTROL_SECRET='), 'the secret is never logged')
})
