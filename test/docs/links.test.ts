/**
 * Every link in README.md, docs/, the served pages' Markdown and the other
 * guides resolves: a file of the repository (and
 * the heading an anchor names, as a forge renders it), or a page the service
 * itself serves. Links to other sites are not fetched (no network here);
 * they are counted, so a page that grows many can be looked at.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import t from 'tap'
import { ROOT } from '../helpers/cluster.js'
import { PAGES } from '../../src/site/site.js'

/** Served by every server, beside the site's pages (src/front/artifacts.ts, src/control). */
const SERVED = new Set(['/', '/app/', '/openapi.json', '/health', '/metrics', '/release', '/release/cli.mjs', '/tracker.js', '/capture.js', '/cli.mjs', '/install.md', '/skill.md', ...PAGES.map((page) => page.path)])

const markdownIn = (dir: string) => readdirSync(join(ROOT, dir)).filter((name) => name.endsWith('.md')).map((name) => `${dir}/${name}`)
const files = ['README.md', 'tracker/ARCHITECTURE.md', 'dashboard/README.md', 'bench/RESULTS.md', ...markdownIn('docs'), ...markdownIn('src/site/pages'), 'src/public/install.md']

/** A heading's anchor as GitHub renders it: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line)
    if (!heading) continue
    const slug = heading[1].replace(/`/g, '').toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-')
    const n = seen.get(slug) ?? 0
    seen.set(slug, n + 1)
    out.add(n === 0 ? slug : `${slug}-${n}`)
  }
  return out
}

/** Markdown links outside code: `[text](target)`, the target without its title. */
function links(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '')
  return [...prose.matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1])
}

t.test('every link of README.md, docs/ and the served pages resolves', async (t) => {
  let checked = 0
  let external = 0
  for (const file of files) {
    const broken: string[] = []
    for (let target of links(readFileSync(join(ROOT, file), 'utf8'))) {
      // The served pages' placeholder for the server's own address (filled in when served).
      target = target.replace(/^@@SVC_(DIRECT|PUBLIC)_URL@@/, '')
      if (/^(https?:|mailto:)/.test(target)) {
        external++
        continue
      }
      checked++
      if (target.startsWith('/')) {
        if (!SERVED.has(target.split(/[?#]/)[0])) broken.push(`${target} (not a page the service serves)`)
        continue
      }
      const [path, anchor] = target.split('#')
      const resolved = path ? join(dirname(join(ROOT, file)), decodeURIComponent(path)) : join(ROOT, file)
      if (!existsSync(resolved)) {
        broken.push(`${target} (no file ${relative(ROOT, resolved)})`)
        continue
      }
      if (anchor && statSync(resolved).isFile() && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor)) {
        broken.push(`${target} (no heading with that anchor in ${relative(ROOT, resolved)})`)
      }
    }
    t.same(broken, [], `${file}: every link resolves`)
  }
  t.ok(checked > 50, `links checked: ${checked} (and ${external} to other sites, not fetched)`)
})

t.test('every screenshot in docs/images is one a test takes, and every one is shown somewhere', async (t) => {
  const taken = new Set<string>()
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, name.name)
      if (name.isDirectory() && name.name !== 'artifacts' && name.name !== 'fixtures') walk(path)
      else if (name.name.endsWith('.ts')) for (const m of readFileSync(path, 'utf8').matchAll(/shoot\([\w.]+, ['`]([\w-]+)['`]/g)) taken.add(`${m[1]}.png`)
    }
  }
  walk(join(ROOT, 'test'))
  const images = readdirSync(join(ROOT, 'docs', 'images'))
  t.ok(images.length > 0 && taken.size > 20, `${images.length} images, ${taken.size} screenshots taken by the tests`)
  t.same(images.filter((name) => !taken.has(name)), [], 'images no test takes (npm run docs:screenshots could not renew them)')
  const shown = files.map((file) => readFileSync(join(ROOT, file), 'utf8')).join('\n')
  t.same(images.filter((name) => !shown.includes(`images/${name}`)), [], 'images no page shows')
})
