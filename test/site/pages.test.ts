/**
 * The website's public pages through the real front (API contract, section
 * 1, rule 6): HTML by default, the Markdown source with `Accept:
 * text/markdown`, 406 `not_acceptable` for anything else, `Vary: Accept,
 * Accept-Encoding` on every answer, and br/gzip when the client accepts it.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { request } from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import t from 'tap'
import { COMMANDS } from '../../cli/src/help.js'
import { PAGES } from '../../src/site/site.js'
import { clusterFor, DIST, ROOT } from '../helpers/cluster.js'

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

/** A GET with exactly the headers given (fetch would add and undo Accept-Encoding by itself). */
function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

const cluster = await clusterFor(t, { workers: 1 })
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'

for (const page of PAGES) {
  t.test(`${page.path} is HTML by default, Markdown on request, 406 otherwise`, async (t) => {
    const url = `${cluster.url}${page.path}`
    for (const accept of [undefined, BROWSER, 'text/html', '*/*']) {
      const html = await get(url, accept ? { accept } : {})
      t.equal(html.status, 200, `Accept: ${accept}`)
      t.match(html.headers['content-type'], /^text\/html; charset=utf-8$/)
      t.equal(html.headers.vary, 'Accept, Accept-Encoding')
      t.match(html.body.toString(), /^<!doctype html>/)
    }

    const markdown = await get(url, { accept: 'text/markdown' })
    t.equal(markdown.status, 200)
    t.match(markdown.headers['content-type'], /^text\/markdown; charset=utf-8$/)
    t.equal(markdown.headers.vary, 'Accept, Accept-Encoding')
    const source = markdown.body.toString()
    t.match(source, /^(---\n[\s\S]*?\n---\n\n)?# /, 'the Markdown source, starting with its title')
    t.notMatch(source, /@@SVC_/, 'every placeholder is filled')
    t.notMatch(source, /<html|<body/i, 'not HTML')

    // Written once: the HTML is that Markdown rendered, heading for heading.
    const html = (await get(url)).body.toString()
    // Headings outside fenced code: a `#` line in a shown config file is a comment, not a heading.
    const prose = source.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '')
    for (const [, level, text] of prose.matchAll(/^(#{1,3}) (.+)$/gm)) {
      const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')
      const rendered = escaped.replace(/`([^`]+)`/g, '<code>$1</code>')
      t.match(html, `<h${level.length} id=`, `h${level.length} for "${text}"`)
      t.ok(html.includes(`>${rendered}</h${level.length}>`), `the HTML has the heading "${text}"`)
    }

    const preferred = await get(url, { accept: 'text/markdown, text/html;q=0.5' })
    t.equal(preferred.headers['content-type'], 'text/markdown; charset=utf-8', 'q-values decide')

    for (const accept of ['application/json', 'image/png', 'text/markdown;q=0']) {
      const refused = await get(url, { accept })
      t.equal(refused.status, 406, `Accept: ${accept} is refused`)
      t.equal(refused.headers['content-type'], 'application/json')
      t.equal(refused.headers.vary, 'Accept, Accept-Encoding')
      const error = JSON.parse(refused.body.toString())
      t.equal(error.code, 'not_acceptable')
      t.ok(error.hint, 'with a hint')
    }

    const identity = await get(url, { accept: 'text/markdown' })
    t.notOk(identity.headers['content-encoding'], 'uncompressed when the client does not ask')
    const br = await get(url, { accept: 'text/markdown', 'accept-encoding': 'gzip, deflate, br' })
    t.equal(br.headers['content-encoding'], 'br')
    t.same(brotliDecompressSync(br.body), identity.body, 'br decodes to the same bytes')
    t.ok(br.body.length < identity.body.length, 'and is smaller')
    const gzip = await get(url, { 'accept-encoding': 'gzip' })
    t.equal(gzip.headers['content-encoding'], 'gzip')
    t.same(gunzipSync(gzip.body), (await get(url)).body, 'gzip decodes to the same HTML')
    t.equal(gzip.headers.vary, 'Accept, Accept-Encoding')

    const head = await get(url, { accept: 'text/markdown' }, 'HEAD')
    t.equal(head.status, 200, 'HEAD answers')
    t.equal(head.body.length, 0, 'without a body')
  })
}

t.test('every page links every other page, and the install page is the served /install.md', async (t) => {
  const home = (await get(`${cluster.url}/`)).body.toString()
  for (const page of PAGES) t.match(home, `href="${page.path}"`, `nav links ${page.path}`)
  const installPage = (await get(`${cluster.url}/docs/install`, { accept: 'text/markdown' })).body.toString()
  const installMd = (await get(`${cluster.url}/install.md`)).body.toString()
  t.equal(installPage, installMd, 'one source for the guide, the page and /install.md')
})

t.test('the CLI page documents every command, from the CLI\'s own table', async (t) => {
  const cli = (await get(`${cluster.url}/docs/cli`, { accept: 'text/markdown' })).body.toString()
  for (const command of COMMANDS) t.match(cli, `### svc ${command.name}\n`, `svc ${command.name}`)
})

t.test('the API page lists every operation of /openapi.json', async (t) => {
  const api = (await get(`${cluster.url}/docs/api`, { accept: 'text/markdown' })).body.toString()
  const document = JSON.parse((await get(`${cluster.url}/openapi.json`)).body.toString())
  for (const [path, methods] of Object.entries<Record<string, { operationId: string }>>(document.paths)) {
    for (const [method, op] of Object.entries(methods)) t.match(api, `| \`${op.operationId}\` | ${method.toUpperCase()} \`${path}\` |`, op.operationId)
  }
})

t.test('unknown paths still answer 404 JSON, and /openapi.json still works', async (t) => {
  for (const path of ['/docs/nope', '/docs/readme', '/nope.md', '/api/v1/docs/cli', '/api/']) {
    const missing = await get(`${cluster.url}${path}`, { accept: 'text/markdown' })
    t.equal(missing.status, 404, path)
    t.equal(JSON.parse(missing.body.toString()).code, 'not_found')
  }
  const post = await get(`${cluster.url}/`, {}, 'POST')
  t.equal(post.status, 404, 'pages answer GET and HEAD only')
  t.equal(JSON.parse(post.body.toString()).code, 'not_found')
  const openapi = await get(`${cluster.url}/openapi.json`)
  t.equal(openapi.status, 200)
  t.equal(JSON.parse(openapi.body.toString()).openapi, '3.0.3')
  t.equal((await get(`${cluster.url}/docs/cli/`)).status, 200, 'a trailing slash names the same page')
})

t.test('the pages are built from the sources the build copied', async (t) => {
  for (const page of PAGES) {
    const dir = page.source === 'site' ? 'site' : 'public'
    t.ok(readFileSync(`${DIST}/${dir}/${page.file}`, 'utf8').length > 0, `${dir}/${page.file}`)
  }
})

t.test('the repository\'s docs/ is served under /docs: its contents, every page, its screenshots, links made the server\'s', async (t) => {
  const docs = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md'))
  const contents = await get(`${cluster.url}/docs`)
  t.equal(contents.status, 200)
  t.match(contents.headers['content-type'], /^text\/html/)
  const index = contents.body.toString()
  t.match(index, /<h1[^>]*>Documentation<\/h1>/, 'docs/README.md is the contents')
  t.match(index, 'href="/docs/configuration"', 'a docs/ page linked by its served path')
  t.match(index, 'href="/docs/install"', 'a served page linked through its source, served path')
  t.notMatch(index, /href="[^"]+\.md[#"]/, 'no link left to a Markdown file')
  for (const file of docs.filter((name) => name !== 'README.md')) {
    const path = `/docs/${file.replace(/\.md$/, '')}`
    const page = await get(`${cluster.url}${path}`, { accept: 'text/markdown' })
    t.equal(page.status, 200, path)
    t.match(page.body.toString(), /^# /, `${path}: its Markdown`)
  }
  const tour = (await get(`${cluster.url}/docs/dashboard`)).body.toString()
  const image = /<img src="(\/docs\/images\/[\w.-]+\.png)"/.exec(tour)?.[1]
  t.ok(image, 'the tour shows its screenshots from /docs/images/')
  const png = await get(`${cluster.url}${image}`)
  t.same([png.status, png.headers['content-type']], [200, 'image/png'])
  t.same(png.body.subarray(1, 4).toString(), 'PNG')
  const started = (await get(`${cluster.url}/docs/getting-started`, { accept: 'text/markdown' })).body.toString()
  t.match(started, 'README (`README.md` in the repository)', 'a file outside docs/ is named, not linked')
  t.match((await get(`${cluster.url}/docs`, { accept: 'text/markdown' })).body.toString(), '`bench/RESULTS.md`', 'a link whose text is its path: the path')
  const missing = await get(`${cluster.url}/docs/images/nothing.png`)
  t.equal(missing.status, 404)
})
