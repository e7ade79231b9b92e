/**
 * Page views in a real browser: client-side routes and full page loads are
 * page views, each with its own page index and snapshot; exits and quick
 * backs are told apart.
 */
import t from 'tap'
import { flushTracker, openPage, storedChunks, trackerStarted, until } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'

t.test('page views', async (t) => {
  const { projectId, store, fixtures, browser, batchesOf, record } = await recordingHarness(t)

  await t.test('client-side routes are new page views, each with its own page index and snapshot', async (t) => {
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    const { page } = tab
    await page.goto(`${fixtures.url}/spa/`, { waitUntil: 'load' })
    await page.mouse.move(5, 5)
    await trackerStarted(page)
    const sk = (await page.evaluate('window.svc("stats").sk')) as string
    await page.click('#to-products')
    await page.click('#to-anchor') // a hash change is not a new view
    await page.click('#to-about')
    await page.evaluate('history.back()') // back to products within seconds: a quick back from about
    await page.waitForFunction('location.pathname === "/spa/products"')
    await page.evaluate('history.replaceState({}, "", "/spa/products?tab=2")')
    await flushTracker(page)
    // The flush's requests are plain fetches: wait for them to land before leaving, which would cancel them.
    const chunks = await until('chunks of five page views', () => {
      const found = storedChunks(store, projectId).filter((c) => c.sk === sk)
      return new Set(found.map((c) => c.pageIndex)).size >= 5 ? found : false
    })
    await page.goto('about:blank') // leaving the site: pagehide ends the last view, the session's exit

    const views = await until('six views', () => {
      // In the order they began: each route's batch is its own fetch, and two in flight at once may land in either order.
      const found = batchesOf(sk)
        .flatMap((b) => b.views)
        .sort((a, b) => a.startedAt - b.startedAt)
      return found.length >= 5 ? found : false
    })
    const paths = views.map((v) => new URL(v.url).pathname + new URL(v.url).search)
    t.same(paths, ['/spa/', '/spa/products', '/spa/about', '/spa/products', '/spa/products?tab=2'], 'one view per route, none for the hash change')
    t.same(views.map((v) => !!v.quickBack), [false, false, true, false, false], 'leaving /spa/about by going straight back is a quick back')
    t.same(views.map((v) => v.exit), [false, false, false, false, true], 'only the last view is the exit')
    t.equal(views[1].title, 'SPA /spa/products', 'the title is the route\'s own')
    for (const view of views) {
      t.ok(view.endedAt! >= view.startedAt, 'ended after it started')
      t.ok(view.activeMs! >= 0 && view.maxScrollPct! > 0 && view.vw === 1024, 'with active time, scroll depth and viewport')
    }
    const pages = [...new Set(chunks.map((c) => c.pageIndex))].sort()
    t.same(pages, [0, 1, 2, 3, 4], 'chunks carry one page index per view')
    for (const index of pages) {
      const first = chunks.filter((c) => c.pageIndex === index).sort((a, b) => a.seq - b.seq)[0]
      t.ok(first.events.some((e: any) => e.type === 2), `page view ${index} starts with a full snapshot`)
    }
    const seqs = chunks.map((c) => c.seq)
    t.same(seqs, [...seqs].sort((a, b) => a - b), 'seq increases with the page views')
    t.equal(new Set(seqs).size, seqs.length, 'no seq repeats')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('across full page loads: a link within the site is no exit, and going straight back is a quick back', async (t) => {
    const { tab, page, sk } = await record(t, '/basic.html')
    await Promise.all([page.waitForURL('**/clicks.html'), page.click('#to-clicks')])
    await page.mouse.move(20, 20)
    await trackerStarted(page)
    t.equal(await page.evaluate('window.svc("stats").sk'), sk, 'the next page continues the session')
    await Promise.all([page.waitForURL('**/basic.html'), page.evaluate('history.back()')])
    const views = await until('two views', () => {
      const found = batchesOf(sk).flatMap((b) => b.views)
      return found.length >= 2 ? found : false
    })
    t.same(views.map((v) => new URL(v.url).pathname), ['/basic.html', '/clicks.html'])
    t.same(views.map((v) => v.exit), [false, false], 'neither view was the exit: both left for a page of the site')
    t.same(views.map((v) => !!v.quickBack), [false, true], 'the visitor went straight back from /clicks.html')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

})
