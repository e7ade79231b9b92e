/**
 * The loader stub and the first recording: nothing loads or records before
 * the visitor interacts; after the first interaction the tracker records, and
 * chunks, signals and the session count reach the server.
 */
import t from 'tap'
import { call } from '../helpers/api.js'
import { flushTracker, openPage, storedChunks, storedSignals, trackerStarted, until } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'

t.test('loading and first recording', async (t) => {
  const { cluster, seeded, projectId, store, fixtures, browser } = await recordingHarness(t)
  const count = async () => (await call(cluster.url, '/cli/sessions.count', { token: seeded.apiKey, body: { projectId: seeded.project.id } })).body.count as number

  await t.test('the stub loads nothing until the first interaction', async (t) => {
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    await tab.page.goto(`${fixtures.url}/basic.html`, { waitUntil: 'load' })
    t.equal(await tab.page.evaluate('typeof window.svc'), 'function', 'the stub defined svc()')
    await tab.page.evaluate('window.svc("identify", "user-1", { email: "a@b.test" })')
    t.same(await tab.page.evaluate('Array.from(window.svc.q, (a) => Array.from(a))'), [['identify', 'user-1', { email: 'a@b.test' }]], 'calls are queued as arguments on svc.q')
    // Idle never comes on this page (requestIdleCallback is stubbed): only an interaction may load the tracker.
    await tab.page.waitForTimeout(500)
    const toService = () => tab.requests.filter((r) => r.url().startsWith(cluster.url)).map((r) => new URL(r.url()).pathname)
    t.same(toService(), [], 'no request to the service before an interaction')
    t.equal(await count(), 0, 'no session')

    await tab.page.mouse.move(100, 100)
    await trackerStarted(tab.page)
    t.same(toService().slice(0, 1), ['/tracker.js'], 'the first interaction loads tracker.js')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('after an interaction, chunks and signals arrive and sessions.count moves off zero', async (t) => {
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    const before = await count()
    await tab.page.goto(`${fixtures.url}/basic.html`, { waitUntil: 'load' })
    await tab.page.mouse.move(50, 50)
    await trackerStarted(tab.page)
    await tab.page.click('#grow')
    await tab.page.mouse.wheel(0, 600)
    const ingest = tab.page.waitForResponse((r) => r.url().startsWith(`${cluster.url}/api/ingest`))
    const signals = tab.page.waitForResponse((r) => r.url().startsWith(`${cluster.url}/api/signals`))
    await tab.page.waitForTimeout(1200) // the click's kind is decided 1 s after it
    await flushTracker(tab.page)
    t.equal((await ingest).status(), 200, 'a chunk was accepted')
    t.equal((await signals).status(), 200, 'a signals batch was accepted')
    const total = await until('sessions.count to move', async () => ((await count()) > before ? count() : false))
    t.ok(total > before, `sessions.count moved off ${before} to ${total}`)

    const sk = (await tab.page.evaluate('window.svc("stats").sk')) as string
    const chunks = storedChunks(store, seeded.project.id).filter((c) => c.sk === sk)
    t.ok(chunks.length >= 1, 'chunks stored for the session')
    t.equal(chunks[0].encoding, 'gzip', 'Chromium has CompressionStream: the chunk is gzip')
    const types = chunks.flatMap((c) => c.events.map((e: any) => e.type))
    t.ok(types.includes(4) && types.includes(2), 'the recording starts with a Meta and a full snapshot')
    t.ok(chunks.some((c) => c.text.includes('grown')), 'the DOM change after the click is recorded')

    const session = Array.from(store.listSessions(seeded.project.id)).find((s) => s.sk === sk)!
    t.ok(session, 'the session is stored')
    t.same(session.viewport, { w: 1024, h: 768 }, 'the meta carried the viewport')
    const batches = await until('signals batch', () => {
      const found = storedSignals(store, seeded.project.id).filter((b) => b.sk === sk)
      return found.length ? found : false
    })
    const clicks = batches.flatMap((b) => b.clicks)
    t.equal(clicks.length, 1, 'one click')
    t.match(clicks[0], { tag: 'button', selector: '#grow', label: 'Grow', interactive: true, kind: 'click' }, 'the click signal names the button')
    t.ok(clicks[0].xRatio > 0 && clicks[0].xRatio < 1 && clicks[0].yDoc > 0, 'with its position')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('an untouched page loads the tracker when idle but records nothing', async (t) => {
    const tab = await openPage(browser)
    t.teardown(tab.close)
    const before = await count()
    await tab.page.goto(`${fixtures.url}/basic.html`, { waitUntil: 'load' })
    await tab.page.waitForFunction('!!(window.svc && window.svc.v)', undefined, { timeout: 30_000 })
    t.equal(await tab.page.evaluate('window.svc("stats").started'), false, 'tracker.js loaded at idle, waiting for an interaction')
    await tab.page.waitForTimeout(500) // time for a wrong send to show: an absence cannot be polled for
    const sent = tab.requests.filter((r) => /\/api\/(ingest|signals)/.test(r.url()))
    t.same(sent.map((r) => r.url()), [], 'nothing was sent')
    await tab.page.close({ runBeforeUnload: true })
    t.equal(await count(), before, 'no session was recorded')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('an interaction while an idle-time tracker.js is still downloading starts the recording', async (t) => {
    const tab = await openPage(browser)
    t.teardown(tab.close)
    // Hold tracker.js back so that the interaction lands between the idle-time load and the script running.
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    let requested = false
    await tab.page.route('**/tracker.js', async (route) => {
      requested = true
      await held
      await route.continue()
    })
    await tab.page.goto(`${fixtures.url}/basic.html`, { waitUntil: 'load' })
    await until('the idle-time load of tracker.js', () => requested)
    await tab.page.mouse.move(120, 140)
    release()
    // No further interaction: the one made during the download must be enough.
    await trackerStarted(tab.page)
    t.equal(await tab.page.evaluate('window.svc("stats").started'), true)
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('a blocked tracker script leaves the page without errors', async (t) => {
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    await tab.page.route(`${cluster.url}/tracker.js`, (route) => route.abort('blockedbyclient'))
    await tab.page.goto(`${fixtures.url}/basic.html`, { waitUntil: 'load' })
    await tab.page.mouse.move(10, 10)
    await tab.page.evaluate('window.svc("identify", "u")')
    await tab.page.click('#grow')
    await tab.page.waitForTimeout(300) // time for the failed load to raise an error, were it uncaught: an absence
    t.equal(await tab.page.evaluate('window.svc.q.length'), 1, 'calls still queue harmlessly')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })
})
