/**
 * What rrweb's replayer alone leaves wrong, and the dashboard's players mend
 * (each shown with the tracker's recorder as the build edits rrweb and rrweb's
 * own replayer, without and with the players' step).
 *
 * A page that hides custom elements until their script defines them
 * (`:not(:defined) { visibility: hidden }`, as several component libraries
 * advise) could replay every component hidden, since a replay runs no
 * script. The recorder marks each element that was a defined custom element
 * (`isCustom`), and rrweb's replayer defines an empty one of that name when
 * it builds a snapshot; but an element added later and applied through its
 * virtual DOM (every seek) stays undefined, and hidden. The dashboard's
 * players define every marked name in the frame first
 * (dashboard/src/player/custom-elements.ts).
 *
 * A frame of another origin is recorded empty (its address kept as
 * `rr_src`) and replays as a blank box; the players give it a placeholder
 * naming the origin (dashboard/src/player/frames.ts).
 *
 * A paused replay shows no focus: rrweb focuses inside a frame that has not
 * the browser's focus, where `:focus` matches nothing. The players mark the
 * element focused at the moment and mirror the focus rules onto that mark
 * (dashboard/src/player/focus.ts).
 */
import t from 'tap'
import { editRrweb } from '../../tracker/tsup.config.js'
import { launchBrowser } from '../helpers/browser.js'
import { recorderScript, recordingPage, servePage } from '../helpers/recorder-bundle.js'
import { playersStep, replayToEnd } from '../helpers/replay.js'

// One browser for the file's cases: each opens pages of its own.
const browser = await launchBrowser(t)

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>components</title>
<style>
  :not(:defined) { visibility: hidden }
  my-card:defined { display: block; color: rgb(0, 128, 0) }
  my-late:not(:defined) { display: none }
</style>
</head><body>
<my-card id="card">A card</my-card>
<div id="late"></div>
<script>
  customElements.define('my-card', class extends HTMLElement {})
  customElements.define('my-late', class extends HTMLElement {})
</script>
</body></html>`

t.test('custom elements hidden until defined replay visible, styled as defined', async (t) => {
  const url = await servePage(t, PAGE)
  const { context, page, pageErrors } = await recordingPage(browser, url, await recorderScript(editRrweb))
  t.teardown(() => context.close())
  await page.evaluate(`document.getElementById('late').innerHTML = '<my-late id="added">Added later</my-late>'`)
  await page.waitForFunction('recorded.some((e) => e.type === 3 && e.data.source === 0 && e.data.adds.length)')
  const events = (await page.evaluate('recorded')) as any[]
  t.same(pageErrors, [])

  const helper = await playersStep('custom-elements.ts')
  const viewer = await browser.newPage()
  t.teardown(() => viewer.close())
  const replay = (defineFirst: boolean) => replayToEnd<void>(viewer, helper, events, defineFirst ? 'playersStep.defineCustomElements(replayer.iframe, events)' : '')
  const style = (id: string) =>
    viewer.waitForFunction(
      (id) => {
        const e = (document.querySelector('#root iframe') as HTMLIFrameElement | null)?.contentDocument?.getElementById(id)
        return e && [getComputedStyle(e).visibility, getComputedStyle(e).display, getComputedStyle(e).color]
      },
      id,
    ).then((handle) => (handle.jsonValue() as Promise<string[]>))
  await replay(false)
  t.same(await style('card'), ['visible', 'block', 'rgb(0, 128, 0)'], 'rrweb alone: a component of the snapshot is visible, styled by its :defined rule')
  t.same((await style('added')).slice(0, 2), ['hidden', 'none'], 'but one added later is hidden by its :not(:defined) rule')
  await replay(true)
  t.same(await style('card'), ['visible', 'block', 'rgb(0, 128, 0)'], 'with the players\' step: the snapshot\'s component as before')
  t.same((await style('added')).slice(0, 2), ['visible', 'inline'], 'and the one added later visible')
})

t.test('a frame of another origin replays as a placeholder naming it, not a blank box', async (t) => {
  // The payment form on another origin (localhost against 127.0.0.1), in the page as it loads.
  const other = (await servePage(t, '<!doctype html><html><body><form>card number</form></body></html>')).replace('127.0.0.1', 'localhost')
  const url = await servePage(t, `<!doctype html><html><body><h1>Checkout</h1><iframe id="payment" src="${other}"></iframe></body></html>`)
  const { context, page } = await recordingPage(browser, url, await recorderScript(editRrweb))
  t.teardown(() => context.close())
  // One added later: rrweb serialises it while it still holds its first, blank, same-origin document.
  await page.evaluate(`new Promise((resolve) => {
    const frame = document.createElement('iframe')
    frame.id = 'chat'
    frame.src = ${JSON.stringify(other)}
    frame.onload = resolve
    document.body.appendChild(frame)
  })`)
  await page.waitForFunction('recorded.some((e) => e.type === 3 && e.data.source === 0 && e.data.adds.length)')
  const events = (await page.evaluate('recorded')) as any[]
  const viewer = await browser.newPage()
  t.teardown(() => viewer.close())
  const helper = await playersStep('frames.ts')
  const look = `(replayer, resolve) => {
    const textOf = (frame) => (frame.contentDocument && frame.contentDocument.body ? frame.contentDocument.body.textContent : null)
    const look = () => {
      const doc = replayer.iframe.contentDocument
      const payment = doc.getElementById('payment')
      const chat = doc.getElementById('chat')
      if (!payment || !chat) return setTimeout(look, 20)
      // The placeholder's document loads on its own, and without the players' step nothing comes to poll for.
      setTimeout(() => resolve({ text: textOf(payment), added: textOf(chat) }), 200)
    }
    look()
  }`
  const replay = (labelFirst: boolean) =>
    replayToEnd<{ text: string | null; added: string | null }>(viewer, helper, events, labelFirst ? 'playersStep.labelUnrecordedFrames(replayer.iframe, replayer.getMirror(), events)' : '', look)
  const frameNode = JSON.stringify(events.find((e) => e.type === 2).data.node)
  t.match(frameNode, `"rr_src":"${other}"`, 'recorded empty, its address kept')
  const blank = await replay(false)
  t.equal(blank.text ?? '', '', 'rrweb alone replays a blank box')
  const labelled = await replay(true)
  const label = `Frame from ${new URL(other).origin}not recorded (another origin)`
  t.equal(labelled.text, label, 'the players show what was there and why it is not')
  t.equal(labelled.added, label, 'a frame added later too (the build mends rrweb to keep its address)')
})

t.test('a seek onto an animation that had finished shows its end, not its first frame', async (t) => {
  const url = await servePage(
    t,
    `<!doctype html><html><head><style>
      @keyframes show { from { opacity: 0 } to { opacity: 1 } }
      .toast { opacity: 0; animation: show 200ms forwards }
      .spinner { animation: show 1s infinite }
    </style></head><body><h1>Saved?</h1></body></html>`,
  )
  const { context, page } = await recordingPage(browser, url, await recorderScript(editRrweb))
  t.teardown(() => context.close())
  await page.evaluate(`document.body.insertAdjacentHTML('beforeend', '<p class="toast" id="toast">Saved</p><i class="spinner" id="spinner">.</i>')`)
  await page.waitForFunction('getComputedStyle(document.getElementById("toast")).opacity === "1"')
  t.pass('on the page the toast has appeared')
  await page.evaluate(`document.querySelector('h1').textContent = 'Saved'`)
  await page.waitForFunction('recorded.filter((e) => e.type === 3 && e.data.source === 0).length >= 2')
  const events = (await page.evaluate('recorded')) as any[]

  const viewer = await browser.newPage()
  t.teardown(() => viewer.close())
  const helper = await playersStep('animations.ts')
  const look = `(replayer, resolve) => {
    // Past the players' settling, which waits for the next frame; without it there is nothing to poll for.
    setTimeout(() => {
      const doc = replayer.iframe.contentDocument
      resolve({ toast: getComputedStyle(doc.getElementById('toast')).opacity, spinning: doc.getElementById('spinner').getAnimations().some((a) => a.playState !== 'finished') })
    }, 300)
  }`
  const seek = (settle: boolean) => replayToEnd<{ toast: string; spinning: boolean }>(viewer, helper, events, settle ? 'playersStep.settleOnPause(replayer)' : '', look)
  t.equal((await seek(false)).toast, '0', 'rrweb alone: the toast sits at its first frame, invisible')
  const settled = await seek(true)
  t.equal(settled.toast, '1', 'settled on pause: the toast as it was')
  t.equal(settled.spinning, true, 'an animation that never ends is left running')
})

t.test('a pause shows the focus the visitor had: the site\'s :focus rules and the browser\'s ring on the field', async (t) => {
  const url = await servePage(
    t,
    `<!doctype html><html><head><style>
      input:focus { border-color: rgb(255, 0, 0) }
      form:focus-within { background-color: rgb(0, 0, 255) }
      @media screen { #plain:focus-visible { color: rgb(0, 128, 0) } }
    </style></head><body><form><input id="name"> <input id="plain"></form></body></html>`,
  )
  const { context, page } = await recordingPage(browser, url, await recorderScript(editRrweb))
  t.teardown(() => context.close())
  await page.focus('#name')
  await page.keyboard.type('Ada')
  await page.focus('#plain')
  await page.waitForFunction('recorded.filter((e) => e.type === 3 && e.data.source === 2 && e.data.type === 5).length >= 2')
  const events = (await page.evaluate('recorded')) as any[]

  const viewer = await browser.newPage()
  t.teardown(() => viewer.close())
  const helper = await playersStep('focus.ts')
  // As in the dashboard, where the player's own controls have the focus once the visitor's moment is shown.
  const look = `(replayer, resolve) => {
    const control = document.createElement('button')
    document.body.prepend(control)
    control.focus()
    // Past the players' step, which waits for the next frame; without it there is nothing to poll for.
    setTimeout(() => {
      const doc = replayer.iframe.contentDocument
      const style = (id) => getComputedStyle(doc.getElementById(id))
      resolve({ plain: [style('plain').borderTopColor, style('plain').outlineStyle, style('plain').color], name: style('name').borderTopColor, form: getComputedStyle(doc.querySelector('form')).backgroundColor })
    }, 300)
  }`
  const seek = (show: boolean) => replayToEnd<{ plain: string[]; name: string; form: string }>(viewer, helper, events, show ? 'playersStep.showFocusOnPause(replayer, () => events)' : '', look)
  const alone = await seek(false)
  t.not(alone.plain[0], 'rgb(255, 0, 0)', 'rrweb alone, with the focus on the player\'s controls: the field shows no :focus rule')
  const shown = await seek(true)
  t.same(shown.plain, ['rgb(255, 0, 0)', 'auto', 'rgb(0, 128, 0)'], 'with the players\' step: the field focused last has the site\'s :focus and :focus-visible rules (one inside @media) and the browser\'s ring')
  t.not(shown.name, 'rgb(255, 0, 0)', 'the field it left has not')
  t.equal(shown.form, 'rgb(0, 0, 255)', 'and its form matches :focus-within')
})

t.test('a pause shows the focus on a field added after the snapshot (made by rrweb\'s virtual DOM in the player\'s realm)', async (t) => {
  const url = await servePage(t, `<!doctype html><html><head><style>input:focus { border-color: rgb(255, 0, 0) }</style></head><body><div id="box"></div></body></html>`)
  const { context, page } = await recordingPage(browser, url, await recorderScript(editRrweb))
  t.teardown(() => context.close())
  await page.waitForFunction('recorded.some((e) => e.type === 2)')
  await page.evaluate(`(() => { const field = document.createElement('input'); field.id = 'later'; document.getElementById('box').append(field); setTimeout(() => field.focus(), 50) })()`)
  await page.waitForFunction('recorded.some((e) => e.type === 3 && e.data.source === 2 && e.data.type === 5)')
  const events = (await page.evaluate('recorded')) as any[]

  const viewer = await browser.newPage()
  t.teardown(() => viewer.close())
  const helper = await playersStep('focus.ts')
  const look = `(replayer, resolve) => setTimeout(() => resolve(getComputedStyle(replayer.iframe.contentDocument.getElementById('later')).borderTopColor), 300)`
  const border = await replayToEnd<string>(viewer, helper, events, 'playersStep.showFocusOnPause(replayer, () => events)', look)
  t.equal(border, 'rgb(255, 0, 0)', 'the field added and focused after the full snapshot has the site\'s :focus rule')
})

t.test('a field focused before the recording started (autofocus) is said to be focused after each full snapshot, and a pause shows it', async (t) => {
  const url = await servePage(t, `<!doctype html><html><head><style>input:focus { border-color: rgb(255, 0, 0) }</style></head><body><input id="first" autofocus><input id="other"></body></html>`)
  const { context, page } = await recordingPage(browser, url, await recorderScript(editRrweb))
  t.teardown(() => context.close())
  await page.waitForFunction('recorded.some((e) => e.type === 2)')
  await page.evaluate('recorder.snapshot()')
  await page.waitForFunction('recorded.filter((e) => e.type === 2).length === 2')
  const events = (await page.evaluate('recorded')) as any[]
  const focusAfter = events.flatMap((e, i) => (e.type === 2 ? [events[i + 1]] : []))
  t.equal(focusAfter.length, 2, 'two full snapshots')
  t.ok(focusAfter.every((e) => e?.type === 3 && e.data.source === 2 && e.data.type === 5 && e.data.id > 0 && e.timestamp === events[events.indexOf(e) - 1].timestamp), 'each followed by a Focus interaction at its time')
  t.ok(focusAfter.every((e) => e.data.id === focusAfter[0].data.id), 'on the same field')

  const viewer = await browser.newPage()
  t.teardown(() => viewer.close())
  const helper = await playersStep('focus.ts')
  const look = `(replayer, resolve) => setTimeout(() => resolve(getComputedStyle(replayer.iframe.contentDocument.getElementById('first')).borderTopColor), 300)`
  const border = await replayToEnd<string>(viewer, helper, events, 'playersStep.showFocusOnPause(replayer, () => events)', look)
  t.equal(border, 'rgb(255, 0, 0)', 'the autofocused field has the site\'s :focus rule in the paused replay')
})
