/**
 * svc projects capture end to end: the file the server serves at /cli.mjs,
 * run as a process against a real cluster, shows and changes a project's
 * capture settings, and refuses bad values before sending anything.
 */
import t from 'tap'
import { call } from '../helpers/api.js'
import { cliSetup } from '../helpers/cli.js'
import { clusterFor } from '../helpers/cluster.js'

const cluster = await clusterFor(t, { workers: 1 })

t.test('projects capture shows the defaults, changes only the flags given, and refuses bad values', async (t) => {
  const { seeded, svc } = await cliSetup(t, cluster)
  const env = { SVC_API_KEY: seeded.apiKey }
  const projectId = seeded.project.id

  const shown = await svc(['projects', 'capture', projectId, '--json'], { env })
  t.equal(shown.code, 0, shown.stderr)
  t.same(shown.json.capture, { sampleRate: 1, minDurationMs: 0, triggerUrls: [], excludeUrls: [], console: false, network: false, networkQuery: false }, 'off and everything recorded by default')

  const changed = await svc(['projects', 'capture', projectId, '--sample', '0.25', '--min-duration', '5', '--exclude', '/account/*', '--console', 'on', '--json'], { env })
  t.equal(changed.code, 0, changed.stderr)
  t.match(changed.json.capture, { sampleRate: 0.25, minDurationMs: 5000, triggerUrls: [], excludeUrls: ['/account/*'], console: true, network: false })
  const more = await svc(['projects', 'capture', projectId, '--trigger', '/checkout/*', '--json'], { env })
  t.match(more.json.capture, { sampleRate: 0.25, triggerUrls: ['/checkout/*'], excludeUrls: ['/account/*'] }, 'a later change keeps the rest')
  const listed = await call(cluster.url, '/cli/projects.list', { token: seeded.apiKey })
  t.same(listed.body.projects[0].capture.triggerUrls, ['/checkout/*'], 'the server holds them')

  const cleared = await svc(['projects', 'capture', projectId, '--clear-urls', '--json'], { env })
  t.match(cleared.json.capture, { triggerUrls: [], excludeUrls: [] }, '--clear-urls empties both lists')

  const text = await svc(['projects', 'capture', projectId], { env })
  t.match(text.stdout, /Sampling +25% of sessions/, 'a readable summary')

  for (const bad of [['--sample', '2'], ['--console', 'yes'], ['--exclude', 'no-slash']]) {
    const refused = await svc(['projects', 'capture', projectId, ...bad, '--json'], { env })
    t.equal(refused.code, 2, `${bad.join(' ')} is a usage error`)
  }
  const after = await call(cluster.url, '/cli/projects.list', { token: seeded.apiKey })
  t.equal(after.body.projects[0].capture.sampleRate, 0.25, 'and nothing was sent')
})
