/**
 * The scroll position and the page's height are read as each scroll event is
 * dispatched, while a frame is drawn and before its layout, never in a timer
 * between frames, where the read forced a layout whenever the page had
 * changed since its last frame: rrweb's scroll observer (as the build edits
 * it) keeps the position for its throttled sample, and the page view reads
 * its scroll depth. Each read of the document's scroll position and height is
 * noted, inside a scroll event's dispatch or not, while the page scrolls in
 * bursts faster than the samples.
 */
import type { Page } from 'playwright-core'
import t from 'tap'
import { editRrweb } from '../../tracker/tsup.config.js'
import { launchBrowser } from '../helpers/browser.js'
import { recorderScript, recordingPage, servePage, trackerScript } from '../helpers/recorder-bundle.js'

const PAGE = `<!doctype html><html><head><title>Scroll reads</title></head><body style="margin: 0"><div style="height: 5000px">tall</div></body></html>`

/** Notes each read of the root's scrollTop and scrollHeight: true when made inside a scroll event's dispatch. */
const NOTE_READS = `(() => {
  let dispatching = false
  // A scroll of the page is fired at the document and bubbles: the window's capture listener runs before every
  // other listener, its bubble listener after them all.
  addEventListener('scroll', () => (dispatching = true), true)
  addEventListener('scroll', () => (dispatching = false))
  window.reads = []
  for (const name of ['scrollTop', 'scrollHeight']) {
    const own = Object.getOwnPropertyDescriptor(Element.prototype, name)
    Object.defineProperty(document.documentElement, name, { configurable: true, get() { reads.push(dispatching); return own.get.call(this) } })
  }
})()`

/** Two bursts of scrolling, each a position and, a frame later, another within the sample interval. */
async function scrollInBursts(page: Page, bursts: number[][]): Promise<void> {
  for (const burst of bursts) {
    for (const y of burst) {
      await page.evaluate(`new Promise((resolve) => { scrollTo(0, ${y}); requestAnimationFrame(() => requestAnimationFrame(resolve)) })`)
    }
    await page.waitForTimeout(400) // past both samples' intervals
  }
}

t.test('scroll positions and the scroll depth are read as scroll events are dispatched', async (t) => {
  const url = await servePage(t, PAGE)
  const browser = await launchBrowser(t)

  await t.test("rrweb's scroll observer: the leading and the trailing sample of each burst", async (t) => {
    const { context, page, pageErrors } = await recordingPage(browser, url, await recorderScript(editRrweb))
    t.teardown(() => context.close())
    await page.waitForFunction('recorded.some((e) => e.type === 2)')
    await page.evaluate(NOTE_READS)
    await scrollInBursts(page, [[100, 300], [500, 700]])
    const scrolls = await page.evaluate('recorded.filter((e) => e.type === 3 && e.data.source === 3).map((e) => e.data.y)')
    t.same(scrolls, [100, 300, 500, 700], 'each burst gives its first position and its last')
    const reads = (await page.evaluate('reads')) as boolean[]
    t.ok(reads.length >= 4, `the positions were read (${reads.length} reads)`)
    t.same(reads.filter((inside) => !inside), [], 'every read inside a scroll event, none from the trailing timer')
    t.same([await page.evaluate('guard.faults'), pageErrors], [0, []], 'no fault, no page error')
  })

  await t.test('the page view: the deepest scroll, last position of a burst included', async (t) => {
    const context = await browser.newContext({ viewport: { width: 800, height: 500 } })
    t.teardown(() => context.close())
    const page = await context.newPage()
    await page.goto(url, { waitUntil: 'load' })
    const script = await trackerScript([
      "import { trackViews } from './tracker/src/views.js'",
      'w.ended = []',
      'w.views = trackViews(w.guard, () => performance.now(), (view) => w.ended.push(view))',
      'w.views.begin()',
    ])
    await page.evaluate(NOTE_READS) // first: its capture listener must run before the view's, on the same window
    await page.addScriptTag({ content: script })
    await page.evaluate('reads.splice(0)') // the view's first sample, as it begins
    await scrollInBursts(page, [[1000, 4500]])
    const reads = (await page.evaluate('reads.splice(0)')) as boolean[]
    await page.evaluate('views.end({ exit: true })')
    const [view] = (await page.evaluate('ended')) as { maxScrollPct: number; docH: number }[]
    t.same([view.maxScrollPct, view.docH], [100, 5000], 'the burst ended at the bottom: 100 % of a page of 5,000 px')
    t.ok(reads.length >= 2, `the height was read while scrolling (${reads.length} reads)`)
    t.same(reads.filter((inside) => !inside), [], 'every read inside a scroll event')
    t.equal(await page.evaluate('guard.faults'), 0, 'no fault')
  })
})
