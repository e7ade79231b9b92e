/** The public artifacts of section 4.1, and JSON 404s for paths that name nothing. */
import { createHash } from 'node:crypto'
import t from 'tap'
import { get } from '../helpers/http.js'
import { ingestCluster } from '../helpers/ingest.js'

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

t.test('GET /health answers {ok, service, version}, version being the tracker version of /release', async (t) => {
  const { cluster } = await ingestCluster(t)
  const release = await get(cluster.url, '/release')
  for (const path of ['/health', '/api/health', '/api/v1/health']) {
    const health = await get(cluster.url, path)
    t.equal(health.status, 200, path)
    t.match(health.headers['content-type'], /^application\/json/, path)
    t.match(health.json, { ok: true, service: /\S/, version: /\S/ }, path)
    t.equal(health.json.version, release.json.tracker.version, `${path}: version is tracker.version`)
  }
})

t.test('GET /release gives the sha256 of the very bytes /cli.mjs and /skill.md serve', async (t) => {
  const { cluster } = await ingestCluster(t)
  const release = await get(cluster.url, '/api/v1/release')
  t.equal(release.status, 200)
  t.match(release.headers['content-type'], /^application\/json/)
  t.match(release.json, { cli: { version: String, sha256: /^[0-9a-f]{64}$/ }, skill: { version: String, sha256: /^[0-9a-f]{64}$/ }, tracker: { version: String } })
  for (const prefix of ['', '/api', '/api/v1']) {
    const cli = await get(cluster.url, `${prefix}/cli.mjs`)
    const skill = await get(cluster.url, `${prefix}/skill.md`)
    t.equal(sha256(cli.bytes), release.json.cli.sha256, `${prefix}/cli.mjs`)
    t.equal(sha256(skill.bytes), release.json.skill.sha256, `${prefix}/skill.md`)
  }
})

t.test('the artifacts are served with their content types', async (t) => {
  const { cluster } = await ingestCluster(t)
  const types: Record<string, RegExp> = {
    '/tracker.js': /^text\/javascript/,
    '/capture.js': /^text\/javascript/,
    '/cli.mjs': /^text\/javascript/,
    '/release/cli.mjs': /^text\/javascript/,
    '/install.md': /^text\/markdown/,
    '/skill.md': /^text\/markdown/,
    '/health': /^application\/json/,
    '/release': /^application\/json/,
  }
  for (const [route, type] of Object.entries(types)) {
    for (const path of [route, `/api${route}`, `/api/v1${route}`]) {
      const answer = await get(cluster.url, path)
      t.equal(answer.status, 200, path)
      t.match(answer.headers['content-type'], type, path)
      t.ok(answer.bytes.byteLength > 0, `${path}: not empty`)
    }
  }
})

t.test('unknown paths answer 404 not_found as JSON, at the root and under /api/v1', async (t) => {
  const { cluster } = await ingestCluster(t)
  const cases: [string, string][] = [
    ['GET', '/no-such-page'],
    ['GET', '/deep/no/such/path.html'],
    ['GET', '/api/v1/no-such-route'],
    ['POST', '/api/v1/no-such-route'],
    ['GET', '/api/no-such-route'],
    ['POST', '/no-such-page'],
    ['GET', '/api/v1/ingest'],
    ['DELETE', '/api/v1/health'],
  ]
  for (const [method, path] of cases) {
    const answer = await get(cluster.url, path, { method, headers: { accept: 'application/json' }, body: method === 'POST' ? '{}' : undefined })
    t.equal(answer.status, 404, `${method} ${path}`)
    t.match(answer.headers['content-type'], /^application\/json/, `${method} ${path}`)
    t.match(answer.json, { code: 'not_found', error: String }, `${method} ${path}`)
  }
})
