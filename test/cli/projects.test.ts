/**
 * The CLI's project commands end to end: projects create and list, rules set and
 * rules test (against the server's own grouping code), snippet and setup-token.
 * The file the server serves at /cli.mjs, saved and run as a process (under
 * Node 18 when one is installed) against a real cluster. No mocks.
 */
import t from 'tap'
import { groupUrl } from '../../src/grouping/group.js'
import { compileRules } from '../../src/grouping/rules.js'
import { call } from '../helpers/api.js'
import { CLI_NODE, cliSetup } from '../helpers/cli.js'
import { clusterFor } from '../helpers/cluster.js'

const cluster = await clusterFor(t, { workers: 1 })
t.comment(`CLI runs under ${CLI_NODE}`)

t.test('projects create, rules set and rules test, snippet and setup-token work against the real API', async (t) => {
  const { seeded, svc } = await cliSetup(t, cluster)
  const env = { SVC_API_KEY: seeded.apiKey }

  const refused = await svc(['projects', 'create', 'Broken', '--rule', '/docs/*', '--rule', '/{tenant', '--json'], { env })
  t.equal(refused.code, 2, 'a rule that does not compile is a usage error')
  t.equal(refused.error.code, 'invalid_rule')
  const before = await call(cluster.url, '/cli/projects.list', { token: seeded.apiKey })
  t.same(before.body.projects.map((p: { id: string }) => p.id), [seeded.project.id], 'and no project was created')

  const created = await svc(['projects', 'create', 'Acme shop', '--domain', 'shop.acme.test', '--rule', '/docs/*', '--rule', '/{tenant}/settings/*', '--json'], { env })
  t.equal(created.code, 0, created.stderr)
  const project = created.json.project
  t.match(project, { name: 'Acme shop', domain: 'shop.acme.test', pathRules: ['/docs/*', '/{tenant}/settings/*'], sessionCount: 0 })
  t.match(project.publicKey, /^svc_pk_[0-9a-f]+$/)

  const listed = await svc(['projects', 'list'], { env })
  t.equal(listed.code, 0)
  const lines = listed.stdout.trim().split('\n')
  t.match(lines[0], /^ID +NAME +DOMAIN +SESSIONS +PUBLIC KEY +RULES$/, 'a table with a header')
  t.equal(lines.length, 3, 'one line per project')
  const column = lines[0].indexOf('PUBLIC KEY')
  for (const line of lines.slice(1)) t.match(line.slice(column), /^svc_pk_/, 'columns are aligned')

  const rules = ['/docs/*', '/blog/{slug}', '/{tenant}/settings/*', '/{tenant}/projects/{project}/*']
  const set = await svc(['rules', 'set', project.id, ...rules, '--json'], { env })
  t.equal(set.code, 0, set.stderr)
  t.same(set.json.project.pathRules, rules)
  const stored = await call(cluster.url, '/cli/projects.list', { token: seeded.apiKey })
  t.same(stored.body.projects.find((p: { id: string }) => p.id === project.id).pathRules, rules, 'the server holds the new rules')

  const badSet = await svc(['rules', 'set', project.id, '/ok/*', 'no-slash', '--json'], { env })
  t.equal(badSet.code, 2)
  t.equal(badSet.error.code, 'invalid_rule')

  const urls = ['https://shop.acme.test/acme/settings/42', 'https://shop.acme.test/blog/why-we-built-this', '/acme/projects/redesign/tasks/7', '/acme/orders/99']
  const tested = await svc(['rules', 'test', project.id, ...urls, '--json'], { env })
  t.equal(tested.code, 0, tested.stderr)
  const compiled = compileRules(rules).rules
  t.same(
    tested.json.results.map((r: { page: string }) => r.page),
    urls.map((u) => groupUrl(u, compiled).path),
    'rules test groups exactly as the server\'s grouping code does',
  )
  t.same(tested.json.results.map((r: { page: string }) => r.page), ['/{tenant}/settings/:id', '/blog/{slug}', '/{tenant}/projects/{project}/tasks/:id', '/acme/orders/:id'])
  const proposed = await svc(['rules', 'test', project.id, '/acme/orders/99', '--rule', '/{tenant}/orders/*', '--json'], { env })
  t.same(proposed.json.results[0].page, '/{tenant}/orders/:id', '--rule tries rules without saving them')
  const humanTest = await svc(['rules', 'test', project.id, '/acme/settings/billing'], { env })
  t.match(humanTest.stdout, /^URL +PAGE\n\/acme\/settings\/billing +\/\{tenant\}\/settings\/billing\n$/)

  const snippet = await svc(['snippet', project.id, '--json'], { env })
  t.equal(snippet.code, 0, snippet.stderr)
  const served = await call(cluster.url, '/cli/projects.snippet', { token: seeded.apiKey, body: { projectId: project.id } })
  t.same(snippet.json, served.body, 'the snippet is the server\'s')
  t.match(snippet.json.snippet, project.publicKey, 'with the project\'s public key')
  const humanSnippet = await svc(['snippet', project.id], { env })
  t.equal(humanSnippet.stdout.trim(), served.body.snippet.trim(), 'stdout holds the snippet alone')

  const minted = await svc(['setup-token', project.id, '--json'], { env })
  t.equal(minted.code, 0, minted.stderr)
  t.match(minted.json.token, /^svc_st_/)
  t.ok(minted.json.expiresAt > Date.now(), 'with its expiry')
  const setupWhoami = await call(cluster.url, '/setup/whoami', { token: minted.json.token, prefix: '/api' })
  t.equal(setupWhoami.status, 200, 'the token works on the setup API')
  t.equal(setupWhoami.body.project.name, 'Acme shop')
  t.match(minted.json.prompt, `${cluster.url}/skill.md`, 'the prompt points the agent at the skill')
  t.match(minted.json.prompt, `export SVC_SETUP_TOKEN=${minted.json.token}`, 'and has the token go into the shell environment')
  t.match(minted.json.prompt, served.body.snippet.trim(), 'and carries the snippet')
  const humanToken = await svc(['setup-token', project.id], { env })
  t.match(humanToken.stdout, /^Install session recording for "Acme shop"/, 'stdout is the prompt itself')
})
