/**
 * svc projects capture end to end: the file the server serves at /cli.mjs,
 * run as a process against a real cluster, shows and changes a project's
 * capture settings, and refuses bad values before sending anything.
 */
import t from 'tap'
import { call } from '../helpers/api.js'
import { cliSetup } from '../helpers/cli.js'
import { postChunk } from '../helpers/read.js'
import { clusterFor } from '../helpers/cluster.js'

const cluster = await clusterFor(t, { workers: 1 })

t.test('projects capture shows the defaults, changes only the flags given, and refuses bad values', async (t) => {
  const { seeded, svc } = await cliSetup(t, cluster)
  const env = { SVC_API_KEY: seeded.apiKey }
  const projectId = seeded.project.id

  const shown = await svc(['projects', 'capture', projectId, '--json'], { env })
  t.equal(shown.code, 0, shown.stderr)
  t.same(shown.json.capture, { sampleRate: 1, minDurationMs: 0, triggerUrls: [], excludeUrls: [], console: false, network: false, networkQuery: false, canvas: false, canvasFps: 2, canvasQuality: 0.6, frameParents: [] }, 'off and everything recorded by default')

  const changed = await svc(['projects', 'capture', projectId, '--sample', '0.25', '--min-duration', '5', '--exclude', '/account/*', '--console', 'on', '--json'], { env })
  t.equal(changed.code, 0, changed.stderr)
  t.match(changed.json.capture, { sampleRate: 0.25, minDurationMs: 5000, triggerUrls: [], excludeUrls: ['/account/*'], console: true, network: false })
  const more = await svc(['projects', 'capture', projectId, '--trigger', '/checkout/*', '--json'], { env })
  t.match(more.json.capture, { sampleRate: 0.25, triggerUrls: ['/checkout/*'], excludeUrls: ['/account/*'] }, 'a later change keeps the rest')
  const listed = await call(cluster.url, '/cli/projects.list', { token: seeded.apiKey })
  t.same(listed.body.projects[0].capture.triggerUrls, ['/checkout/*'], 'the server holds them')

  const canvas = await svc(['projects', 'capture', projectId, '--canvas', 'on', '--canvas-fps', '1', '--canvas-quality', '0.5', '--json'], { env })
  t.match(canvas.json.capture, { canvas: true, canvasFps: 1, canvasQuality: 0.5, sampleRate: 0.25 }, 'canvas capture on, at its rate and quality')

  const frames = await svc(['projects', 'capture', projectId, '--frame-parent', 'https://shop.example', '--frame-parent', 'http://127.0.0.1:8080', '--json'], { env })
  t.same(frames.json.capture.frameParents, ['https://shop.example', 'http://127.0.0.1:8080'], 'frame parents named')
  const noFrames = await svc(['projects', 'capture', projectId, '--clear-frame-parents', '--frame-parent', 'https://shop.example', '--json'], { env })
  t.same(noFrames.json.capture.frameParents, ['https://shop.example'], '--clear-frame-parents empties the list first')

  const cleared = await svc(['projects', 'capture', projectId, '--clear-urls', '--json'], { env })
  t.match(cleared.json.capture, { triggerUrls: [], excludeUrls: [] }, '--clear-urls empties both lists')

  const text = await svc(['projects', 'capture', projectId], { env })
  t.match(text.stdout, /Sampling +25% of sessions/, 'a readable summary')
  t.match(text.stdout, /Canvas +on, at most 1 fps, quality 0.5/, 'canvas capture in it')
  t.match(text.stdout, /Frames shown in +https:\/\/shop\.example/, 'and the frame parents')

  for (const bad of [['--sample', '2'], ['--console', 'yes'], ['--exclude', 'no-slash'], ['--canvas-fps', '11'], ['--canvas-quality', '1.5'], ['--frame-parent', 'https://shop.example/checkout']]) {
    const refused = await svc(['projects', 'capture', projectId, ...bad, '--json'], { env })
    t.equal(refused.code, 2, `${bad.join(' ')} is a usage error`)
  }
  const after = await call(cluster.url, '/cli/projects.list', { token: seeded.apiKey })
  t.equal(after.body.projects[0].capture.sampleRate, 0.25, 'and nothing was sent')
})

t.test('sessions list --console-errors and --failed-requests keep the sessions whose recording has them', async (t) => {
  const { seeded, svc } = await cliSetup(t, cluster)
  const env = { SVC_API_KEY: seeded.apiKey }
  const pk = seeded.project.publicKey
  const body = Buffer.from('[{"type":4,"data":{"href":"https://shop.test/"},"timestamp":1}]')
  const now = Date.now()
  t.equal(await postChunk(cluster.url, pk, { sk: 'quiet', seq: 0, startedAt: now - 3000, firstTs: now - 3000, lastTs: now - 3000 }, body), 200)
  t.equal(await postChunk(cluster.url, pk, { sk: 'noisy', seq: 0, startedAt: now - 2000, firstTs: now - 2000, lastTs: now - 2000, consoleErrors: 2 }, body), 200)
  t.equal(await postChunk(cluster.url, pk, { sk: 'failing', seq: 0, startedAt: now - 1000, firstTs: now - 1000, lastTs: now - 1000, failedRequests: 1 }, body), 200)
  t.equal(await postChunk(cluster.url, pk, { sk: 'failing', seq: 1, startedAt: now - 1000, firstTs: now - 900, lastTs: now - 900, failedRequests: 3 }, body), 200)
  const keys = async (...flags: string[]) => {
    const listed = await svc(['sessions', 'list', seeded.project.id, ...flags, '--json'], { env })
    t.equal(listed.code, 0, listed.stderr)
    return listed.json.sessions.map((s: { sessionKey: string }) => s.sessionKey)
  }
  t.same(await keys(), ['failing', 'noisy', 'quiet'], 'all three, newest first')
  t.same(await keys('--console-errors'), ['noisy'], 'console errors')
  t.same(await keys('--failed-requests'), ['failing'], 'failed requests')
  const all = await svc(['sessions', 'list', seeded.project.id, '--json'], { env })
  t.match(all.json.sessions[0], { sessionKey: 'failing', failedRequests: 4, consoleErrors: 0 }, 'counts summed over the chunks')
  const bad = await call(cluster.url, '/cli/sessions.list', { token: seeded.apiKey, body: { projectId: seeded.project.id, hasConsoleErrors: 'yes' } })
  t.equal(bad.status, 400)
  t.equal(bad.body.code, 'invalid_request')
  const badMeta = await postChunk(cluster.url, pk, { sk: 'bad', seq: 0, consoleErrors: -1 } as never, body)
  t.equal(badMeta, 400, 'a negative count in the meta is refused')
})
