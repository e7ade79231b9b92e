/**
 * The dashboard's files at /app/ through the real cluster (front → control
 * worker): the shell revalidated and locked down by its headers, hashed
 * modules cached for good and served pre-compressed, JSON 404s for anything
 * else under /app/, Markdown on request, and the JavaScript budget.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import t from 'tap'
import { accepts } from '../../src/control/dashboard-files.js'
import { clusterFor, DIST } from '../helpers/cluster.js'

const APP = join(DIST, 'public', 'app')
/** The dashboard's JavaScript under 150 KB gzipped, not counting the replay player and the heatmap's page rebuild. */
const BUDGET = 150 * 1024
/** Chunks of rrweb-player and rrweb's Replayer (dashboard/src/player/, dashboard/src/heatmap/), loaded on their screens only. */
const ON_DEMAND = /^(player|rebuild)-/

/** A raw GET (node:http, not fetch: fetch asks for compression itself and decodes it). */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const answer = new Headers()
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) answer.set(name, Array.isArray(value) ? value.join(', ') : value)
        resolve({ status: res.statusCode ?? 0, headers: answer, bytes: Buffer.concat(chunks) })
      })
    })
      .on('error', reject)
      .end()
  })
}

t.test('accepts() reads Accept and Accept-Encoding lists', async (t) => {
  t.ok(accepts('gzip, deflate, br', 'br'))
  t.ok(accepts('br;q=0.5, gzip', 'gzip'))
  t.notOk(accepts('gzip, br;q=0', 'br'), 'q=0 refuses')
  t.notOk(accepts(undefined, 'gzip'))
  t.ok(accepts('text/markdown, text/html;q=0.9', 'text/markdown'))
  t.notOk(accepts('text/html', 'text/markdown'))
})

t.test('the dashboard at /app/', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const app = `${cluster.url}/app`

  await t.test('/app redirects to /app/', async (t) => {
    const res = await get(app)
    t.equal(res.status, 308)
    t.equal(res.headers.get('location'), '/app/')
  })

  let shell = ''
  await t.test('the shell: HTML, revalidated every time, locked down', async (t) => {
    const res = await get(`${app}/`)
    t.equal(res.status, 200)
    t.match(res.headers.get('content-type'), /^text\/html/)
    t.equal(res.headers.get('cache-control'), 'no-cache')
    const csp = res.headers.get('content-security-policy') ?? ''
    t.match(csp, /script-src 'self'/, 'only its own scripts')
    t.match(csp, /frame-ancestors 'none'/, 'nothing may frame it')
    t.equal(res.headers.get('x-content-type-options'), 'nosniff')
    shell = res.bytes.toString('utf8')
    t.match(shell, /<script type="module" src="\.\/app-[A-Z0-9]+\.js"><\/script>/, 'names the hashed entry')
    t.match(shell, /<link rel="stylesheet" href="\.\/app-[A-Z0-9]+\.css">/, 'and the hashed stylesheet')
    t.notMatch(shell, /player-|rebuild-/, 'the player is not preloaded')
    const again = await get(`${app}/`, { 'if-none-match': res.headers.get('etag')! })
    t.equal(again.status, 304, 'an unchanged shell answers 304')
  })

  await t.test('hashed modules: cached for a year, served as brotli or gzip when asked, identical once decoded', async (t) => {
    const entry = /src="\.\/(app-[A-Z0-9]+\.js)"/.exec(shell)![1]
    const plain = await get(`${app}/${entry}`)
    t.equal(plain.status, 200)
    t.match(plain.headers.get('content-type'), /^text\/javascript/)
    t.equal(plain.headers.get('cache-control'), 'public, max-age=31536000, immutable')
    t.equal(plain.headers.get('content-encoding'), null, 'no encoding unless asked')
    const br = await get(`${app}/${entry}`, { 'accept-encoding': 'gzip, br' })
    t.equal(br.headers.get('content-encoding'), 'br')
    t.same(brotliDecompressSync(br.bytes), plain.bytes)
    const gz = await get(`${app}/${entry}`, { 'accept-encoding': 'gzip' })
    t.equal(gz.headers.get('content-encoding'), 'gzip')
    t.same(gunzipSync(gz.bytes), plain.bytes)
    t.match(br.headers.get('vary'), /Accept-Encoding/)
  })

  await t.test('anything else under /app/ is a JSON 404, like every unknown path', async (t) => {
    for (const path of ['/app/nope.js', '/app/index.html.br', '/app/sub/app.js', '/app/..%2Fpackage.json', '/app/app.js.map']) {
      const res = await get(`${cluster.url}${path}`)
      t.equal(res.status, 404, path)
      t.equal(JSON.parse(res.bytes.toString()).code, 'not_found', `${path}: code not_found`)
    }
    const post = await fetch(`${app}/`, { method: 'POST', body: '{}' })
    t.same([post.status, (await post.json()).code], [404, 'not_found'], 'POST is not a file request')
    const api = await get(`${cluster.url}/api/v1/no-such-route`)
    t.same([api.status, JSON.parse(api.bytes.toString()).code], [404, 'not_found'], 'the API still answers its own 404s')
  })

  await t.test('Accept: text/markdown gets a Markdown description of the dashboard', async (t) => {
    const res = await get(`${app}/`, { accept: 'text/markdown' })
    t.equal(res.status, 200)
    t.match(res.headers.get('content-type'), /^text\/markdown/)
    t.equal(res.headers.get('vary'), 'Accept, Accept-Encoding')
    t.match(res.bytes.toString(), /^# Dashboard/)
  })
})

t.test('the dashboard\'s JavaScript stays under 150 KB gzipped, the player aside', async (t) => {
  const files = readdirSync(APP).filter((name) => name.endsWith('.js'))
  const budgeted = files.filter((name) => !ON_DEMAND.test(name))
  const gzipped = budgeted.reduce((sum, name) => sum + statSync(join(APP, `${name}.gz`)).size, 0)
  t.ok(budgeted.length >= 1)
  t.ok(gzipped < BUDGET, `${(gzipped / 1024).toFixed(1)} KB gzipped over ${budgeted.length} files`)
  const onDemand = files.filter((name) => ON_DEMAND.test(name))
  t.equal(onDemand.length, 2, 'the player and the page rebuild are chunks of their own')
  const entry = files.find((name) => /^app-/.test(name))!
  const source = readFileSync(join(APP, entry), 'utf8')
  for (const chunk of onDemand) t.match(source, new RegExp(`import\\("\\./${chunk.replace('.', '\\.')}"\\)`), `${chunk} is imported dynamically`)
})
