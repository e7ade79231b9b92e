/** POST /cli/projects.snippet: the HTML that installs the tracker, for a project of the key's organisation only. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { snippetFor } from '../../src/install/snippet.js'
import { call } from '../helpers/api.js'
import { clusterFor, DIST } from '../helpers/cluster.js'
import { seedProject } from '../helpers/seed.js'

t.test('projects.snippet', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const acme = await seedProject(cluster.dataDir, 'Acme', 'owner@acme.test')
  const other = await seedProject(cluster.dataDir, 'Other', 'owner@other.test')
  const stub = readFileSync(join(DIST, 'public', 'stub.js'), 'utf8').trim()

  t.test('answers the snippet, the public key and the tracker address', async (t) => {
    const answer = await call(cluster.url, '/cli/projects.snippet', { token: acme.apiKey, body: { projectId: acme.project.id } })
    t.equal(answer.status, 200)
    t.equal(answer.body.publicKey, acme.project.publicKey)
    t.equal(answer.body.trackerUrl, `${cluster.url}/tracker.js`)
    const snippet: string = answer.body.snippet
    t.equal(snippet, snippetFor(acme.project.publicKey, cluster.url), 'the same HTML snippetFor builds')
    t.match(snippet, `data-svc-key="${acme.project.publicKey}"`, 'carries the key on the script tag')
    t.match(snippet, `data-svc-src="${cluster.url}/tracker.js"`, 'and the tracker address')
    t.ok(snippet.includes(`>${stub}</script>`), 'with the built stub inline')
    t.ok(Buffer.byteLength(stub) < 1024, `the minified stub is under 1 KB (${Buffer.byteLength(stub)} bytes)`)
    const tracker = await fetch(answer.body.trackerUrl)
    t.equal(tracker.status, 200, 'the tracker address serves the tracker')
    await tracker.arrayBuffer()
  })

  t.test('another organisation\'s project is answered like a missing one', async (t) => {
    const answer = await call(cluster.url, '/cli/projects.snippet', { token: other.apiKey, body: { projectId: acme.project.id } })
    t.equal(answer.status, 404)
    t.equal(answer.body.code, 'not_found')
    const missing = await call(cluster.url, '/cli/projects.snippet', { token: acme.apiKey, body: { projectId: 'prj_none' } })
    t.equal(missing.status, 404)
    t.equal(missing.body.code, 'not_found')
  })

  t.test('refuses a missing credential and a bad body', async (t) => {
    const anonymous = await call(cluster.url, '/cli/projects.snippet', { body: { projectId: acme.project.id } })
    t.equal(anonymous.status, 401)
    t.equal(anonymous.body.code, 'unauthorized')
    const noId = await call(cluster.url, '/cli/projects.snippet', { token: acme.apiKey, body: {} })
    t.equal(noId.status, 400)
    t.equal(noId.body.code, 'invalid_request')
  })

  t.test('snippetFor refuses what is not a public key', async (t) => {
    t.throws(() => snippetFor('"><script>alert(1)</script>', cluster.url))
  })
})
