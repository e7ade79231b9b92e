/**
 * Same-origin iframes and shadow roots are recorded, and so are the changes
 * made inside them afterwards. The build cuts rrweb's cross-origin iframe code
 * from tracker.js (tracker/tsup.config.ts); the same-origin path it keeps is
 * this one.
 */
import t from 'tap'
import { flushTracker, openPage, storedChunks, trackerStarted, until } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'

t.test('an iframe and a shadow root added to the page are recorded with the changes inside them', async (t) => {
  const { seeded, store, fixtures, browser } = await recordingHarness(t)
  const visitor = await openPage(browser, { noIdle: true })
  t.teardown(visitor.close)
  await visitor.page.goto(`${fixtures.url}/basic.html`, { waitUntil: 'load' })
  await visitor.page.mouse.move(400, 300)
  await trackerStarted(visitor.page)
  await visitor.page.evaluate(`new Promise((resolve) => {
    const host = document.createElement('div')
    host.id = 'host'
    host.attachShadow({ mode: 'open' }).innerHTML = '<b id="shadowed">first shadow text</b>'
    document.body.appendChild(host)
    const frame = document.createElement('iframe')
    frame.id = 'frame'
    frame.srcdoc = '<p id="inner">first frame text</p>'
    frame.onload = () => resolve()
    document.body.appendChild(frame)
  })`)
  // Past rrweb's wait for the frame's load, then a change in each.
  await visitor.page.waitForTimeout(200)
  await visitor.page.evaluate(`(() => {
    document.getElementById('frame').contentDocument.getElementById('inner').textContent = 'second frame text'
    document.getElementById('host').shadowRoot.getElementById('shadowed').textContent = 'second shadow text'
  })()`)
  await flushTracker(visitor.page)
  const sk = (await visitor.page.evaluate('window.svc("stats").sk')) as string
  const events = await until('the changes inside the frame and the shadow root', () => {
    const found = storedChunks(store, seeded.project.id)
      .filter((c) => c.sk === sk)
      .sort((a, b) => a.seq - b.seq)
      .flatMap((c) => c.events)
    const text = JSON.stringify(found)
    return text.includes('second frame text') && text.includes('second shadow text') && found
  })
  const mutations = events.filter((e) => e.type === 3 && e.data.source === 0)
  // rrweb attaches the frame's blank document first, then its document once loaded.
  const attached = mutations.filter((e) => e.data.isAttachIframe).map((e) => JSON.stringify(e.data.adds))
  t.ok(
    attached.some((adds) => adds.includes('first frame text')),
    "the frame's loaded document is attached by a mutation of its own",
  )
  t.ok(
    mutations.some((e) => JSON.stringify(e.data.adds).includes('first shadow text')),
    "the shadow root's content is added",
  )
  t.same(visitor.pageErrors, [], 'no error reached the page')
})
