/**
 * The build edits rrweb's record bundle (tracker/tsup.config.ts, editRrweb) to
 * cut what the tracker's record options never reach. This holds the edits to
 * that: the tracker's recorder built with and without them, on the same page
 * with the same actions, records the same events. Mouse-move samples are left
 * out of the comparison: which positions a sample holds depends on timing, and
 * differs between two runs of the same build.
 */
import type { Browser } from 'playwright-core'
import t from 'tap'
import { editRrweb } from '../../tracker/tsup.config.js'
import { launchBrowser } from '../helpers/browser.js'
import { recorderScript, recordingPage, servePage } from '../helpers/recorder-bundle.js'

/** Every kind of content and change the tracker's options leave recorded, and some they leave out (canvas pixels, inlined images, fonts). */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>rrweb edits</title>
<link rel="stylesheet" href="/linked.css">
<style id="split">.a { color: red; }</style>
</head><body>
<h1 class="svc-mask">Masked heading</h1>
<div data-svc-mask><p id="deep">Masked by <i>selector</i></p></div>
<x-element data-a="1" aria-label="custom">custom</x-element>
<svg width="10" height="10"><defs><rect id="r" width="5" height="5"/></defs><use href="#r" xlink:href="#r"/></svg>
<p id="plain">Plain text <b>bold</b></p>
<input id="text" value="hello"><input id="password" type="password" value="secret">
<input id="check" type="checkbox"><input type="radio" name="r" id="r1"><input type="radio" name="r" id="r2">
<select id="select"><option>a</option><option>b</option></select>
<textarea id="area">area</textarea>
<div class="svc-block" style="width: 50px; height: 20px">blocked</div>
<div data-svc-ignore><input id="ignored" value="ignored"></div>
<canvas id="canvas" width="50" height="50"></canvas>
<img id="image" src="data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'/>">
<video id="video" muted></video>
<dialog id="dialog">dialog</dialog>
<div id="scroller" style="height: 60px; overflow: auto"><div style="height: 400px">tall</div></div>
<div id="host"></div>
<iframe id="frame" srcdoc="<p id=inner>frame</p><style>p { color: blue }</style>"></iframe>
<div style="height: 2000px">tall page</div>
<script>
  document.getElementById('split').appendChild(document.createTextNode('.b { color: blue; }'))
  document.getElementById('canvas').getContext('2d').fillRect(0, 0, 20, 20)
  document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML = '<span>shadow</span><style>span { color: green }</style>'
</script>
</body></html>`

const CHANGES = `(() => {
  const masked = document.createElement('p'); masked.className = 'svc-mask'; masked.textContent = 'added masked'; document.body.appendChild(masked)
  document.querySelector('b').textContent = 'changed'
  document.querySelector('#deep i').textContent = 'changed under the selector'
  const under = document.createElement('span'); under.textContent = 'added under the selector'; document.getElementById('deep').appendChild(under)
  document.querySelector('h1').setAttribute('title', 'a title')
  document.getElementById('plain').style.setProperty('color', 'purple')
  const linked = document.styleSheets[0]
  linked.insertRule('.y { color: red }', 0)
  linked.cssRules[0].style.setProperty('color', 'navy')
  const adopted = new CSSStyleSheet(); adopted.replaceSync('h1 { font-size: 30px }'); document.adoptedStyleSheets = [adopted]
  customElements.define('x-element', class extends HTMLElement {})
  document.fonts.add(new FontFace('Edited', 'url(data:font/woff2;base64,AA==)'))
  const dialog = document.getElementById('dialog'); dialog.showModal(); dialog.close()
  document.getElementById('host').shadowRoot.querySelector('span').textContent = 'shadow 2'
  document.getElementById('frame').contentDocument.getElementById('inner').textContent = 'frame 2'
  document.getElementById('canvas').getContext('2d').fillRect(20, 20, 10, 10)
  const image = document.createElement('img'); image.src = document.getElementById('image').src; document.body.appendChild(image)
  const range = document.createRange(); range.selectNodeContents(document.getElementById('plain')); getSelection().removeAllRanges(); getSelection().addRange(range)
  const video = document.getElementById('video'); video.dispatchEvent(new Event('play')); video.dispatchEvent(new Event('volumechange'))
})()`

interface Recording {
  events: any[]
  pageErrors: string[]
  faults: number
}

async function record(browser: Browser, url: string, script: string): Promise<Recording> {
  const { context, page, pageErrors } = await recordingPage(browser, url, script)
  try {
    await page.mouse.move(100, 100)
    await page.click('#text')
    await page.keyboard.type('abc')
    await page.click('#password')
    await page.keyboard.type('xyz')
    await page.check('#check')
    await page.check('#r2')
    await page.selectOption('#select', 'b')
    await page.fill('#area', 'new area')
    await page.fill('#ignored', 'still ignored')
    await page.evaluate(CHANGES)
    // rrweb throttles on the page's real clock (scroll 150 ms, resize 200 ms): each pause outlasts the throttle of the
    // step before, so both builds record every step as its own event, in the same order.
    await page.waitForTimeout(200)
    await page.evaluate('document.getElementById("scroller").scrollTop = 100')
    await page.waitForTimeout(200) // past the scroll throttle: the wheel's scroll is not merged into this one
    await page.mouse.wheel(0, 300)
    await page.waitForTimeout(300) // past the scroll throttle, and the wheel's scrolling over
    await page.setViewportSize({ width: 700, height: 500 })
    await page.waitForTimeout(400) // past the 200 ms resize throttle
    await page.evaluate('recorder.snapshot()') // a checkpoint
    await page.waitForTimeout(300) // any throttled event still due comes out before the recording is read
    return { events: (await page.evaluate('recorded')) as any[], pageErrors, faults: (await page.evaluate('guard.faults')) as number }
  } finally {
    await context.close()
  }
}

/** What must match: every event but the mouse-move samples, without times. */
const comparable = (events: any[]) =>
  JSON.parse(JSON.stringify(events.filter((e) => !(e.type === 3 && e.data.source === 1)), (key, value) => (key === 'timestamp' || key === 'timeOffset' ? undefined : value)))

t.test("rrweb with the build's edits records what rrweb without them records", async (t) => {
  const url = await servePage(t, PAGE)
  const browser = await launchBrowser(t)

  const [plain, edited] = await Promise.all([recorderScript((source) => source), recorderScript(editRrweb)])
  t.ok(edited.length < plain.length - 20_000, `the edits cut ${plain.length - edited.length} bytes of unminified recorder`)
  const reference = await record(browser, url, plain)
  const trimmed = await record(browser, url, edited)

  // The page must exercise what the edits sit next to, or the comparison proves little.
  const sources = new Set(reference.events.filter((e) => e.type === 3).map((e) => e.data.source))
  for (const [source, what] of [[0, 'mutations'], [2, 'clicks'], [3, 'scrolls'], [4, 'resize'], [5, 'inputs'], [7, 'media'], [8, 'style sheet rules'], [13, 'style declarations'], [14, 'selection'], [15, 'adopted style sheets'], [16, 'custom elements']] as const) {
    t.ok(sources.has(source), `the reference recording has ${what}`)
  }
  const mutations = JSON.stringify(reference.events.filter((e) => e.type === 3 && e.data.source === 0))
  t.ok(mutations.includes('"isAttachIframe":true') && mutations.includes('frame 2'), 'and the iframe, attached and changed')
  t.ok(mutations.includes('shadow 2'), 'and the shadow root, changed')
  t.equal(reference.events.filter((e) => e.type === 2).length, 2, 'and two full snapshots')
  const all = JSON.stringify(reference.events)
  t.ok(all.includes('"isCustom":true'), 'and a defined custom element in the checkpoint')
  t.ok(all.includes('xlink:href') && !/Masked by|under the selector/.test(all), 'and a namespaced attribute, and text masked by a selector on an ancestor')

  t.same(comparable(trimmed.events), comparable(reference.events), 'the same events, but mouse-move samples and times')
  t.same([trimmed.pageErrors, trimmed.faults], [[], 0], 'no page error, no fault with the edits')
  t.same([reference.pageErrors, reference.faults], [[], 0], 'nor without them')
})
