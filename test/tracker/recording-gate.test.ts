/**
 * rrweb runs only where the recording is wanted, in a real browser: an
 * unsampled session (or an excluded page, or one before the trigger) starts
 * no rrweb observer once the settings are known, yet sends every signal; a
 * route onto a trigger URL starts the recording there, with a full snapshot.
 */
import t from 'tap'
import type { Page } from 'playwright-core'
import { call } from '../helpers/api.js'
import { flushTracker, openPage, storedChunks, trackerStarted, until } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'

/** Counts MutationObserver.observe calls with rrweb's options (it alone asks for old attribute values). */
const COUNT_RRWEB_OBSERVERS = `window.__rrwebObservers = 0
  const observe = MutationObserver.prototype.observe
  MutationObserver.prototype.observe = function (target, options) {
    if (options && options.attributeOldValue) window.__rrwebObservers++
    return observe.call(this, target, options)
  }`

t.test('recording gate', async (t) => {
  const { cluster, seeded, projectId, store, fixtures, browser, batchesOf } = await recordingHarness(t)
  const setCapture = async (capture: Record<string, unknown>) => {
    const answer = await call(cluster.url, '/cli/projects.capture', { token: seeded.apiKey, body: { projectId, capture } })
    if (answer.status !== 200) throw new Error(`projects.capture answered ${answer.status}: ${JSON.stringify(answer.body)}`)
  }
  const stats = (page: Page) => page.evaluate('window.svc("stats")') as Promise<{ sk: string; pageIndex: number; recording: boolean; chunks: number }>
  const visit = async (page: Page, path: string) => {
    await page.goto(`${fixtures.url}${path}`, { waitUntil: 'load' })
    await page.mouse.move(5, 5)
    await trackerStarted(page)
    return stats(page)
  }
  const settingsKnown = (page: Page) => page.waitForFunction(() => Object.keys(localStorage).some((k) => k.startsWith('svc_c_')), undefined, { timeout: 30_000 })

  await t.test('an unsampled session runs no rrweb once the settings are known, and still sends its signals', async (t) => {
    await setCapture({ sampleRate: 0, minDurationMs: 0, triggerUrls: [], excludeUrls: [] })
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    const { page } = tab
    await page.addInitScript(COUNT_RRWEB_OBSERVERS)
    // First visit, nothing cached: rrweb records (and holds) until the answer, then stops.
    const first = await visit(page, '/basic.html')
    await settingsKnown(page)
    await until('rrweb stopped after the answer', async () => (await stats(page)).recording === false)
    // Second page load of the session: the cached settings say unsampled, so rrweb never starts.
    const second = await visit(page, '/basic.html')
    t.equal(second.sk, first.sk, 'one session')
    t.equal(second.recording, false, 'not recording')
    await page.click('#grow')
    await page.evaluate(`for (let i = 0; i < 50; i++) document.body.appendChild(document.createElement('div'))`)
    t.equal(await page.evaluate('window.__rrwebObservers'), 0, 'rrweb observed no mutation on the page (no observer started)')
    await flushTracker(page)
    await page.goto('about:blank') // ends the view: sent at pagehide
    const clicks = await until('the click signal', () => batchesOf(first.sk).flatMap((b) => b.clicks).find((c) => c.selector?.includes('grow')))
    t.equal(clicks.kind, 'click', 'the click\'s answer was seen without rrweb (not dead)')
    // The second view leaves at pagehide, in a beacon that may land after the click's batch.
    const views = await until('both views', () => {
      const sent = batchesOf(first.sk).flatMap((b) => b.views)
      return sent.length >= 2 && sent
    })
    t.ok(views.length >= 2, 'both views sent')
    t.same(store.listChunks(projectId, first.sk), [], 'no recording')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('a route onto a trigger URL starts rrweb there, with a full snapshot; an excluded route stops it until the next', async (t) => {
    await setCapture({ sampleRate: 1, minDurationMs: 0, triggerUrls: ['/spa/products'], excludeUrls: ['/spa/about'] })
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    const { page } = tab
    await page.addInitScript(COUNT_RRWEB_OBSERVERS)
    await visit(page, '/spa/home')
    await settingsKnown(page)
    const home = await visit(page, '/spa/home') // settings cached: not recorded from the start
    t.equal(home.recording, false, 'before the trigger: not recording')
    t.equal(await page.evaluate('window.__rrwebObservers'), 0, 'and no rrweb observer')
    await page.click('#to-products')
    const products = await stats(page)
    t.equal(products.recording, true, 'on the trigger route: recording')
    t.ok(((await page.evaluate('window.__rrwebObservers')) as number) > 0, 'rrweb observes the page')
    await page.evaluate(`document.getElementById('main').textContent = 'changed on products'`)
    await flushTracker(page)
    const chunks = await until('the trigger route\'s recording', () => {
      const found = storedChunks(store, projectId).filter((c) => c.sk === home.sk && c.pageIndex === products.pageIndex)
      return found.some((c) => c.text.includes('changed on products')) ? found : false
    })
    const events = chunks.flatMap((c) => c.events)
    t.equal(events[0].type, 4, 'it begins with a Meta event')
    t.ok(events.some((e) => e.type === 2), 'and a full snapshot')
    t.ok(events[0].data.href.endsWith('/spa/products'), 'of the trigger route')
    t.notOk(storedChunks(store, projectId).some((c) => c.sk === home.sk && c.pageIndex < products.pageIndex), 'nothing before the trigger')
    await page.click('#to-about')
    t.equal((await stats(page)).recording, false, 'onto an excluded route: rrweb stops')
    await page.goBack()
    const back = await until('back on products', async () => {
      const now = await stats(page)
      return now.pageIndex > products.pageIndex + 1 ? now : false
    })
    t.equal(back.recording, true, 'off the excluded route: rrweb runs again')
    await flushTracker(page)
    const again = await until('the new page view\'s snapshot', () => storedChunks(store, projectId).filter((c) => c.sk === home.sk && c.pageIndex === back.pageIndex).flatMap((c) => c.events).find((e) => e.type === 2))
    t.ok(again, 'which starts with a full snapshot')
  })
})
