/**
 * What the tracker's recording costs a real single-page application, by
 * attribution rather than by difference (issue 33): Chromium's CPU profiler
 * runs through seeded Swagger UI visits (bench/storage-apps-visitors.ts), the
 * same seeds with and without the tracker, interleaved, and each variant's
 * main-thread time is split by script. The tracker's share is what runs in
 * tracker.js (Blink work it calls, forced layouts included, is sampled under
 * its frames), the browser APIs it calls itself (Blob, fetch), and the garbage
 * collector's time beyond the visit without it. A third variant serves the
 * stylesheet `no-store`, so that the tracker cannot read it from the cache
 * (styles.ts) and takes rrweb's text of it, as it did before; with
 * `--base=FILE` the third variant is instead another build of tracker.js (an
 * earlier commit's), served from a second address that passes the rest on to
 * the service, so a change is measured against its own base in one run.
 * Comparing totals instead
 * (bench/tracker-cost.ts) carries the page's own run-to-run spread: what a
 * click finds depends on timing. `npm run bench:tracker-profile -- [--visits=N] [--base=FILE] [--save=DIR]`;
 * prints a markdown table.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, request, type Server } from 'node:http'
import type { Browser } from 'playwright-core'
import { snippetFor } from '../src/install/snippet.js'
import { startCluster } from '../test/helpers/cluster.js'
import { seedProject } from '../test/helpers/seed.js'
import { servePages, swagger, visitFor } from './storage-apps-visitors.js'
import { launchChromium } from '../test/helpers/chromium.js'

const VISITS = Number(process.argv.find((a) => a.startsWith('--visits='))?.slice(9) ?? 3)
/** --functions: also list tracker.js's functions by self time (build it unminified for names: SVC_TRACKER_UNMINIFIED=1). */
const FUNCTIONS = process.argv.includes('--functions')
/** --base=FILE: the third variant runs this tracker.js instead of the stylesheet `no-store` one. */
const BASE = process.argv.find((a) => a.startsWith('--base='))?.slice(7)
/** --save=DIR: also writes each tracked visit's CPU profile there (DIR/tracked-SEED.cpuprofile, the third variant's DIR/third-SEED.cpuprofile), for a closer look. */
const SAVE = process.argv.find((a) => a.startsWith('--save='))?.slice(7)
const VISIT_MS = 20_000
/** Browser APIs the tracker calls itself: their samples are its time (the page without it calls them far less). */
const TRACKER_APIS = new Set(['Blob', 'fetch'])

type Split = Map<string, number>

async function visit(browser: Browser, url: string, seed: number): Promise<Split> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  try {
    const page = await context.newPage()
    await page.addInitScript('window.requestIdleCallback = function () { return 0 }')
    const cdp = await context.newCDPSession(page)
    await page.goto(url, { waitUntil: 'load' })
    await swagger.ready(page)
    await page.waitForTimeout(1000)
    await cdp.send('Profiler.enable')
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 })
    await cdp.send('Profiler.start')
    const visitor = visitFor(page, seed)
    await visitor.moveTo(300, 200) // loads the tracker where there is one
    const end = Date.now() + VISIT_MS
    while (Date.now() < end) {
      await swagger.act(visitor).catch(() => undefined) // an action that found nothing to do is no failure of the bench
      await visitor.pause()
    }
    const { profile } = (await cdp.send('Profiler.stop')) as { profile: { nodes: { id: number; callFrame: { url: string; functionName: string } }[]; samples: number[]; timeDeltas: number[] } }
    if (SAVE && !url.endsWith('/bare')) writeFileSync(`${SAVE}/${url.endsWith('/tracked') ? 'tracked' : 'third'}-${seed}.cpuprofile`, JSON.stringify(profile))
    const byNode = new Map<number, number>()
    profile.samples.forEach((id, i) => byNode.set(id, (byNode.get(id) ?? 0) + profile.timeDeltas[i] / 1000))
    const split: Split = new Map()
    for (const node of profile.nodes) {
      const name = node.callFrame.url.replace(/^.*\//, '') || node.callFrame.functionName || '(native)'
      split.set(name, (split.get(name) ?? 0) + (byNode.get(node.id) ?? 0))
      if (FUNCTIONS && name === 'tracker.js') {
        const fn = `tracker.js ${node.callFrame.functionName || '(anonymous)'}:${(node.callFrame as { lineNumber?: number }).lineNumber ?? 0}`
        split.set(fn, (split.get(fn) ?? 0) + (byNode.get(node.id) ?? 0))
      }
    }
    return split
  } finally {
    await context.close()
  }
}

/** Serves `tracker` as /tracker.js and passes every other request on to `target`, as it came. */
async function trackerServer(tracker: Buffer, target: string): Promise<Server> {
  const proxy = createServer((req, res) => {
    if (req.url === '/tracker.js') return void res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(tracker)
    const upstream = request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on('error', () => res.writeHead(502).end())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  return proxy
}

if (SAVE) mkdirSync(SAVE, { recursive: true })
const cluster = await startCluster({ workers: 1 })
const server = createServer()
let baseServer: Server | undefined
let browser: Browser | undefined
try {
  const { project } = await seedProject(cluster.dataDir, 'Profile', 'profile@bench.test')
  const spec = await (await fetch(`${cluster.url}/openapi.json`)).text()
  const tracked = swagger.html(snippetFor(project.publicKey, cluster.url))
  let third = tracked.replace('swagger-ui.css"', 'swagger-ui.css?no-store"')
  if (BASE) {
    baseServer = await trackerServer(readFileSync(BASE), cluster.url)
    third = swagger.html(snippetFor(project.publicKey, `http://127.0.0.1:${(baseServer.address() as { port: number }).port}`))
  }
  const thirdName = BASE ? 'base build' : 'stylesheet `no-store`'
  const pages: Record<string, string> = { '/swagger/tracked': tracked, '/swagger/bare': swagger.html(''), '/swagger/uncached': third }
  server.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.search === '?no-store') res.setHeader('cache-control', 'no-store')
    servePages(pages, spec, url.pathname, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  browser = await launchChromium()
  await visit(browser, `${base}/swagger/bare`, 1) // warm-up
  const sums = { bare: new Map() as Split, tracked: new Map() as Split, uncached: new Map() as Split }
  for (let i = 0; i < VISITS; i++) {
    for (const variant of ['bare', 'tracked', 'uncached'] as const) {
      for (const [name, ms] of await visit(browser, `${base}/swagger/${variant}`, 33 + i)) sums[variant].set(name, (sums[variant].get(name) ?? 0) + ms / VISITS)
    }
    process.stderr.write('.')
  }
  process.stderr.write('\n')
  const busy = (split: Split) => [...split].filter(([name]) => name !== '(idle)' && !name.startsWith('tracker.js ')).reduce((sum, [, ms]) => sum + ms, 0)
  const get = (split: Split, name: string) => split.get(name) ?? 0
  /** A tracked variant's share: tracker.js, the APIs it calls and the garbage collection, each beyond the visit without it. */
  const shareOf = (split: Split) => {
    const apis = [...TRACKER_APIS].reduce((sum, name) => sum + get(split, name) - get(sums.bare, name), 0)
    const gc = get(split, '(garbage collector)') - get(sums.bare, '(garbage collector)')
    return { apis, gc, total: get(split, 'tracker.js') + apis + gc }
  }
  const { apis, gc, total: tracker } = shareOf(sums.tracked)
  const uncached = shareOf(sums.uncached).total
  const ms = (n: number) => `${n.toFixed(1)} ms`
  const pct = (n: number) => `${((n / busy(sums.bare)) * 100).toFixed(1)} %`
  const rows = ['(program)', 'swagger-ui-bundle.js', 'tracker.js', '(garbage collector)', ...TRACKER_APIS]
  process.stdout.write(
    [
      `Swagger UI, ${VISITS} seeded visits of ${VISIT_MS / 1000} s per variant (seeds 33 to ${32 + VISITS}), interleaved; CPU profile sampled every 0.2 ms; per visit, averaged:`,
      '',
      `| Main-thread time by script | Without tracker | With tracker | With tracker, ${thirdName} |`,
      '| --- | ---: | ---: | ---: |',
      ...rows.map((name) => `| ${name} | ${ms(get(sums.bare, name))} | ${ms(get(sums.tracked, name))} | ${ms(get(sums.uncached, name))} |`),
      `| All but idle | ${ms(busy(sums.bare))} | ${ms(busy(sums.tracked))} | ${ms(busy(sums.uncached))} |`,
      `| The tracker's share | | **${ms(tracker)}, ${pct(tracker)}** | ${ms(uncached)}, ${pct(uncached)} |`,
      '',
      ...(FUNCTIONS
        ? [
            '| tracker.js function (self time) | ms per visit |',
            '| --- | ---: |',
            ...[...sums.tracked]
              .filter(([name]) => name.startsWith('tracker.js '))
              .sort((a, b) => b[1] - a[1])
              .slice(0, 30)
              .map(([name, ms]) => `| ${name.slice(11)} | ${ms.toFixed(1)} |`),
            '',
          ]
        : []),
      `The tracker's share: tracker.js ${ms(get(sums.tracked, 'tracker.js'))}, the browser APIs it calls ${ms(apis)}, garbage collection beyond the visit without it ${ms(gc)}: ${ms(tracker)}, ${pct(tracker)} of the page's main-thread time without it (${pct(uncached)} with the ${thirdName}). The totals differ by ${(((busy(sums.tracked) - busy(sums.bare)) / busy(sums.bare)) * 100).toFixed(1)} %.`,
      '',
    ].join('\n'),
  )
} finally {
  await browser?.close()
  server.close()
  baseServer?.close()
  await cluster.stop()
}
