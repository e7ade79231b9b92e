/** `X-Content-Type-Options: nosniff`, exactly once, on every answer: artifacts, ingest, the API, the website, the dashboard, errors and preflights. */
import t from 'tap'
import { clusterFor } from '../helpers/cluster.js'
import { seedProject } from '../helpers/seed.js'

t.test('every answer says nosniff, once', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const { project, apiKey } = await seedProject(cluster.dataDir)
  const requests: Array<[string, string, RequestInit?]> = [
    ['artifact', '/tracker.js'],
    ['artifact', '/cli.mjs'],
    ['artifact', '/install.md'],
    ['artifact', '/skill.md'],
    ['artifact', '/health'],
    ['artifact', '/release'],
    ['OpenAPI', '/openapi.json'],
    ['API', '/api/v1/auth/state'],
    ['API error', '/api/v1/cli/projects.list', { method: 'POST' }],
    ['API', '/api/v1/cli/projects.list', { method: 'POST', headers: { authorization: `Bearer ${apiKey}` } }],
    ['ingest error', `/api/v1/ingest?pk=${project.publicKey}`, { method: 'POST', body: 'x' }],
    ['signals', `/api/v1/signals?pk=${project.publicKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sk: 's', vid: 'v', clicks: [] }) }],
    ['preflight', '/api/v1/ingest', { method: 'OPTIONS', headers: { origin: 'https://shop.test', 'access-control-request-method': 'POST' } }],
    ['website', '/'],
    ['website', '/docs/install', { headers: { accept: 'text/markdown' } }],
    ['dashboard', '/app/'],
    ['not found', '/no/such/thing'],
    ['not found', '/api/v1/no-such-operation'],
  ]
  for (const [kind, path, init] of requests) {
    const res = await fetch(`${cluster.url}${path}`, init)
    await res.arrayBuffer()
    t.equal(res.headers.get('x-content-type-options'), 'nosniff', `${kind} ${init?.method ?? 'GET'} ${path} (${res.status})`)
  }
})
