import SwaggerParser from '@apidevtools/swagger-parser'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import t from 'tap'
import { INGEST_OPERATIONS, PUBLIC_ARTIFACTS } from '../src/front/operations.js'
import { controlOperations } from '../src/control/control.js'
import { createAjv } from '../src/contract/validators.js'
import { call } from './helpers/api.js'
import { clusterFor } from './helpers/cluster.js'
import { seedProject } from './helpers/seed.js'

const REQUIRED_IDS = [
  'getHealth', 'getRelease', 'getTrackerBundle', 'getCliBundle', 'getInstallGuide', 'getAgentSkill',
  'ingestSessionChunk', 'ingestSignalsBatch', 'ingestStylesheet', 'getApiKeyIdentity', 'listProjects', 'createProject',
  'setProjectPathRules', 'countProjectSessions', 'getSetupTokenProject', 'setSetupPathRules',
]

t.test('the OpenAPI document is valid, complete and true to the running server', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const seeded = await seedProject(cluster.dataDir, 'Doc Org', 'doc@doc.test')
  const res = await fetch(`${cluster.url}/openapi.json`)
  t.equal(res.status, 200)
  const document = await res.json()
  const versioned = await (await fetch(`${cluster.url}/api/v1/openapi.json`)).json()
  t.same(versioned, document, 'served at /openapi.json and /api/v1/openapi.json')

  t.equal(document.openapi, '3.0.3')
  t.equal(document.info.version, '1.0.0')
  await t.resolves(SwaggerParser.validate(structuredClone(document)), 'validates with swagger-parser')

  const operations: { path: string; method: string; op: any }[] = []
  for (const [path, methods] of Object.entries<any>(document.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) operations.push({ path, method, op })
  }
  const ids = operations.map((o) => o.op.operationId)
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique')
  for (const id of REQUIRED_IDS) t.ok(ids.includes(id), `has ${id}`)

  // Every route the server registers is in the document.
  const registered = [
    ...PUBLIC_ARTIFACTS,
    ...INGEST_OPERATIONS,
    ...controlOperations({ store: undefined as never, config: { publicUrl: 'http://x/api/v1', directUrl: 'http://x', backfillBatch: 1, backfillPauseMs: 0 } }),
  ]
  for (const op of registered) {
    t.equal(document.paths[op.route]?.[op.method.toLowerCase()]?.operationId, op.operationId, `${op.method} ${op.route} is documented`)
  }
  t.equal(operations.length, registered.length, 'and nothing else is')
  // The control worker compiles a route's schemas when the route is first asked: each must compile under the service's strict AJV.
  const strict = createAjv()
  for (const op of registered) {
    const { body, query } = op as { body?: object; query?: object }
    for (const schema of [body, query].filter(Boolean)) t.doesNotThrow(() => strict.compile(schema as object), `${op.operationId}'s schema compiles`)
  }

  // Every operation in the document is served (answered by its handler, not by the 404 of an unknown route).
  for (const { path, method } of operations) {
    const answer = await fetch(`${cluster.url}/api/v1${path}`, { method: method.toUpperCase(), headers: method === 'post' ? { 'content-type': 'application/json' } : {}, body: method === 'post' ? '{}' : undefined })
    const text = await answer.text()
    t.not(answer.status, 404, `${method.toUpperCase()} ${path} is served (${text.slice(0, 80)})`)
  }

  // Real answers validate against the document's answer schemas, errors included.
  const dereferenced: any = await SwaggerParser.dereference(structuredClone(document))
  const ajv = new Ajv({ strict: false, allErrors: true })
  addFormats.default(ajv)
  const check = (path: string, method: string, status: number, body: unknown) => {
    const response = dereferenced.paths[path][method].responses[String(status)]
    t.ok(response, `${method} ${path} documents ${status}`)
    const schema = response?.content?.['application/json']?.schema
    if (!schema) return
    const validate = ajv.compile(schema)
    t.ok(validate(body), `${method} ${path} ${status} matches its schema ${JSON.stringify(validate.errors)}`)
  }
  const token = seeded.apiKey
  const samples: [string, string, Parameters<typeof call>[2]][] = [
    ['/cli/whoami', 'post', { token }],
    ['/cli/projects.list', 'post', { token }],
    ['/cli/projects.create', 'post', { token, body: { name: 'Doc', domain: 'doc.test', pathRules: ['/{a}/*'] } }],
    ['/cli/projects.create', 'post', { token, body: {} }],
    ['/cli/projects.path-rules', 'post', { token, body: { projectId: seeded.project.id, rules: ['/x/*'] } }],
    ['/cli/projects.path-rules', 'post', { token, body: { projectId: 'prj_none', rules: ['/x/*'] } }],
    ['/cli/sessions.count', 'post', { token, body: { projectId: seeded.project.id } }],
    ['/cli/sessions.count', 'post', {}],
    ['/cli/keys.list', 'post', { token }],
    ['/cli/projects.setup-token', 'post', { token, body: { projectId: seeded.project.id } }],
    ['/cli/sessions.list', 'post', { token, body: { projectId: seeded.project.id, selector: '#buy' } }],
    ['/auth/invite', 'post', { token }],
    ['/auth/invites.list', 'post', { token }],
    ['/auth/invites.revoke', 'post', { token, body: { inviteId: 'ffffffffffff' } }],
    ['/health', 'get', { method: 'GET' }],
    ['/release', 'get', { method: 'GET' }],
  ]
  let setupToken = ''
  for (const [path, method, options] of samples) {
    const answer = await call(cluster.url, path, options)
    if (path === '/cli/projects.setup-token') setupToken = answer.body.token
    check(path, method, answer.status, answer.body)
  }
  for (const [path, body] of [['/setup/whoami', undefined], ['/setup/path-rules', { rules: ['/{t}/*'] }], ['/setup/path-rules', { rules: ['bad'] }]] as const) {
    const answer = await call(cluster.url, path, { token: setupToken, body })
    check(path, 'post', answer.status, answer.body)
  }
  const ingest = await fetch(`${cluster.url}/api/v1/ingest?pk=${seeded.project.publicKey}`, { method: 'POST', body: 'x' })
  check('/ingest', 'post', ingest.status, await ingest.json())
  const signals = await fetch(`${cluster.url}/api/v1/signals?pk=${seeded.project.publicKey}`, { method: 'POST', body: JSON.stringify({ sk: 's', vid: 'v' }) })
  check('/signals', 'post', signals.status, await signals.json())
  const style = await fetch(`${cluster.url}/api/v1/styles?pk=${seeded.project.publicKey}&hash=${'0'.repeat(64)}`, { method: 'POST', body: 'p { color: red }' })
  check('/styles', 'post', style.status, await style.json())
})
