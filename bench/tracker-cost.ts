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
 * pair. Also the sizes of tracker.js, stub.js and capture.js.
 *
 * The full snapshot in slices (issue 33), with Chrome's trace of every task on
 * the page's main thread (the `toplevel` category), not only the long ones:
 * - a page of 10,000 elements: the longest task and the tasks over 50 ms while
 *   the tracker starts and while it takes a checkpoint (a new full snapshot,
 *   asked for by a client-side route as at a new page view; rrweb's timed
 *   checkpoint and the byte bound take the same path), without the tracker,
 *   with it unsliced (the same tracker.js, the page's MessageChannel made to
 *   deliver at once, so that the walk never yields: one task, as rrweb's own
 *   snapshot) and with it sliced, interleaved;
 * - a real single-page application (Swagger UI from swagger-ui-dist, driven by
 *   the seeded visitor of bench/storage-apps-visitors.ts, the same moves with
 *   and without the tracker, A B A B): the main-thread time the tracker adds,
 *   in percent, and the longest task. Writes bench/tracker-results.md.
 *
 * Runs on its own (not in `npm test`): `npm run bench:tracker`; `RUNS=2
 * OUT=- npm run bench:tracker` is a smoke run that prints and writes nothing.
 */
import { writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { snippetFor } from '../src/install/snippet.js'
import { DEFAULT_CAPTURE } from '../src/recordings/capture.js'
import { DIST, ROOT, startCluster } from '../test/helpers/cluster.js'
import { seedProject, storeAt } from '../test/helpers/seed.js'
import { measure } from '../tracker/report-sizes.js'
import { servePages, swagger, visitFor } from './storage-apps-visitors.js'
import { launchChromium } from '../test/helpers/chromium.js'

const RUNS = Number(process.env.RUNS || 7)
/** Where the report goes; `-` prints it only (a smoke run must not overwrite the figures). */
const OUT = process.env.OUT || join(ROOT, 'bench', 'tracker-results.md')
const ROWS = 1250 // 1,250 rows of tr + 3 td = 5,000 elements (plus the text nodes)
const LARGE_ROWS = 2497 // and 2,497 rows with the page's own 12 elements: 10,000
const WINDOW_MS = 3000
/** After the route that asks for the checkpoint. */
const CHECKPOINT_WINDOW_MS = 2000
/** Pairs of Swagger UI visits (without, with the tracker), each this long. */
const SPA_RUNS = Number(process.env.SPA_RUNS || 5)
const SPA_MS = 20_000

function pageHtml(snippet: string, rows = ROWS): string {
  const html: string[] = []
  for (let i = 0; i < rows; i++) html.push(`<tr><td>Row ${i}</td><td class="c${i % 7}">Item ${(i * 7919) % 10007}</td><td>${(i * 1.37).toFixed(2)}</td></tr>`)
  return `<!doctype html><html><head><meta charset="utf-8"><title>${((rows * 4 + 12) / 1000).toFixed(0)},000 elements</title>${snippet}<style>td{padding:2px 6px;border:1px solid #ccc}.c3{color:#a00}</style></head><body><table id="t"><tbody>${html.join('')}</tbody></table></body></html>`
}

/** The "unsliced" variant: a MessageChannel that delivers at once, so that the tracker's walk runs to its end in the task that starts it. */
const UNSLICED = `window.MessageChannel = function () { const port1 = {}; this.port1 = port1; this.port2 = { postMessage: () => port1.onmessage && port1.onmessage({}) } }`

/** Tasks on the page's main thread between two `performance.mark`s, from Chrome's trace: their durations in ms. */
function tasksBetween(trace: Buffer, from: string, to: string): number[] {
  const events = (JSON.parse(trace.toString('utf8')) as { traceEvents: any[] }).traceEvents
  const mark = (name: string) => events.find((e) => e.name === name && String(e.cat).includes('user_timing'))
  const [start, end] = [mark(from), mark(to)]
  if (!start || !end) throw new Error(`marks ${from} and ${to} not in the trace`)
  return events.filter((e) => e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && e.pid === start.pid && e.tid === start.tid && e.ts >= start.ts && e.ts < end.ts).map((e) => e.dur / 1000)
}

interface Tasks {
  longest: number
  over50: number
  /** All the tasks' time. */
  ms: number
}
const summary = (durations: number[]): Tasks => ({ longest: Math.max(0, ...durations), over50: durations.filter((d) => d > 50).length, ms: durations.reduce((a, d) => a + d, 0) })
const TRACE = { categories: ['toplevel', 'blink.user_timing'] }
const mark = (page: Page, name: string) => page.evaluate(`performance.mark(${JSON.stringify(name)})`)

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

interface LargeRun {
  snapshotMs: number
  start: Tasks
  checkpoint: Tasks
}

/** The page of 10,000 elements: the tracker starts (first move), then takes a checkpoint (a route). */
async function largeOnce(browser: Browser, url: string, variant: 'bare' | 'unsliced' | 'sliced'): Promise<LargeRun> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  const page = await context.newPage()
  await page.addInitScript(`window.requestIdleCallback = function () { return 0 }; ${variant === 'unsliced' ? UNSLICED : ''}`)
  await page.goto(url, { waitUntil: 'load' })
  await page.waitForTimeout(300)
  await browser.startTracing(page, TRACE)
  await mark(page, 'svc-move')
  await page.mouse.move(200, 200)
  if (variant !== 'bare') await page.waitForFunction('window.svc && window.svc.v && window.svc("stats").snapshotMs >= 0')
  await page.waitForTimeout(WINDOW_MS)
  await mark(page, 'svc-checkpoint')
  await page.evaluate('history.pushState({}, "", location.pathname + "?view=2")')
  await page.waitForTimeout(CHECKPOINT_WINDOW_MS)
  await mark(page, 'svc-end')
  const trace = await browser.stopTracing()
  const snapshotMs = variant === 'bare' ? 0 : ((await page.evaluate('window.svc("stats").snapshotMs')) as number)
  await context.close()
  return { snapshotMs, start: summary(tasksBetween(trace, 'svc-move', 'svc-checkpoint')), checkpoint: summary(tasksBetween(trace, 'svc-checkpoint', 'svc-end')) }
}

/** One seeded Swagger UI visit of SPA_MS from its first move (which loads the tracker when there is one): main-thread time (CDP TaskDuration) and tasks. */
async function spaOnce(browser: Browser, url: string, seed: number): Promise<Tasks & { taskMs: number }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  const page = await context.newPage()
  await page.addInitScript('window.requestIdleCallback = function () { return 0 }')
  const cdp = await context.newCDPSession(page)
  await cdp.send('Performance.enable')
  await page.goto(url, { waitUntil: 'load' })
  await swagger.ready(page)
  await page.waitForTimeout(1000)
  const taskDuration = async () => ((await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0) * 1000
  await browser.startTracing(page, TRACE)
  await mark(page, 'svc-visit')
  const before = await taskDuration()
  const visitor = visitFor(page, seed)
  await visitor.moveTo(300, 200)
  const end = Date.now() + SPA_MS
  while (Date.now() < end) {
    await swagger.act(visitor).catch(() => undefined) // an action that found nothing to do is no failure of the bench
    await visitor.pause()
  }
  const taskMs = (await taskDuration()) - before
  await mark(page, 'svc-visited')
  const tasks = summary(tasksBetween(await browser.stopTracing(), 'svc-visit', 'svc-visited'))
  await context.close()
  return { ...tasks, taskMs }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[sorted.length >> 1]
}
const ms = (n: number) => `${n.toFixed(1)} ms`

function largeReport(large: Record<'bare' | 'unsliced' | 'sliced', LargeRun[]>): string[] {
  const variants = ['bare', 'unsliced', 'sliced'] as const
  const row = (label: string, pick: (r: LargeRun) => number, unit: (n: number) => string = ms) => `| ${label} | ${variants.map((v) => unit(median(large[v].map(pick)))).join(' | ')} |`
  const count = (n: number) => n.toFixed(0)
  const every = (v: (typeof variants)[number], pick: (r: LargeRun) => Tasks) => large[v].map((r) => pick(r).longest.toFixed(0)).join(', ')
  return [
    '## The full snapshot in slices, on a page of 10,000 elements (issue 33)',
    '',
    `The page: a table of ${LARGE_ROWS} rows (10,000 elements). Each run loads the page, waits 300 ms, moves the mouse (the tracker loads, starts and takes its full snapshot) and watches ${WINDOW_MS / 1000} s; then a client-side route asks for a new full snapshot (a checkpoint) and it watches ${CHECKPOINT_WINDOW_MS / 1000} s more. Every task on the page's main thread is timed from Chrome's trace. "Unsliced" is the same tracker.js with the page's MessageChannel delivering at once, so that its walk never yields (one task, as rrweb's own snapshot); "sliced" is the tracker as shipped (slices of about 8 ms). ${RUNS} runs of each, interleaved, medians.`,
    '',
    '| Figure (median) | Without tracker | Unsliced | Sliced |',
    '| --- | ---: | ---: | ---: |',
    row('Full snapshot, main-thread time (all slices)', (r) => r.snapshotMs),
    row('Start: longest task', (r) => r.start.longest),
    row('Start: tasks over 50 ms', (r) => r.start.over50, count),
    row('Start: main-thread task time', (r) => r.start.ms),
    row('Checkpoint: longest task', (r) => r.checkpoint.longest),
    row('Checkpoint: tasks over 50 ms', (r) => r.checkpoint.over50, count),
    row('Checkpoint: main-thread task time', (r) => r.checkpoint.ms),
    '',
    `Every run, longest task at the start / at the checkpoint (ms): without ${every('bare', (r) => r.start)} / ${every('bare', (r) => r.checkpoint)}; unsliced ${every('unsliced', (r) => r.start)} / ${every('unsliced', (r) => r.checkpoint)}; sliced ${every('sliced', (r) => r.start)} / ${every('sliced', (r) => r.checkpoint)}.`,
    '',
  ]
}

function spaReport(spa: Record<'bare' | 'tracked', (Tasks & { taskMs: number })[]>): string[] {
  const [bare, tracked] = [spa.bare, spa.tracked].map((runs) => median(runs.map((r) => r.taskMs)))
  const pairs = spa.tracked.map((r, i) => (r.taskMs - spa.bare[i].taskMs) / spa.bare[i].taskMs)
  const pct = (n: number) => `${(n * 100).toFixed(1)} %`
  const row = (label: string, pick: (r: Tasks & { taskMs: number }) => number, unit: (n: number) => string = ms) => `| ${label} | ${unit(median(spa.bare.map(pick)))} | ${unit(median(spa.tracked.map(pick)))} |`
  return [
    '## A real single-page application: Swagger UI',
    '',
    `${swagger.what}. Each visit loads the page, waits until it has rendered and 1 s more, then the seeded visitor of bench/storage-apps-visitors.ts moves (which loads the tracker) and acts at human pace (expanding operations, trying them out, typing, scrolling) for ${SPA_MS / 1000} s; the same seed with and without the tracker, ${SPA_RUNS} pairs, A B A B, medians.`,
    '',
    '| Figure (median) | Without tracker | With tracker |',
    '| --- | ---: | ---: |',
    row('Main-thread task time in the visit (CDP TaskDuration)', (r) => r.taskMs),
    row('Longest task', (r) => r.longest),
    row('Tasks over 50 ms', (r) => r.over50, (n) => n.toFixed(0)),
    '',
    `Main-thread time the tracker adds: ${pct((tracked - bare) / bare)} of the medians; ${pct(median(pairs))} as the median of the pairs (${pairs.map(pct).join(', ')}). The target: under 5 %.`,
    '',
  ]
}

async function main(): Promise<void> {
  const cluster = await startCluster({ workers: 1 })
  const server = createServer()
  let browser: Browser | undefined
  try {
    const { project } = await seedProject(cluster.dataDir, 'Bench', 'bench@bench.test')
    const { project: capturing } = await seedProject(cluster.dataDir, 'Bench capture', 'capture@bench.test')
    const store = storeAt(cluster.dataDir)
    await store.updateProject(capturing.id, { capture: { ...DEFAULT_CAPTURE, console: true, network: true } })
    store.close()
    const snippet = snippetFor(project.publicKey, cluster.url)
    const pages: Record<string, string> = {
      '/tracked': pageHtml(snippet),
      '/captured': pageHtml(snippetFor(capturing.publicKey, cluster.url)),
      '/bare': pageHtml(''),
      '/large/tracked': pageHtml(snippet, LARGE_ROWS),
      '/large/bare': pageHtml('', LARGE_ROWS),
      '/swagger/tracked': swagger.html(snippet),
      '/swagger/bare': swagger.html(''),
    }
    const spec = await (await fetch(`${cluster.url}/openapi.json`)).text()
    server.on('request', (req, res) => servePages(pages, spec, new URL(req.url ?? '/', 'http://x').pathname, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
    browser = await launchChromium()
    const variants = ['bare', 'tracked', 'captured'] as const
    const runs: Record<(typeof variants)[number], Run[]> = { bare: [], tracked: [], captured: [] }
    for (const variant of variants) await once(browser, `${base}/${variant}`, variant !== 'bare') // warm-up: caches, JIT
    for (let i = 0; i < RUNS; i++) {
      // A B C, A B C, …: one run of each variant in turn, so that the machine's drift and noise hit all alike.
      for (const variant of variants) runs[variant].push(await once(browser, `${base}/${variant}`, variant !== 'bare'))
      process.stderr.write('.')
    }
    process.stderr.write('\n')
    // The page of 10,000 elements: without the tracker, unsliced, sliced, interleaved.
    const largeVariants = ['bare', 'unsliced', 'sliced'] as const
    const large: Record<(typeof largeVariants)[number], LargeRun[]> = { bare: [], unsliced: [], sliced: [] }
    const largeUrl = (v: string) => `${base}/large/${v === 'bare' ? 'bare' : 'tracked'}`
    for (const variant of largeVariants) await largeOnce(browser, largeUrl(variant), variant)
    for (let i = 0; i < RUNS; i++) {
      for (const variant of largeVariants) large[variant].push(await largeOnce(browser, largeUrl(variant), variant))
      process.stderr.write('.')
    }
    process.stderr.write('\n')
    // Swagger UI: the same seeded visit without and with the tracker, A B A B.
    const spa: Record<'bare' | 'tracked', Awaited<ReturnType<typeof spaOnce>>[]> = { bare: [], tracked: [] }
    await spaOnce(browser, `${base}/swagger/bare`, 1) // warm-up
    for (let i = 0; i < SPA_RUNS; i++) {
      for (const variant of ['bare', 'tracked'] as const) spa[variant].push(await spaOnce(browser, `${base}/swagger/${variant}`, 33 + i))
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
      ...largeReport(large),
      ...spaReport(spa),
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
