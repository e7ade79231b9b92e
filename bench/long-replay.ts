/**
 * Long sessions in the dashboard's replay (`npm run bench:replay`): a
 * recording of 4 hours and one of 10 minutes, at the rate this project
 * measures on real applications (about 1 MB of event JSON a recorded minute:
 * a full snapshot of a page of 1,000 table rows at every checkpoint, a block
 * of the page re-rendered every 2 s, mouse moves and scrolls), sent through
 * the real ingest path gzip-compressed as the tracker sends it, then opened
 * in the dashboard in Chromium:
 * - time to the first frame (navigation to the recorded page's heading in the player);
 * - time to seek to 10 random points (the change of the position control to the
 *   heading showing that moment);
 * - the page's JavaScript heap (CDP Runtime.getHeapUsage) sampled through the run: its peak;
 * - the bytes the dashboard fetched from the API (encoded, as on the wire).
 * The 10-minute recording plays whole (fetched at once), the 4-hour one streams.
 * Writes a section of bench/RESULTS.md between its markers; `OUT=-` prints only.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { ROOT, startCluster } from '../test/helpers/cluster.js'
import { ownerSession } from '../test/helpers/dashboard.js'
import { clockText, postLongRecording, type LongRecording } from '../test/helpers/long-recording.js'
import { launchChromium } from '../test/helpers/chromium.js'

const OUT = process.env.OUT || join(ROOT, 'bench', 'RESULTS.md')
const HOURS = Number(process.env.HOURS || 4)
const SEEKS = 10
const SHAPE = { checkpointMinutes: 5, chunkSeconds: 10, stepSeconds: 2, rows: 1000, blockBytes: 30_000, gzip: true }

interface Figures {
  label: string
  minutes: number
  jsonMB: number
  storedMB: number
  ingestS: number
  firstFrameMs: number
  seeksMs: number[]
  peakHeapMB: number
  fetchedMB: number
}

/** A deterministic sequence of seek targets, so that runs are comparable. */
function seekTargets(durationMs: number): number[] {
  let x = 12345
  return Array.from({ length: SEEKS }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31
    // On a step (every 2 s) plus 1 s, so the heading there is known exactly.
    return Math.floor(((x / 2 ** 31) * (durationMs - 10_000)) / 2000) * 2000 + 1000
  })
}

async function measure(page: Page, url: string, recording: LongRecording): Promise<Omit<Figures, 'label' | 'minutes' | 'jsonMB' | 'storedMB' | 'ingestS'>> {
  const cdp = await page.context().newCDPSession(page)
  let fetched = 0
  cdp.on('Network.loadingFinished', (e) => void (fetched += e.encodedDataLength))
  await cdp.send('Network.enable')
  let peakHeap = 0
  const sample = async () => {
    const heap = await cdp.send('Runtime.getHeapUsage').catch(() => undefined)
    if (heap) peakHeap = Math.max(peakHeap, heap.usedSize)
  }
  const sampler = setInterval(() => void sample(), 250)
  const heading = page.frameLocator('.player-target iframe').locator('#title')
  const began = Date.now()
  await page.goto(url)
  await heading.waitFor({ timeout: 120_000 })
  const firstFrameMs = Date.now() - began
  const seeksMs: number[] = []
  const streamed = (await page.getByTestId('stream-controls').count()) > 0
  for (const target of seekTargets(recording.end - recording.start)) {
    const expected = clockText(target - 1000)
    const at = Date.now()
    if (streamed) {
      await page.getByLabel('Position in the recording').evaluate((input: HTMLInputElement, value) => {
        input.value = String(value)
        input.dispatchEvent(new Event('change', { bubbles: true }))
      }, target)
    } else {
      // rrweb-player's own timeline: a click at the target's share of its width.
      const bar = await page.locator('.rr-progress').boundingBox()
      await page.mouse.click(bar!.x + (bar!.width * target) / (recording.end - recording.start), bar!.y + bar!.height / 2)
    }
    await page.waitForFunction(
      (text) => {
        const frame = document.querySelector<HTMLIFrameElement>('.player-target iframe')
        const title = frame?.contentDocument?.getElementById('title')?.textContent ?? ''
        return streamedOrNear(title, text)
        function streamedOrNear(shown: string, want: string) {
          const s = (v: string) => {
            const m = /At (\d+):(\d\d)/.exec(v)
            return m ? Number(m[1]) * 60 + Number(m[2]) : -1
          }
          return Math.abs(s(shown) - s(want)) <= 4
        }
      },
      expected,
      { timeout: 60_000, polling: 20 },
    )
    seeksMs.push(Date.now() - at)
    await sample()
  }
  clearInterval(sampler)
  await sample()
  return { firstFrameMs, seeksMs, peakHeapMB: peakHeap / 2 ** 20, fetchedMB: fetched / 2 ** 20 }
}

async function run(): Promise<Figures[]> {
  const cluster = await startCluster({ workers: 1 })
  const browser = await launchChromium()
  try {
    const session = await ownerSession(cluster.url)
    const headers = { cookie: `svc_session=${session}`, 'content-type': 'application/json' }
    const csrf = (await (await fetch(`${cluster.url}/api/v1/auth/state`, { headers })).json()).csrfToken
    const created = await fetch(`${cluster.url}/api/v1/cli/projects.create`, { method: 'POST', headers: { ...headers, 'x-csrf-token': csrf }, body: JSON.stringify({ name: 'Long sessions' }) })
    const { project } = await created.json()
    const figures: Figures[] = []
    for (const [label, minutes] of [['10 minutes', 10], [`${HOURS} hours`, HOURS * 60]] as const) {
      const began = Date.now()
      process.stdout.write(`recording ${label}: `)
      const recording = await postLongRecording(cluster.url, project.publicKey, `long-${minutes}`, { minutes, ...SHAPE })
      const ingestS = (Date.now() - began) / 1000
      console.log(`${recording.chunks} chunks, ${(recording.jsonBytes / 2 ** 20).toFixed(0)} MB of events, ${(recording.storedBytes / 2 ** 20).toFixed(1)} MB sent, in ${ingestS.toFixed(0)} s`)
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
      await context.addCookies([{ name: 'svc_session', value: session, url: cluster.url }])
      const page = await context.newPage()
      const measured = await measure(page, `${cluster.url}/app/#/p/${project.id}/replay/${recording.sk}`, recording)
      await context.close()
      figures.push({ label, minutes, jsonMB: recording.jsonBytes / 2 ** 20, storedMB: recording.storedBytes / 2 ** 20, ingestS, ...measured })
      console.log(`  first frame ${measured.firstFrameMs} ms, seeks ${measured.seeksMs.join(', ')} ms, heap peak ${measured.peakHeapMB.toFixed(0)} MB, fetched ${measured.fetchedMB.toFixed(1)} MB`)
    }
    return figures
  } finally {
    await browser.close()
    await cluster.stop()
  }
}

function report(figures: Figures[]): string {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const rows = figures.map(
    (f) =>
      `| ${f.label} | ${f.jsonMB.toFixed(0)} MB | ${f.storedMB.toFixed(1)} MB | ${f.firstFrameMs} ms | ${median(f.seeksMs)} ms | ${Math.max(...f.seeksMs)} ms | ${f.peakHeapMB.toFixed(0)} MB | ${f.fetchedMB.toFixed(1)} MB |`,
  )
  return [
    '<!-- bench:replay -->',
    '## Long sessions in the replay (`npm run bench:replay`)',
    '',
    `Measured by \`bench/long-replay.ts\` on ${new Date().toISOString().slice(0, 10)}: headless Chromium on this 2-core machine (load average ${loadavg()[0].toFixed(1)} at the end), the service on embedded LMDB. Each recording: a full snapshot of a page of 1,000 table rows every 5 minutes, a block of about 30 KB of text re-rendered every 2 s, mouse moves and scrolls, in chunks of 10 s sent gzip through /ingest. The 10-minute one plays whole as before; the long one streams part by part (a part is the 5 minutes from one checkpoint to the next). Seeks: ${SEEKS} fixed random points, from the change of the position to the recorded heading showing that moment. Heap: the dashboard page's JavaScript heap (CDP), its peak over the run. Fetched: every byte the dashboard page received (its own scripts included), as sent; sessions.events answers uncompressed JSON.`,
    '',
    '| Recording | Event JSON | Sent (gzip) | First frame | Seek, median | Seek, slowest | Heap, peak | Fetched |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    'Targets (issue 33): 4 hours, first frame under 2 s, any seek under 1 s, heap under 300 MB.',
    '',
    `Every seek, ms: ${figures.map((f) => `${f.label}: ${f.seeksMs.join(', ')}`).join('; ')}.`,
    '<!-- /bench:replay -->',
  ].join('\n')
}

const section = report(await run())
if (OUT === '-') console.log(section)
else {
  const text = readFileSync(OUT, 'utf8')
  const at = text.indexOf('<!-- bench:replay -->')
  const end = text.indexOf('<!-- /bench:replay -->')
  writeFileSync(OUT, at === -1 ? `${text.trimEnd()}\n\n${section}\n` : text.slice(0, at) + section + text.slice(end + '<!-- /bench:replay -->'.length))
  console.log(`wrote ${OUT}`)
}
process.exit(0)
