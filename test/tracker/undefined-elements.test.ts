/**
 * A page that hides custom elements until their script defines them
 * (`:not(:defined) { visibility: hidden }`, as several component libraries
 * advise) could replay every component hidden, since a replay runs no
 * script. The recorder marks each element that was a defined custom element
 * (`isCustom`), and rrweb's replayer defines an empty one of that name when
 * it builds a snapshot; but an element added later and applied through its
 * virtual DOM (every seek) stays undefined, and hidden. The dashboard's
 * players define every marked name in the frame first
 * (dashboard/src/player/custom-elements.ts): shown here with the tracker's
 * recorder as the build edits rrweb and rrweb's own replayer, without and
 * with that step.
 */
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import t from 'tap'
import { editRrweb } from '../../tracker/tsup.config.js'
import { launchBrowser } from '../helpers/browser.js'
import { recorderScript, recordingPage, servePage } from '../helpers/recorder-bundle.js'

const require = createRequire(import.meta.url)
const REPLAY_DIR = dirname(require.resolve('@rrweb/replay'))

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
  const browser = await launchBrowser(t)
  const url = await servePage(t, PAGE)
  const { context, page, pageErrors } = await recordingPage(browser, url, await recorderScript(editRrweb))
  t.teardown(() => context.close())
  await page.evaluate(`document.getElementById('late').innerHTML = '<my-late id="added">Added later</my-late>'`)
  await page.waitForFunction('recorded.some((e) => e.type === 3 && e.data.source === 0 && e.data.adds.length)')
  const events = (await page.evaluate('recorded')) as any[]
  t.same(pageErrors, [])

  const helper = (await build({ entryPoints: [fileURLToPath(new URL('../../dashboard/src/player/custom-elements.ts', import.meta.url))], bundle: true, format: 'iife', globalName: 'customElementsStep', write: false })).outputFiles[0].text
  const viewer = await browser.newPage()
  t.teardown(() => viewer.close())
  /** Replays the events to their end (a seek, as the dashboard's players make), with or without the players' step first. */
  const replay = async (defineFirst: boolean) => {
    await viewer.setContent('<div id="root"></div>')
    await viewer.addScriptTag({ path: join(REPLAY_DIR, 'replay.umd.min.cjs') })
    await viewer.addScriptTag({ content: helper })
    await viewer.evaluate(`(() => {
      const events = ${JSON.stringify(events)}
      const replayer = new rrwebReplay.Replayer(events, { root: document.getElementById('root'), showWarning: false })
      if (${defineFirst}) customElementsStep.defineCustomElements(replayer.iframe, events)
      replayer.pause(events[events.length - 1].timestamp - events[0].timestamp + 1)
    })()`)
  }
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
