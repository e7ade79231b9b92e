/**
 * What canvas capture costs in stored bytes: a page with a 640×320 chart
 * (gridlines, axis labels, a line and its filled area, a bar series, a
 * legend; drawn with 2D calls, one new data point every second, as a live
 * dashboard does) recorded for DURATION_S seconds in Chromium by the real
 * tracker, once per project setting: canvas off, canvas on at 2 frames a
 * second (the default), at 1, and at 2 with quality 0.3 (0.6 by default).
 * Prints, per setting, the bytes the service stored per minute of the
 * recording window (gzip chunks as the tracker sent them, the page's full
 * snapshot included), the frames recorded, their mean size, and the page's
 * main-thread time per minute (Chrome DevTools Protocol
 * Performance.getMetrics `TaskDuration`, all of the page's work, the chart's
 * drawing included).
 *
 * Runs on its own: `npx tsx bench/canvas-cost.ts` after `npm run build`
 * (DURATION_S=20 for a quick look). Figures go to bench/RESULTS.md by hand.
 */
import { createServer } from 'node:http'
import { gunzipSync } from 'node:zlib'
import type { Browser } from 'playwright-core'
import { snippetFor } from '../src/install/snippet.js'
import { DEFAULT_CAPTURE } from '../src/recordings/capture.js'
import type { CaptureSettings } from '../src/store/store.js'
import { startCluster } from '../test/helpers/cluster.js'
import { seedProject, storeAt } from '../test/helpers/seed.js'
import { launchChromium } from '../test/helpers/chromium.js'

const DURATION_S = Number(process.env.DURATION_S ?? 60)

const page = (snippet: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Live sales</title>${snippet}
<style>body { margin: 24px; font: 14px system-ui, sans-serif } .card { border: 1px solid #eaecf0; border-radius: 8px; padding: 16px; width: 640px }</style>
</head><body><h1>Live sales</h1><div class="card"><canvas id="chart" width="640" height="320"></canvas></div>
<script>
  // A seeded walk: every run draws the same series.
  var seed = 7
  function next() { seed = (seed * 16807) % 2147483647; return seed / 2147483647 }
  var line = [], bars = []
  for (var i = 0; i < 30; i++) { line.push(40 + next() * 40); bars.push(10 + next() * 30) }
  function draw() {
    var c = document.getElementById('chart'), x = c.getContext('2d'), w = c.width, h = c.height
    x.clearRect(0, 0, w, h)
    x.font = '12px sans-serif'; x.fillStyle = '#475467'; x.strokeStyle = '#eaecf0'
    for (var g = 0; g <= 5; g++) { var y = 20 + g * (h - 60) / 5; x.beginPath(); x.moveTo(40, y); x.lineTo(w - 10, y); x.stroke(); x.fillText(String(100 - g * 20), 8, y + 4) }
    var step = (w - 60) / (line.length - 1)
    for (var i = 0; i < bars.length; i++) { x.fillStyle = 'rgba(220, 104, 3, 0.5)'; var bh = bars[i] / 100 * (h - 60); x.fillRect(40 + i * step - 5, h - 40 - bh, 10, bh) }
    x.beginPath(); x.moveTo(40, h - 40)
    for (var i = 0; i < line.length; i++) x.lineTo(40 + i * step, h - 40 - line[i] / 100 * (h - 60))
    x.lineTo(40 + (line.length - 1) * step, h - 40); x.closePath(); x.fillStyle = 'rgba(21, 112, 239, 0.15)'; x.fill()
    x.beginPath()
    for (var i = 0; i < line.length; i++) x.lineTo(40 + i * step, h - 40 - line[i] / 100 * (h - 60))
    x.strokeStyle = '#1570ef'; x.lineWidth = 2; x.stroke(); x.lineWidth = 1
    x.fillStyle = '#475467'
    for (var i = 0; i < line.length; i += 5) x.fillText('-' + (line.length - 1 - i) + ' s', 30 + i * step, h - 20)
    x.fillStyle = '#1570ef'; x.fillRect(w - 200, 8, 10, 10); x.fillStyle = '#101828'; x.fillText('Orders ' + line[line.length - 1].toFixed(1), w - 185, 17)
    x.fillStyle = '#dc6803'; x.fillRect(w - 100, 8, 10, 10); x.fillStyle = '#101828'; x.fillText('Refunds', w - 85, 17)
  }
  draw()
  setInterval(function () { line.shift(); line.push(40 + next() * 40); bars.shift(); bars.push(10 + next() * 30); draw() }, 1000)
</script></body></html>`

interface Variant {
  name: string
  capture: Partial<CaptureSettings>
}

const VARIANTS: Variant[] = [
  { name: 'canvas off', capture: {} },
  { name: 'canvas on, 2 fps (default)', capture: { canvas: true, canvasFps: 2 } },
  { name: 'canvas on, 1 fps', capture: { canvas: true, canvasFps: 1 } },
  { name: 'canvas on, 2 fps, quality 0.3', capture: { canvas: true, canvasFps: 2, canvasQuality: 0.3 } },
]

async function recordOnce(browser: Browser, url: string, canvas: boolean): Promise<{ sk: string; taskMs: number }> {
  const context = await browser.newContext({ viewport: { width: 1024, height: 768 } })
  const tab = await context.newPage()
  await tab.goto(url, { waitUntil: 'load' })
  await tab.mouse.move(5, 5)
  await tab.waitForFunction(() => (window as any).svc?.('stats')?.recording === true, undefined, { timeout: 30_000 })
  if (canvas) await tab.waitForFunction(() => typeof (window as any).svc?.x?.stop === 'function', undefined, { timeout: 30_000 })
  const cdp = await context.newCDPSession(tab)
  await cdp.send('Performance.enable')
  const taskTime = async () => ((await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0) * 1000
  const before = await taskTime()
  // The recording's length is the measure: the page draws on its own clock meanwhile.
  await tab.waitForTimeout(DURATION_S * 1000)
  const taskMs = (await taskTime()) - before
  await tab.evaluate('window.svc("flush")')
  const sk = (await tab.evaluate('window.svc("stats").sk')) as string
  await context.close()
  return { sk, taskMs }
}

async function main(): Promise<void> {
  const cluster = await startCluster({ workers: 1 })
  const server = createServer()
  let browser: Browser | undefined
  try {
    const projects: { id: string; publicKey: string }[] = []
    for (const [i, variant] of VARIANTS.entries()) {
      const { project } = await seedProject(cluster.dataDir, `Canvas ${i}`, `canvas${i}@bench.test`)
      projects.push(project)
      const store = storeAt(cluster.dataDir)
      await store.updateProject(project.id, { capture: { ...DEFAULT_CAPTURE, ...variant.capture } })
      store.close()
    }
    server.on('request', (req, res) => {
      const index = Number(new URL(req.url ?? '/', 'http://x').pathname.slice(1)) || 0
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(snippetFor(projects[index].publicKey, cluster.url)))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
    browser = await launchChromium()
    const rows: string[] = []
    for (const [i, variant] of VARIANTS.entries()) {
      const { sk, taskMs } = await recordOnce(browser, `${base}/${i}`, !!variant.capture.canvas)
      const store = storeAt(cluster.dataDir)
      // The last upload lands after the flush: wait until the chunk count stops growing.
      let chunks = store.listChunks(projects[i].id, sk)
      for (let seen = -1; seen !== chunks.length; chunks = store.listChunks(projects[i].id, sk)) {
        seen = chunks.length
        await new Promise((resolve) => setTimeout(resolve, 1000)) // uploads are asynchronous; a second without a new chunk ends the wait
      }
      const bytes = chunks.reduce((sum, c) => sum + c.size, 0)
      // The window the page was recorded for: a page whose DOM never changes has one event, and no span between events.
      const minutes = DURATION_S / 60
      let frames = 0
      let frameChars = 0
      for (const c of chunks) {
        const raw = Buffer.from(store.getChunk(projects[i].id, sk, c.seq)!)
        const text = (c.encoding === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')
        for (const match of text.matchAll(/"tag":"svc\.canvas","payload":\{[^}]*"url":"([^"]*)"/g)) {
          frames++
          frameChars += match[1].length
        }
      }
      store.close()
      const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`
      rows.push(`| ${variant.name} | ${kb(bytes / minutes)} | ${(frames / minutes).toFixed(0)} | ${frames ? kb(frameChars / frames) : '-'} | ${((taskMs / minutes) / 1000).toFixed(2)} s |`)
      process.stderr.write('.')
    }
    process.stderr.write('\n')
    console.log(`Recorded ${DURATION_S} s per setting; chart 640×320, redrawn once a second.\n`)
    console.log('| Setting | Stored per recorded minute | Frames per minute | Mean frame (data URL) | Main-thread task time per minute |')
    console.log('| --- | --- | --- | --- | --- |')
    for (const row of rows) console.log(row)
  } finally {
    await browser?.close()
    server.close()
    await cluster.stop()
  }
}

await main()
