/**
 * Signals and sessions in a real browser: client-side routes are page views
 * (with quick backs), clicks are classified rage, dead, error or click,
 * identify and reset behave, and tabs of one site share a session.
 */
import t from 'tap'
import { fixtureServer, flushTracker, launchBrowser, openPage, storedChunks, storedSignals, trackerStarted, until } from '../helpers/browser.js'
import { clusterFor } from '../helpers/cluster.js'
import { seedProject, storeAt } from '../helpers/seed.js'

t.test('signals', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const seeded = await seedProject(cluster.dataDir)
  const projectId = seeded.project.id
  const store = storeAt(cluster.dataDir)
  t.teardown(() => store.close())
  const fixtures = await fixtureServer(t, { clusterUrl: cluster.url, publicKey: seeded.project.publicKey })
  const browser = await launchBrowser(t)
  const batchesOf = (sk: string) => storedSignals(store, projectId).filter((b) => b.sk === sk)

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
    await page.goto('about:blank') // leaving the site: pagehide ends the last view, the session's exit

    const views = await until('six views', () => {
      const found = batchesOf(sk).flatMap((b) => b.views)
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
    const chunks = await until('chunks of five page views', () => {
      const found = storedChunks(store, projectId).filter((c) => c.sk === sk)
      return new Set(found.map((c) => c.pageIndex)).size >= 5 ? found : false
    })
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

  await t.test('clicks are classified rage, dead, error or click', async (t) => {
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    const { page } = tab
    await page.goto(`${fixtures.url}/clicks.html`, { waitUntil: 'load' })
    await page.mouse.move(5, 5)
    await trackerStarted(page)
    const sk = (await page.evaluate('window.svc("stats").sk')) as string
    await page.click('#works')
    await page.waitForTimeout(1100)
    await page.click('#dead')
    await page.waitForTimeout(1100)
    await page.click('#broken')
    await page.waitForTimeout(1100)
    const rage = await page.locator('button.rage').boundingBox()
    for (let i = 0; i < 4; i++) await page.mouse.click(rage!.x + 20 + i * 3, rage!.y + 10) // four clicks within a few px and well under a second
    await page.waitForTimeout(1100)
    await page.click('.card')
    await page.waitForTimeout(1100)
    await flushTracker(page)

    const clicks = await until('five click entries', () => {
      const found = batchesOf(sk).flatMap((b) => b.clicks)
      return found.length >= 5 ? found : false
    })
    t.equal(clicks.length, 5, 'the rage clicks collapsed into one entry')
    const [works, dead, broken, rageClick, card] = clicks
    t.match(works, { kind: 'click', selector: '#works', label: 'Add item', tag: 'button', interactive: true }, 'a click that changed the page is a click')
    t.match(dead, { kind: 'dead', selector: '#dead', label: 'Does nothing' }, 'a button that did nothing is a dead click')
    t.match(broken, { kind: 'error', selector: '#broken' }, 'a click followed by an error is an error click')
    t.match(rageClick, { kind: 'rage', n: 4, label: 'Stuck' }, 'four quick clicks in one place are one rage click with n')
    t.notOk(/sc-|bdVaJa/.test(rageClick.selector!), `no generated class in the selector (${rageClick.selector})`)
    t.match(card, { kind: 'click', tag: 'div', interactive: true, label: 'Open card' }, 'a pointer-styled div is interactive')
    t.equal(card.selector, 'body > div.card', 'its selector keeps the stable class and drops the CSS-modules hash')

    const errors = batchesOf(sk).flatMap((b) => b.errors)
    t.equal(errors.length, 1, 'the error is reported')
    t.match(errors[0].message, /undefinedFunctionForTest/, 'with its message')
    t.equal(tab.pageErrors.length, 1, 'the page\'s own error still reaches the page (the tracker only listens)')
  })

  await t.test('identify labels the session; reset closes it and rotates the visitor id', async (t) => {
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    const { page } = tab
    await page.goto(`${fixtures.url}/basic.html`, { waitUntil: 'load' })
    await page.evaluate('window.svc("identify", "user-42", { email: "ada@acme.test", name: "Ada", accountId: "acct-7" })')
    await page.mouse.move(5, 5)
    await trackerStarted(page)
    const first = (await page.evaluate('window.svc("stats")')) as { sk: string; vid: string }
    await page.click('#grow')
    await flushTracker(page)
    await until('the identified session', () => store.getSession(projectId, first.sk)?.identity?.userId === 'user-42')
    t.same(store.getSession(projectId, first.sk)!.identity, { userId: 'user-42', email: 'ada@acme.test', name: 'Ada', accountId: 'acct-7' }, 'the queued identify reached the session')

    await page.evaluate('window.svc("reset")')
    const second = (await page.evaluate('window.svc("stats")')) as { sk: string; vid: string }
    t.not(second.sk, first.sk, 'reset starts a new session')
    t.not(second.vid, first.vid, 'and rotates the visitor id')
    await page.click('#grow')
    await flushTracker(page)
    const session = await until('the new session', () => store.getSession(projectId, second.sk))
    t.equal(session.vid, second.vid, 'the new session has the new visitor')
    t.notOk(session.identity, 'and is anonymous')
    const oldViews = await until('the closed view', () => {
      const found = batchesOf(first.sk).flatMap((b) => b.views)
      return found.length ? found : false
    })
    t.equal(oldViews[0].exit, true, 'reset ended the old session\'s view as its exit')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('a session ends after 30 minutes without interaction, and only activity starts the next', async (t) => {
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    const { page } = tab
    await page.goto(`${fixtures.url}/basic.html`, { waitUntil: 'load' })
    await page.mouse.move(5, 5)
    await trackerStarted(page)
    const first = (await page.evaluate('window.svc("stats")')) as { sk: string; vid: string }
    // Age the shared session record by 31 minutes, as if the visitor had left the tab alone.
    const aged = await page.evaluate(`(() => {
      const key = Object.keys(localStorage).find((k) => k.startsWith('svc_s_'))
      const record = JSON.parse(localStorage.getItem(key))
      record.at -= 31 * 60 * 1000
      localStorage.setItem(key, JSON.stringify(record))
      return record.sk
    })()`)
    t.equal(aged, first.sk, 'the stored session is this page\'s')
    await flushTracker(page)
    t.equal(await page.evaluate('window.svc("stats").sk'), first.sk, 'an idle tab starts no new session by itself')
    await page.keyboard.press('Tab')
    const second = (await page.evaluate('window.svc("stats")')) as { sk: string; vid: string }
    t.not(second.sk, first.sk, 'the next interaction starts a new session')
    t.equal(second.vid, first.vid, 'for the same visitor')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('tabs of one site share the session and never reuse a seq', async (t) => {
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    const second = await tab.context.newPage()
    for (const page of [tab.page, second]) {
      await page.goto(`${fixtures.url}/basic.html`, { waitUntil: 'load' })
      await page.mouse.move(5, 5)
      await trackerStarted(page)
    }
    const skA = (await tab.page.evaluate('window.svc("stats").sk')) as string
    const skB = (await second.evaluate('window.svc("stats").sk')) as string
    t.equal(skB, skA, 'the second tab joined the first tab\'s session')
    for (let i = 0; i < 3; i++) {
      for (const page of [tab.page, second]) {
        await page.click('#grow')
        await flushTracker(page)
      }
    }
    const chunks = await until('chunks of both tabs', () => {
      const found = storedChunks(store, projectId).filter((c) => c.sk === skA)
      return found.length >= 6 && new Set(found.map((c) => c.pageIndex)).size === 2 ? found : false
    })
    const pageIndexes = new Set(chunks.map((c) => c.pageIndex))
    t.equal(pageIndexes.size, 2, 'each tab is its own page view of the session')
    t.equal(new Set(chunks.map((c) => c.seq)).size, chunks.length, 'every chunk kept its own seq: none was dropped as a duplicate')
  })
})
