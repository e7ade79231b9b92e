/**
 * Fidelity: the events the server stored, replayed in rrweb's replayer, look
 * like the page the visitor saw. Both are screenshotted (saved under
 * test/artifacts/) and compared pixel by pixel within a small tolerance.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { PNG } from 'pngjs'
import t from 'tap'
import { ARTIFACTS, flushTracker, openPage, storedChunks, trackerStarted, until } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'

const require = createRequire(import.meta.url)
/** The package exports only its ES entry; the UMD build (one script tag, global `rrwebReplay`) sits beside it. */
const REPLAY_DIR = dirname(require.resolve('@rrweb/replay'))
const VIEWPORT = { width: 800, height: 600 }
/** A pixel differs when a channel differs by more than this (anti-aliasing and subpixel text differ slightly between documents). */
const CHANNEL_TOLERANCE = 48
/** At most this share of pixels may differ. */
const PIXEL_TOLERANCE = 0.01

function compare(a: Buffer, b: Buffer): { differing: number; total: number; diff: PNG } {
  const left = PNG.sync.read(a)
  const right = PNG.sync.read(b)
  if (left.width !== right.width || left.height !== right.height) throw new Error(`sizes differ: ${left.width}x${left.height} vs ${right.width}x${right.height}`)
  const diff = new PNG({ width: left.width, height: left.height })
  let differing = 0
  for (let i = 0; i < left.data.length; i += 4) {
    const off = [0, 1, 2].some((c) => Math.abs(left.data[i + c] - right.data[i + c]) > CHANNEL_TOLERANCE)
    if (off) differing++
    diff.data[i] = off ? 255 : left.data[i] >> 2
    diff.data[i + 1] = off ? 0 : left.data[i + 1] >> 2
    diff.data[i + 2] = off ? 0 : left.data[i + 2] >> 2
    diff.data[i + 3] = 255
  }
  return { differing, total: left.width * left.height, diff }
}

t.test('a replay of the stored events matches the original page', async (t) => {
  const { seeded, store, fixtures, browser } = await recordingHarness(t)
  mkdirSync(ARTIFACTS, { recursive: true })

  // The visitor: moves, types, clicks a button that changes the table.
  const visitor = await openPage(browser, { noIdle: true, viewport: VIEWPORT })
  t.teardown(visitor.close)
  await visitor.page.goto(`${fixtures.url}/replay.html`, { waitUntil: 'load' })
  await visitor.page.mouse.move(400, 300)
  await trackerStarted(visitor.page)
  await visitor.page.locator('#search').pressSequentially('blue shoes')
  await visitor.page.click('#ship')
  await visitor.page.evaluate('document.activeElement && document.activeElement.blur()')
  await visitor.page.mouse.move(0, 0)
  // A fast movement: rrweb keeps one sample per 50 ms and would lose where it ended; the tracker adds the rest.
  await visitor.page.mouse.move(700, 500, { steps: 4 })
  await visitor.page.waitForTimeout(750) // past the tracker's 600 ms of rest, after which it records where the pointer stopped
  const original = await visitor.page.screenshot()
  writeFileSync(join(ARTIFACTS, 'replay-original.png'), original)
  await flushTracker(visitor.page)
  const sk = (await visitor.page.evaluate('window.svc("stats").sk')) as string
  let flushed = Date.now()
  const chunks = await until('the recording, to where the pointer stopped', async () => {
    const found = storedChunks(store, seeded.project.id).filter((c) => c.sk === sk)
    if (found.some((c) => c.text.includes('blue shoes')) && found.some((c) => c.text.includes('"x":700,"y":500'))) return found
    // On a loaded machine the tracker's rest timer can fire after the first flush: its event goes with the next one.
    if (Date.now() - flushed > 1000) {
      flushed = Date.now()
      await flushTracker(visitor.page)
    }
    return false
  })
  const events = chunks.sort((a, b) => a.seq - b.seq).flatMap((c) => c.events)
  t.equal(visitor.pageErrors.length, 0, 'no page errors while recording')

  // The replay: rrweb's replayer in a blank page, moved to the end of the recording.
  const viewer = await openPage(browser, { viewport: VIEWPORT })
  t.teardown(viewer.close)
  await viewer.page.goto(`${fixtures.url}/replay-host.html`)
  await viewer.page.addStyleTag({ path: join(REPLAY_DIR, 'style.css') })
  await viewer.page.addStyleTag({ content: '#root iframe { border: 0; display: block; }' })
  await viewer.page.addScriptTag({ path: join(REPLAY_DIR, 'replay.umd.min.cjs') })
  await viewer.page.evaluate(`(() => {
    const events = ${JSON.stringify(events)}
    const replayer = new rrwebReplay.Replayer(events, { root: document.getElementById('root'), mouseTail: false, showWarning: false, triggerFocus: false })
    replayer.pause(events[events.length - 1].timestamp - events[0].timestamp)
    window.__replayer = replayer
  })()`)
  const frame = viewer.page.locator('#root iframe')
  await frame.waitFor()
  await viewer.page.waitForFunction('(() => { const d = document.querySelector("#root iframe").contentDocument; return d && d.querySelector("#row-1003.done") && d.getElementById("search").value === "blue shoes" })()')
  await viewer.page.waitForTimeout(100)
  const replayed = await frame.screenshot()
  writeFileSync(join(ARTIFACTS, 'replay-replayed.png'), replayed)

  const { differing, total, diff } = compare(original, replayed)
  writeFileSync(join(ARTIFACTS, 'replay-diff.png'), PNG.sync.write(diff))
  t.ok(differing / total <= PIXEL_TOLERANCE, `${differing} of ${total} pixels differ (${((differing / total) * 100).toFixed(3)} %, tolerance ${PIXEL_TOLERANCE * 100} %)`)
  const cursor = await viewer.page.evaluate(`(() => { const m = document.querySelector('.replayer-mouse'); return m && [m.style.left, m.style.top] })()`)
  t.same(cursor, ['700px', '500px'], 'the cursor is where the visitor left it')
  t.equal(viewer.pageErrors.length, 0, 'the replay ran without errors')
})
