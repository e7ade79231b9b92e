/**
 * Canvas capture, end to end in Chromium: a project's `canvas` setting is off
 * by default (capture.js is not even fetched, no frame recorded) and refuses
 * a rate or quality out of bounds; turned on, a chart drawn with 2D calls
 * that changes four times is recorded as one frame per change (an unchanged
 * chart sends none), and the dashboard's player (dashboard/src/player/player.ts,
 * built as the dashboard builds it) shows the chart as it was at each moment,
 * seeking back and forth; a canvas inside a masked or a blocked element is
 * never captured; a WebGL canvas is captured when it keeps its drawing buffer.
 *
 * Threshold: a pixel of the canvas region differs when one of its channels
 * differs by more than 48 (the WebP encoding's ringing at the bars' edges
 * stays under it), and at most 5% of the region's pixels may differ.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import type { Page } from 'playwright-core'
import { PNG } from 'pngjs'
import t from 'tap'
import { call } from '../helpers/api.js'
import { ARTIFACTS, flushTracker, storedChunks, until } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'

const CHANNEL_TOLERANCE = 48
const PIXEL_TOLERANCE = 0.05
const STATES = 4

/** Share of pixels that differ between two screenshots of one size, and a picture of where. */
function difference(a: Buffer, b: Buffer): { share: number; diff: PNG } {
  const left = PNG.sync.read(a)
  const right = PNG.sync.read(b)
  if (left.width !== right.width || left.height !== right.height) return { share: 1, diff: left }
  const diff = new PNG({ width: left.width, height: left.height })
  let differing = 0
  for (let i = 0; i < left.data.length; i += 4) {
    const off = [0, 1, 2].some((c) => Math.abs(left.data[i + c] - right.data[i + c]) > CHANNEL_TOLERANCE)
    if (off) differing++
    diff.data.set(off ? [255, 0, 0, 255] : [left.data[i] >> 2, left.data[i + 1] >> 2, left.data[i + 2] >> 2, 255], i)
  }
  return { share: differing / (left.width * left.height), diff }
}

/** The dashboard's player module as one script, exposing `mountPlayer` on `svcPlayer`. */
async function playerScript(): Promise<string> {
  const entry = fileURLToPath(new URL('../../dashboard/src/player/player.ts', import.meta.url))
  return (await build({ entryPoints: [entry], bundle: true, format: 'iife', globalName: 'svcPlayer', loader: { '.css': 'text' }, write: false })).outputFiles[0].text
}

const isFrame = (e: any) => e.type === 5 && e.data?.tag === 'svc.canvas'

t.test('canvas capture', async (t) => {
  const { cluster, seeded, projectId, store, browser, record } = await recordingHarness(t)
  const player = playerScript()
  const setCapture = (capture: Record<string, unknown>) => call(cluster.url, '/cli/projects.capture', { token: seeded.apiKey, body: { projectId, capture } })
  const eventsOf = (sk: string) => storedChunks(store, projectId).filter((c) => c.sk === sk).flatMap((c) => c.events)
  const idOf = (page: Page, selector: string) => page.evaluate((s) => (window as any).svc.x.id(document.querySelector(s)), selector) as Promise<number>

  await t.test('the API refuses a frame rate or a quality out of bounds', async (t) => {
    for (const capture of [{ canvasFps: 0 }, { canvasFps: 11 }, { canvasFps: '2' }, { canvasQuality: 1.5 }, { canvasQuality: -0.1 }, { canvas: 'on' }]) {
      const answer = await setCapture(capture)
      t.equal(answer.status, 400, JSON.stringify(capture))
      t.equal(answer.body.code, 'invalid_request')
    }
    const listed = await call(cluster.url, '/cli/projects.list', { token: seeded.apiKey })
    t.match(listed.body.projects[0].capture, { canvas: false, canvasFps: 2, canvasQuality: 0.6 }, 'the defaults, unchanged')
  })

  await t.test('off by default: capture.js is not loaded and no frame is recorded', async (t) => {
    const { tab, page, sk } = await record(t, '/canvas.html')
    await page.evaluate('window.draw(0)')
    await flushTracker(page)
    await until('the recording', () => eventsOf(sk).some((e) => e.type === 2))
    t.notOk(tab.requests.some((r) => r.url().includes('/capture.js')), 'capture.js never requested')
    t.same(eventsOf(sk).filter(isFrame), [], 'no canvas frame')
  })

  await t.test('on: the chart replays as it was at each moment; masked and blocked canvases never leave the page', async (t) => {
    t.equal((await setCapture({ canvas: true })).status, 200)
    const { tab, page, sk } = await record(t, '/canvas.html')
    // Every frame capture.js emits, as it emits it: what the test waits for instead of sleeping.
    await page.waitForFunction(() => typeof (window as any).svc?.x?.stop === 'function', undefined, { timeout: 30_000 })
    await page.evaluate(`(() => {
      const host = window.svc.x
      const emit = host.emit
      window.emitted = []
      host.emit = function (event) {
        if (event.data && event.data.tag === 'svc.canvas') window.emitted.push({ id: event.data.payload.id, ts: event.timestamp })
        return emit.apply(this, arguments)
      }
    })()`)
    const chart = await idOf(page, '#chart')
    const masked = await idOf(page, '#masked')
    t.ok(chart > 0 && masked > 0, 'the chart and the masked canvas are in the recording (as elements)')
    t.equal(await idOf(page, '#blocked'), -1, 'the blocked one is not')

    const originals: Buffer[] = []
    const drawnAt: number[] = []
    const frameAt: number[] = []
    let gl = { kept: false, lost: false }
    for (let k = 0; k < STATES; k++) {
      // The time is taken in the same task as the drawing, on a fresh millisecond: a frame sampled before it has an
      // earlier time, one sampled after it shows state k. (Taken in a later call, a sample in between was missed.)
      const drawn = (await page.evaluate(`(() => {
        const before = Date.now()
        while (Date.now() === before);
        const at = Date.now()
        return { at, gl: window.draw(${k}) }
      })()`)) as { at: number; gl: typeof gl }
      gl = drawn.gl
      drawnAt.push(drawn.at)
      originals.push(await page.locator('#chart').screenshot())
      const frame = await until(`the frame of state ${k}`, () =>
        page.evaluate(([id, since]) => (window as any).emitted.find((f: { id: number; ts: number }) => f.id === id && f.ts >= since), [chart, drawnAt[k]] as const),
      )
      frameAt.push(frame.ts)
    }
    // Two more sample periods (2 fps) in which the unchanged chart must send nothing.
    await page.waitForTimeout(1100)
    const emitted = (await page.evaluate('window.emitted')) as { id: number; ts: number }[]
    t.equal(emitted.filter((f) => f.id === chart).length, STATES, 'one frame per change of the chart, none while it stays the same')

    await flushTracker(page)
    const events = await until('the frames stored', () => {
      const all = eventsOf(sk)
      return all.filter((e) => isFrame(e) && e.data.payload.id === chart).length >= STATES ? all : false
    })
    const frames = events.filter(isFrame)
    const ids = new Set(frames.map((e) => e.data.payload.id))
    t.notOk(ids.has(masked), 'no frame of the canvas inside a masked element')
    const glKept = await idOf(page, '#gl-kept')
    const glLost = await idOf(page, '#gl-lost')
    if (gl.kept) t.ok(ids.has(glKept), 'a WebGL canvas with preserveDrawingBuffer is captured')
    else t.comment('no WebGL in this Chromium: its cases are not checked')
    t.notOk(ids.has(glLost), 'a WebGL canvas without it reads blank between frames: nothing sent')
    t.same([...ids].filter((id) => id !== chart && id !== glKept), [], 'and no other canvas (the blocked one has no id to send)')
    const first = frames.find((e) => e.data.payload.id === chart)
    t.match(first.data.payload, { w: 480, h: 240, url: /^data:image\/webp;base64,/ }, 'a WebP frame, with the canvas size')
    t.equal(tab.pageErrors.length, 0, 'no page errors')

    // The dashboard's player, at the recorded viewport's size (scale 1), seeking to a moment of each state, back and forth.
    const meta = events.find((e) => e.type === 4)
    const viewer = await browser.newContext({ viewport: { width: meta.data.width + 40, height: meta.data.height + 140 } })
    t.teardown(() => viewer.close())
    const view = await viewer.newPage()
    const problems: string[] = []
    view.on('pageerror', (error) => problems.push(String(error)))
    await view.setContent('<div id="root"></div>')
    await view.addScriptTag({ content: await player })
    await view.evaluate(
      ([events, width, height]) => {
        ;(window as any).handle = (window as any).svcPlayer.mountPlayer(document.getElementById('root'), events, [], { width, height }, [])
      },
      [events, meta.data.width, meta.data.height] as const,
    )
    const start = Math.min(...events.filter((e) => !isFrame(e)).map((e) => e.timestamp))
    const replayed = view.frameLocator('.rr-player iframe').locator('#chart')
    await replayed.waitFor()
    mkdirSync(ARTIFACTS, { recursive: true })
    for (const k of [3, 1, 2, 0]) {
      // Between the frame of state k and the next drawing: the player must show state k there.
      const moment = k + 1 < STATES ? (frameAt[k] + drawnAt[k + 1]) / 2 : frameAt[k] + 300
      await view.evaluate((offset) => (window as any).handle.goto(offset), moment - start)
      let result = { share: 1, diff: new PNG() }
      let shot: Buffer = Buffer.alloc(0)
      // Poll: the frame is decoded and drawn on the player's next animation frame.
      for (let attempt = 0; attempt < 40 && result.share > PIXEL_TOLERANCE; attempt++) {
        await view.waitForTimeout(50)
        shot = await replayed.screenshot()
        result = difference(originals[k], shot)
      }
      writeFileSync(join(ARTIFACTS, `canvas-state-${k}-original.png`), originals[k])
      writeFileSync(join(ARTIFACTS, `canvas-state-${k}-replayed.png`), shot)
      writeFileSync(join(ARTIFACTS, `canvas-state-${k}-diff.png`), PNG.sync.write(result.diff))
      t.ok(result.share <= PIXEL_TOLERANCE, `state ${k}: ${(result.share * 100).toFixed(2)}% of the canvas region differs (at most ${PIXEL_TOLERANCE * 100}%)`)
    }
    t.same(problems, [], 'the player ran without errors')
  })
})
