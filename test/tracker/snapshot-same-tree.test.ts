/**
 * The full snapshot the tracker takes in slices (tracker/src/snapshot.ts) is
 * the tree rrweb's own snapshot() makes, node for node, each node keeping its
 * id at a checkpoint (ids are compared by order of appearance: a frame's
 * document, serialized when the frame loads, may take its ids between the
 * walk's rather than after them): the tracker's recorder, built over rrweb
 * as the build edits it and cut into slices of 16 nodes (a slice time of 0,
 * every page walked in slices), against the same recorder over
 * rrweb unedited, on a still page that has what the walk must reproduce:
 * masked and blocked elements, a textarea's value, a `<style>` of several
 * texts, head whitespace and slimmed tags, scripts and comments, SVG, custom
 * elements, nested shadow roots, a frame, scrolled elements, all of it past
 * the first slices. The loader stub is pasted in its head, so the walk reads
 * the scroll positions of the elements the stub saw scroll (and those in
 * shadow trees, which it cannot see) and no others. And a fault in
 * the walk leaves nothing stuck.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import t from 'tap'
import { editRrweb } from '../../tracker/tsup.config.js'
import { loaderStub } from '../../src/install/snippet.js'
import { launchBrowser } from '../helpers/browser.js'
import { recorderScript, recordingPage, servePage } from '../helpers/recorder-bundle.js'

const filler = (n: number, from: number) => Array.from({ length: n }, (_, i) => `<div class="f${i % 5}">Filler <i>${from + i}</i></div>`).join('\n')

const PAGE = `<!doctype html>
<html><head>
  <meta charset="utf-8">
  <meta name="robots" content="noindex">
  <meta property="og:title" content="social">
  <title>Same tree</title>
  <link rel="stylesheet" href="/linked.css">
  <style id="split">.a { color: red; }</style>
  <script>window.inHead = 1</script>
  <script data-svc-key="svc_pk_0123456789abcdef" data-svc-src="data:text/javascript,">${loaderStub()}</script>
</head><body>
${filler(150, 0)}
<!-- a comment -->
<section class="svc-mask"><h2>Masked <em>heading</em></h2><p title="masked title">Masked text <b>bold</b></p><input placeholder="masked placeholder" value="masked value"></section>
<div data-svc-mask><span>Data masked</span></div>
<div class="svc-block" style="width: 50px; height: 20px"><p>blocked</p><input value="blocked value"></div>
<form><input id="text" value="hello"><input type="password" value="secret"><input type="checkbox" checked>
<select><option>a</option><option selected>b</option></select><textarea id="area">area text</textarea><textarea></textarea></form>
<svg width="20" height="20"><g><circle cx="10" cy="10" r="5"></circle><text>svg text</text></g></svg>
<x-custom><span>custom</span></x-custom>
<div id="host"></div>
<iframe id="frame" srcdoc="<p id=inner>frame</p>"></iframe>
<div id="scroller" style="height: 60px; overflow: auto"><div style="height: 400px">tall</div></div>
<div id="later" style="height: 60px; overflow: auto"><div style="height: 400px">scrolled between the snapshots</div></div>
<dialog open>dialog</dialog>
${filler(300, 150)}
<script>
  document.getElementById('split').appendChild(document.createTextNode('.b { color: blue; }'))
  customElements.define('x-custom', class extends HTMLElement {})
  const root = document.getElementById('host').attachShadow({ mode: 'open' })
  root.innerHTML = '<span>shadow</span><style>span { color: green }</style><div id="inner-host"></div><div id="shadow-scroller" style="height: 20px; overflow: auto"><p style="height: 90px">s</p></div>'
  root.getElementById('shadow-scroller').scrollTop = 30
  root.getElementById('inner-host').attachShadow({ mode: 'open' }).innerHTML = '<b>nested shadow</b>'
  document.getElementById('area').value = 'typed into the area'
  document.getElementById('scroller').scrollTop = 50
  // Between the two snapshots: its scroll event dispatched (the next frame) before the checkpoint is asked for.
  window.scrollLater = () => new Promise((resolve) => {
    document.getElementById('later').scrollTop = 20
    requestAnimationFrame(() => requestAnimationFrame(resolve))
  })
</script>
</body></html>`

/** The events with every node id replaced by the order it first appears in, across both snapshots. */
function renumbered(events: any[]): any[] {
  const ids = new Map<number, number>()
  return JSON.parse(JSON.stringify(events, (key, value) => (key === 'id' && typeof value === 'number' ? ids.get(value) ?? ids.set(value, ids.size + 1).get(value) : value)))
}

interface Snapshots {
  /** Meta and full snapshot events, without times. */
  events: any[]
  recorder: { snapshotMs: number; sliceMs: number }
  faults: number
  pageErrors: string[]
}

/** Starts recording, then asks for a checkpoint: the two full snapshots and their Meta events. */
async function snapshots(browser: Browser, url: string, script: string): Promise<Snapshots> {
  const { context, page, pageErrors } = await recordingPage(browser, url, script)
  try {
    await page.waitForFunction('recorded.filter((e) => e.type === 2).length === 1')
    await page.evaluate('scrollLater()')
    await page.evaluate('recorder.snapshot()')
    await page.waitForFunction('recorded.filter((e) => e.type === 2).length === 2')
    const events = ((await page.evaluate('recorded')) as any[]).filter((e) => e.type === 4 || e.type === 2).map(({ type, data }) => ({ type, data }))
    return { events, recorder: (await page.evaluate('({ snapshotMs: recorder.snapshotMs, sliceMs: recorder.sliceMs })')) as Snapshots['recorder'], faults: (await page.evaluate('guard.faults')) as number, pageErrors }
  } finally {
    await context.close()
  }
}

// One browser for the file: each case opens its own context.
const browser = await launchBrowser(t)

t.test("the full snapshot taken in slices is rrweb's own, node for node", async (t) => {
  const url = await servePage(t, PAGE)

  const [plain, sliced] = await Promise.all([recorderScript((source) => source, [0, 0]), recorderScript(editRrweb, [0, 0])])
  const reference = await snapshots(browser, url, plain)
  const walked = await snapshots(browser, url, sliced)

  t.same(reference.events.map((e) => e.type), [4, 2, 4, 2], 'rrweb emits Meta and a full snapshot, twice')
  const text = JSON.stringify(reference.events)
  for (const [what, needle] of [['masked text', '"****** "'], ['a placeholder', '"rr_width"'], ['the textarea', 'typed into the area'], ['nested shadow roots', 'nested shadow'], ['the split style', '/* rr_split */'], ['a scrolled element', '"rr_scrollTop":50'], ['one in a shadow root', '"rr_scrollTop":30'], ['one scrolled between the snapshots', '"rr_scrollTop":20']] as const) {
    t.ok(text.includes(needle), `the reference has ${what}`)
  }
  t.ok(walked.recorder.sliceMs < walked.recorder.snapshotMs, `the walk took several slices (${walked.recorder.sliceMs.toFixed(1)} ms at most, ${walked.recorder.snapshotMs.toFixed(1)} ms in all)`)
  t.same(renumbered(walked.events), renumbered(reference.events), 'the same Meta and full snapshot events at the start and at a checkpoint, each node keeping its id at the checkpoint')
  t.same([walked.faults, walked.pageErrors], [0, []], 'no fault, no page error')
})

t.test('a fault in the walk ends it without a snapshot, and holds nothing back: the changes flow and the next snapshot is taken', async (t) => {
  // The build's rrweb asks every element for its attribute names: this one throws when it does.
  const page = `<!doctype html><html><head><title>Fault</title></head><body>${filler(200, 0)}<p id="bad">bad</p>${filler(200, 200)}
<script>document.getElementById('bad').getAttributeNames = () => { throw new Error('boom') }</script></body></html>`
  const server = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  const context = await browser.newContext()
  t.teardown(() => context.close())
  const tab = await context.newPage()
  const pageErrors: string[] = []
  tab.on('pageerror', (error) => pageErrors.push(String(error)))
  await tab.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { waitUntil: 'load' })
  await tab.addScriptTag({ content: await recorderScript(editRrweb, [8, 0]) })
  await tab.evaluate('recorder.start()')
  await tab.waitForFunction('guard.faults > 0')
  await tab.waitForTimeout(200) // a wrong snapshot would come out within this: an absence cannot be polled for
  t.notOk(((await tab.evaluate('recorded')) as any[]).some((e) => e.type === 2), 'no full snapshot')
  await tab.evaluate('document.getElementById("bad").remove(); document.body.appendChild(document.createElement("hr"))')
  await tab.waitForFunction('recorded.some((e) => e.type === 3 && e.data.source === 0)')
  t.pass('the changes made since come out')
  await tab.evaluate('recorder.snapshot()')
  await tab.waitForFunction('recorded.some((e) => e.type === 2)')
  const types = ((await tab.evaluate('recorded')) as any[]).map((e) => e.type)
  t.same(types.slice(types.indexOf(2) - 1, types.indexOf(2) + 1), [4, 2], 'and the next snapshot is taken, Meta first')
  t.same(pageErrors, [], 'no error reached the page')
})

t.test('the stub keeps its set of scrolled elements only when pasted before <body>: pasted later, every position is read', async (t) => {
  const tag = `<script data-svc-key="svc_pk_0123456789abcdef" data-svc-src="data:text/javascript,">${loaderStub()}</script>`
  const context = await browser.newContext()
  t.teardown(() => context.close())
  const page = await context.newPage()
  const kept: Record<string, unknown> = {}
  for (const [where, html] of [['head', `<!doctype html><html><head>${tag}</head><body><p>x</p></body></html>`], ['body', `<!doctype html><html><head></head><body><p>x</p>${tag}</body></html>`]]) {
    await page.goto(await servePage(t, html), { waitUntil: 'load' })
    kept[where] = await page.evaluate('window.svc && window.svc.s instanceof WeakSet')
  }
  t.same(kept, { head: true, body: false })
})
