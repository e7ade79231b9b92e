/**
 * Main-thread cost of the tracker in Chromium, on
 * a page of 5,000 elements, beside the same page without the tracker:
 * - the initial full snapshot's time (measured by the tracker around rrweb's
 *   serialization, read back with `svc("stats")`);
 * - long tasks (PerformanceObserver "longtask", ≥ 50 ms) and their blocking
 *   time (the part of each over 50 ms), from the first interaction to 3 s after;
 * - main-thread task time in that window (Chrome DevTools Protocol
 *   Performance.getMetrics `TaskDuration`).
 * Three variants, interleaved run by run (A B C, A B C, …, so that drift and
 * noise of the machine hit all three alike): no tracker, the tracker as most
 * projects run it, and the tracker of a project with console and network
 * capture on (which also loads capture.js). Medians of each, and the ratio of
 * capture on to the plain tracker in main-thread task time (the issue's
 * budget: at most 1.10), both of the medians and the median of each run's
 * pair. Also the sizes of tracker.js, stub.js and capture.js. Writes
 * bench/tracker-results.md.
 *
 * Runs on its own (not in `npm test`): `npm run bench:tracker`; `RUNS=2
 * OUT=- npm run bench:tracker` is a smoke run that prints and writes nothing.
 */
import { writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { snippetFor } from '../src/install/snippet.js'
import { DIST, ROOT, startCluster } from '../test/helpers/cluster.js'
import { seedProject, storeAt } from '../test/helpers/seed.js'
import { measure } from '../tracker/report-sizes.js'

const RUNS = Number(process.env.RUNS || 7)
/** Where the report goes; `-` prints it only (a smoke run must not overwrite the figures). */
const OUT = process.env.OUT || join(ROOT, 'bench', 'tracker-results.md')
const ROWS = 1250 // 1,250 rows of tr + 3 td = 5,000 elements (plus the text nodes)
const WINDOW_MS = 3000

function pageHtml(snippet: string): string {
  const rows: string[] = []
  for (let i = 0; i < ROWS; i++) rows.push(`<tr><td>Row ${i}</td><td class="c${i % 7}">Item ${(i * 7919) % 10007}</td><td>${(i * 1.37).toFixed(2)}</td></tr>`)
  return `<!doctype html><html><head><meta charset="utf-8"><title>5,000 elements</title>${snippet}<style>td{padding:2px 6px;border:1px solid #ccc}.c3{color:#a00}</style></head><body><table id="t"><tbody>${rows.join('')}</tbody></table></body></html>`
}

interface Run {
  elements: number
  nodes: number
  snapshotMs: number
  longTasks: number
  longTaskMs: number
  blockingMs: number
  taskMs: number
}

async function once(browser: Browser, url: string, tracked: boolean): Promise<Run> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  const page = await context.newPage()
  // Only an interaction may load the tracker in this measurement: no idle loading.
  await page.addInitScript(`window.requestIdleCallback = function () { return 0 };
    window.__long = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push([e.startTime, e.duration]) }).observe({ type: 'longtask', buffered: true })`)
  const cdp = await context.newCDPSession(page)
  await cdp.send('Performance.enable')
  await page.goto(url, { waitUntil: 'load' })
  await page.waitForTimeout(300)
  const taskDuration = async () => ((await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0) * 1000
  const before = await taskDuration()
  const start = (await page.evaluate('performance.now()')) as number
  await page.mouse.move(200, 200)
  if (tracked) await page.waitForFunction('window.svc && window.svc.v && window.svc("stats").started === true')
  await page.waitForTimeout(WINDOW_MS)
  const taskMs = (await taskDuration()) - before
  const result = (await page.evaluate(`(() => {
    const long = window.__long.filter(([s]) => s >= ${start})
    return {
      elements: document.getElementsByTagName('*').length,
      nodes: document.createTreeWalker(document, NodeFilter.SHOW_ALL).nextNode() ? (() => { let n = 0; const w = document.createTreeWalker(document, NodeFilter.SHOW_ALL); while (w.nextNode()) n++; return n })() : 0,
      snapshotMs: window.svc && window.svc.v ? window.svc('stats').snapshotMs : 0,
      longTasks: long.length,
      longTaskMs: long.reduce((a, [, d]) => a + d, 0),
      blockingMs: long.reduce((a, [, d]) => a + Math.max(0, d - 50), 0),
    }
  })()`)) as Omit<Run, 'taskMs'>
  await context.close()
  return { ...result, taskMs }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[sorted.length >> 1]
}
const ms = (n: number) => `${n.toFixed(1)} ms`

async function main(): Promise<void> {
  const cluster = await startCluster({ workers: 1 })
  const server = createServer()
  let browser: Browser | undefined
  try {
    const { project } = await seedProject(cluster.dataDir, 'Bench', 'bench@bench.test')
    const { project: capturing } = await seedProject(cluster.dataDir, 'Bench capture', 'capture@bench.test')
    const store = storeAt(cluster.dataDir)
    await store.updateProject(capturing.id, { capture: { sampleRate: 1, minDurationMs: 0, triggerUrls: [], excludeUrls: [], console: true, network: true, networkQuery: false } })
    store.close()
    const pages: Record<string, string> = {
      '/tracked': pageHtml(snippetFor(project.publicKey, cluster.url)),
      '/captured': pageHtml(snippetFor(capturing.publicKey, cluster.url)),
      '/bare': pageHtml(''),
    }
    server.on('request', (req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(pages[req.url ?? ''] ?? pages['/bare']))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    })
    const variants = ['bare', 'tracked', 'captured'] as const
    const runs: Record<(typeof variants)[number], Run[]> = { bare: [], tracked: [], captured: [] }
    for (const variant of variants) await once(browser, `${base}/${variant}`, variant !== 'bare') // warm-up: caches, JIT
    for (let i = 0; i < RUNS; i++) {
      // A B C, A B C, …: one run of each variant in turn, so that the machine's drift and noise hit all alike.
      for (const variant of variants) runs[variant].push(await once(browser, `${base}/${variant}`, variant !== 'bare'))
      process.stderr.write('.')
    }
    process.stderr.write('\n')
    // Capture on against the plain tracker, in main-thread task time: of the medians, and the median of each run's pair.
    const ratioOfMedians = median(runs.captured.map((r) => r.taskMs)) / median(runs.tracked.map((r) => r.taskMs))
    const pairRatios = runs.captured.map((r, i) => r.taskMs / runs.tracked[i].taskMs)
    const ratioOfPairs = median(pairRatios)
    const addedRatio = (median(runs.captured.map((r) => r.taskMs)) - median(runs.bare.map((r) => r.taskMs))) / (median(runs.tracked.map((r) => r.taskMs)) - median(runs.bare.map((r) => r.taskMs)))
    const row = (label: string, pick: (r: Run) => number, unit = ms) => {
      const [bare, tracked, captured] = [runs.bare, runs.tracked, runs.captured].map((r) => median(r.map(pick)))
      return `| ${label} | ${unit(bare)} | ${unit(tracked)} | ${unit(tracked - bare)} | ${unit(captured)} | ${unit(captured - bare)} |`
    }
    const count = (n: number) => n.toFixed(0)
    const sizes = ['tracker.js', 'stub.js', 'capture.js'].map((file) => measure(join(DIST, 'public', file)))
    const budget: Record<string, string> = { 'tracker.js': '≤ 30 KB gzip', 'stub.js': '< 1 KB raw', 'capture.js': '≤ 6 KB gzip, loaded on demand' }
    const first = runs.tracked[0]
    const report = [
      '# Tracker: size and main-thread cost',
      '',
      `Measured by \`bench/tracker-cost.ts\` (\`npm run bench:tracker\`) on ${new Date().toISOString().slice(0, 10)}: headless Chromium (${browser.version()}), ${RUNS} runs each, interleaved (A B C, A B C, …), medians; this machine has ${(await import('node:os')).cpus().length} cores.`,
      '',
      '## Size',
      '',
      '| File | Raw | gzip -9 | brotli -11 | Budget |',
      '| --- | ---: | ---: | ---: | --- |',
      ...sizes.map((s) => `| ${s.file} | ${s.raw} B | ${s.gzip} B (${(s.gzip / 1024).toFixed(1)} KB) | ${s.brotli} B (${(s.brotli / 1024).toFixed(1)} KB) | ${budget[s.file]} |`),
      '',
      '## Main-thread cost on a page of 5,000 elements',
      '',
      `The page: a table of ${ROWS} rows (${first.elements} elements, ${first.nodes} nodes in all). Each run loads the page, waits 300 ms, moves the mouse (which makes the stub load tracker.js, which then takes the full snapshot) and watches the next ${WINDOW_MS / 1000} s. "Without" is the same page without the snippet and the same mouse move; "capture on" is the tracker of a project with console and network capture on (tracker.js then loads capture.js).`,
      '',
      '| Figure (median) | Without tracker | With tracker | Added | Capture on | Added |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      row('Initial full snapshot (rrweb serialization)', (r) => r.snapshotMs),
      row('Long tasks (≥ 50 ms), count', (r) => r.longTasks, count),
      row('Long-task time', (r) => r.longTaskMs),
      row('Blocking time (long-task time over 50 ms each)', (r) => r.blockingMs),
      row('Main-thread task time in the window (CDP TaskDuration)', (r) => r.taskMs),
      '',
      `Capture on against the plain tracker, main-thread task time: ${ratioOfMedians.toFixed(3)} × (ratio of the medians), ${ratioOfPairs.toFixed(3)} × (median of the ${RUNS} runs' ratios, each capture-on run against the plain-tracker run just before it: ${pairRatios.map((r) => r.toFixed(2)).join(', ')}); of the time the tracker adds to the page, ${addedRatio.toFixed(2)} ×. The budget: at most 1.10 ×.`,
      '',
      `Every run, with tracker: snapshot ${runs.tracked.map((r) => r.snapshotMs.toFixed(1)).join(', ')} ms; long tasks ${runs.tracked.map((r) => `${r.longTasks} (${r.longTaskMs.toFixed(0)} ms)`).join(', ')}; task time ${runs.tracked.map((r) => r.taskMs.toFixed(0)).join(', ')} ms.`,
      '',
      `Every run, capture on: snapshot ${runs.captured.map((r) => r.snapshotMs.toFixed(1)).join(', ')} ms; long tasks ${runs.captured.map((r) => `${r.longTasks} (${r.longTaskMs.toFixed(0)} ms)`).join(', ')}; task time ${runs.captured.map((r) => r.taskMs.toFixed(0)).join(', ')} ms.`,
      '',
      'What the figures include: the tracker\'s whole start on this page (parsing and running tracker.js, the snapshot, gzip of the first chunk through CompressionStream, which runs off the main thread, and its upload to the service on loopback). What they leave out: the 10 s flushes later on, and slower devices; a mid-range phone is several times slower than this machine, so read the snapshot time as a lower bound there. The spread between runs ("Every run") comes from this 2-core machine being shared with other work while measuring; the medians are the figures to quote.',
      '',
    ].join('\n')
    if (OUT !== '-') writeFileSync(OUT, report)
    console.log(report)
  } finally {
    await browser?.close()
    server.close()
    await cluster.stop()
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
