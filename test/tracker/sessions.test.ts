/**
 * Sessions in a real browser: identify and reset behave, a session ends after
 * 30 idle minutes, and tabs of one site share a session without reusing a seq.
 */
import t from 'tap'
import { flushTracker, openPage, storedChunks, trackerStarted, until } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'

t.test('sessions', async (t) => {
  const { projectId, store, fixtures, browser, batchesOf, record } = await recordingHarness(t)

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
    const { tab, page } = await record(t, '/basic.html')
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
    // Both tabs flush at the same moments, five times: each takes its seq from the session's one counter.
    await Promise.all(
      [tab.page, second].map(async (page) => {
        for (let i = 0; i < 5; i++) {
          await page.click('#grow')
          await flushTracker(page)
        }
      }),
    )
    const chunks = await until('chunks of both tabs', () => {
      const found = storedChunks(store, projectId).filter((c) => c.sk === skA)
      return found.length >= 10 && new Set(found.map((c) => c.pageIndex)).size === 2 ? found : false
    })
    const pageIndexes = new Set(chunks.map((c) => c.pageIndex))
    t.equal(pageIndexes.size, 2, 'each tab is its own page view of the session')
    t.equal(new Set(chunks.map((c) => c.seq)).size, chunks.length, 'every chunk kept its own seq: none was dropped as a duplicate')
  })
})
