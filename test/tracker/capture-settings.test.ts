/**
 * Which sessions and pages are recorded, in a real browser: the project's
 * sampling rate (drawn once per session, kept across page loads; unsampled
 * sessions still send signals), the minimum duration (held, across page
 * loads of the tab, then sent once reached; not sent when the session ends
 * sooner), URL triggers and
 * exclusions, and settings read once and cached across page loads.
 */
import t from 'tap'
import type { Page } from 'playwright-core'
import { call } from '../helpers/api.js'
import { flushTracker, openPage, storedChunks, trackerStarted, until } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'

t.test('capture settings', async (t) => {
  const { cluster, seeded, projectId, store, fixtures, browser, batchesOf } = await recordingHarness(t)
  const chunksOf = (sk: string) => store.listChunks(projectId, sk)
  const setCapture = async (capture: Record<string, unknown>) => {
    const answer = await call(cluster.url, '/cli/projects.capture', { token: seeded.apiKey, body: { projectId, capture } })
    if (answer.status !== 200) throw new Error(`projects.capture answered ${answer.status}: ${JSON.stringify(answer.body)}`)
    return answer.body.project.capture
  }
  /** Loads `path` in the tab, moves the mouse so the tracker starts, and returns its session and page index. */
  const visit = async (page: Page, path: string) => {
    await page.goto(`${fixtures.url}${path}`, { waitUntil: 'load' })
    await page.mouse.move(5, 5)
    await trackerStarted(page)
    return (await page.evaluate('window.svc("stats")')) as { sk: string; pageIndex: number }
  }
  const storedSession = (page: Page) => page.evaluate(`JSON.parse(localStorage.getItem(Object.keys(localStorage).find((k) => k.startsWith('svc_s_'))))`) as Promise<{ t0: number; u: number }>

  await t.test('the API refuses a pattern that does not compile, and a rate above 1', async (t) => {
    const bad = await call(cluster.url, '/cli/projects.capture', { token: seeded.apiKey, body: { projectId, capture: { excludeUrls: ['/a/*/b'] } } })
    t.equal(bad.status, 400)
    t.equal(bad.body.code, 'invalid_request')
    t.same(bad.body.invalid, ['/a/*/b'])
    const rate = await call(cluster.url, '/cli/projects.capture', { token: seeded.apiKey, body: { projectId, capture: { sampleRate: 1.5 } } })
    t.equal(rate.status, 400)
    t.equal(rate.body.code, 'invalid_request')
    const unknown = await call(cluster.url, '/capture?pk=svc_pk_00ff', { method: 'GET', prefix: '/api' })
    t.equal(unknown.status, 404)
    t.equal(unknown.body.code, 'not_found')
    const malformed = await call(cluster.url, '/capture?pk=nope', { method: 'GET', prefix: '/api' })
    t.equal(malformed.status, 400)
    t.equal(malformed.body.code, 'invalid_request')
  })

  await t.test('records only from the first trigger page on, never on an excluded page; settings are fetched once', async (t) => {
    const saved = await setCapture({ sampleRate: 1, minDurationMs: 0, triggerUrls: ['/clicks.html'], excludeUrls: ['/form.html'] })
    t.same(saved.triggerUrls, ['/clicks.html'], 'the project answer carries the settings')
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    const { page } = tab
    const before = await visit(page, '/basic.html')
    await page.click('#grow')
    await flushTracker(page)
    const trigger = await visit(page, '/clicks.html')
    await page.click('#works')
    const after = await visit(page, '/basic.html')
    await page.click('#grow')
    const excluded = await visit(page, '/form.html')
    await page.fill('#plain', 'typed')
    const last = await visit(page, '/basic.html')
    await page.click('#grow')
    await flushTracker(page)
    t.ok([trigger, after, excluded, last].every((s) => s.sk === before.sk), 'one session throughout')
    const sk = before.sk
    await until('the last page\'s chunk', () => chunksOf(sk).some((c) => c.pageIndex === last.pageIndex))
    // The excluded page's view is sent at its pagehide, after its recording would have been.
    await until('the excluded page\'s view', () => batchesOf(sk).some((b) => b.views.some((v) => v.url.includes('/form.html'))))
    const pages = new Set(chunksOf(sk).map((c) => c.pageIndex))
    t.notOk(pages.has(before.pageIndex), 'nothing recorded before the trigger page')
    t.ok(pages.has(trigger.pageIndex), 'the trigger page is recorded')
    t.ok(pages.has(after.pageIndex), 'and the pages after it')
    t.notOk(pages.has(excluded.pageIndex), 'but never the excluded page')
    t.ok(batchesOf(sk).some((b) => b.views.some((v) => v.url.includes('/basic.html'))), 'signals are sent for every page')
    const fetches = tab.requests.filter((r) => r.url().includes('/api/capture?'))
    t.equal(fetches.length, 1, 'five page loads asked for the settings once (cached for the rest)')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('an unsampled session sends signals but no recording, on every page load', async (t) => {
    await setCapture({ sampleRate: 0, triggerUrls: [], excludeUrls: [] })
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    const { page } = tab
    const first = await visit(page, '/basic.html')
    await page.click('#grow')
    const second = await visit(page, '/clicks.html')
    await page.click('#works')
    await flushTracker(page)
    t.equal(second.sk, first.sk, 'one session')
    await until('the second page\'s click', () => batchesOf(first.sk).some((b) => b.clicks.length > 0 && b.views.length > 0))
    await until('both pages\' clicks', () => batchesOf(first.sk).flatMap((b) => b.clicks).length >= 2)
    t.same(chunksOf(first.sk), [], 'no recording')
    t.equal(((await page.evaluate('window.svc("stats")')) as { chunks: number }).chunks, 0, 'and none sent')
  })

  await t.test('the sampling draw is made once per session and kept across page loads', async (t) => {
    await setCapture({ sampleRate: 0.5 })
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    const { page } = tab
    const first = await visit(page, '/basic.html')
    const draw = (await storedSession(page)).u
    await page.click('#grow')
    const second = await visit(page, '/clicks.html')
    t.equal((await storedSession(page)).u, draw, 'the second page load keeps the draw')
    await page.click('#works')
    await flushTracker(page)
    t.equal(second.sk, first.sk, 'one session')
    await until('both pages\' clicks', () => batchesOf(first.sk).flatMap((b) => b.clicks).length >= 2)
    if (draw < 0.5) {
      const pages = await until('both pages recorded', () => {
        const found = new Set(chunksOf(first.sk).map((c) => c.pageIndex))
        return found.has(first.pageIndex) && found.has(second.pageIndex) ? found : false
      })
      t.equal(pages.size, 2, `draw ${draw.toFixed(3)} < 0.5: both page loads recorded`)
    } else {
      t.same(chunksOf(first.sk), [], `draw ${draw.toFixed(3)} >= 0.5: neither page load recorded`)
    }
  })

  const heldInTab = (page: Page) => page.evaluate(`(() => { const key = Object.keys(sessionStorage).find((k) => k.startsWith('svc_h_')); return key ? JSON.parse(sessionStorage.getItem(key)).length : 0 })()`) as Promise<number>

  await t.test('a session shorter than the minimum duration sends no recording, over two page loads', async (t) => {
    await setCapture({ sampleRate: 1, minDurationMs: 600_000 })
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    const { page } = tab
    const { sk } = await visit(page, '/basic.html')
    await page.click('#grow')
    await flushTracker(page)
    const second = await visit(page, '/clicks.html')
    t.equal(second.sk, sk, 'one session')
    await page.click('#works')
    await flushTracker(page)
    await page.goto(`${fixtures.url}/form.html`) // pagehide: what is held is kept in the tab, the view is sent
    await until('both views sent at pagehide', () => batchesOf(sk).flatMap((b) => b.views).length >= 2)
    t.ok((await heldInTab(page)) >= 2, 'both pages\' recordings are held in the tab, not sent')
    t.same(chunksOf(sk), [], 'no recording of the short session')
  })

  await t.test('what a tab holds across page loads stays under its cap, the oldest page view dropped first', async (t) => {
    await setCapture({ sampleRate: 1, minDurationMs: 600_000 })
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    const { page } = tab
    const grow = (marker: string) => page.evaluate(`(() => { const p = document.createElement('p'); p.textContent = '${marker}' + 'x'.repeat(700000); document.body.appendChild(p) })()`)
    const first = await visit(page, '/basic.html')
    await grow('FirstPageMarker')
    await flushTracker(page)
    const second = await visit(page, '/clicks.html')
    t.ok((await heldInTab(page)) === 0, 'the second page load took what the first held')
    await grow('SecondPageMarker')
    await flushTracker(page)
    await page.goto(`${fixtures.url}/form.html`)
    const held = (await page.evaluate(`(() => { const key = Object.keys(sessionStorage).find((k) => k.startsWith('svc_h_')); return key ? sessionStorage.getItem(key) : '' })()`)) as string
    t.ok(held.length > 700_000 && held.length <= 1_000_000 + 2, `${held.length} characters held, within the 1,000,000 cap`)
    const pages = new Set((JSON.parse(held) as [{ pageIndex: number }][]).map(([ctx]) => ctx.pageIndex))
    t.same([...pages], [second.pageIndex], 'only the newer page view is kept')
    t.notOk(held.includes('FirstPageMarker'), 'the oldest page view was dropped whole')
    t.same(chunksOf(first.sk), [], 'and nothing was sent')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('a first page shorter than the minimum is sent once the session passes it on the next page', async (t) => {
    const MIN = 6_000
    await setCapture({ sampleRate: 1, minDurationMs: MIN })
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    const { page } = tab
    const first = await visit(page, '/basic.html')
    const { t0 } = await storedSession(page)
    await page.click('#grow')
    const second = await visit(page, '/clicks.html') // the first page goes away under the minimum
    t.ok(Date.now() - t0 < MIN, 'the first page went away before the minimum')
    t.equal(second.sk, first.sk, 'one session')
    t.same(chunksOf(first.sk), [], 'nothing sent yet')
    await page.click('#works')
    await page.waitForFunction((start) => Date.now() - start > 6_000, t0, { timeout: 30_000 })
    await flushTracker(page)
    const chunks = await until('both pages\' recordings', () => {
      const found = storedChunks(store, projectId).filter((c) => c.sk === first.sk)
      const pages = new Set(found.map((c) => c.pageIndex))
      return pages.has(first.pageIndex) && pages.has(second.pageIndex) ? found : false
    })
    const firstPage = chunks.filter((c) => c.pageIndex === first.pageIndex)
    t.ok(firstPage.some((c) => c.events.some((e: any) => e.type === 2)), 'the first page\'s full snapshot')
    t.ok(firstPage.some((c) => c.text.includes('grown')), 'and what happened on it')
    t.ok(firstPage[0].seq < chunks.filter((c) => c.pageIndex === second.pageIndex)[0].seq, 'sent before the second page\'s, in order')
    t.equal(await heldInTab(page), 0, 'nothing left held in the tab')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('the recording is held until the session reaches the minimum duration, then sent whole', async (t) => {
    await setCapture({ sampleRate: 1, minDurationMs: 3_000 })
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    const { page } = tab
    const { sk } = await visit(page, '/basic.html')
    const { t0 } = await storedSession(page)
    await page.click('#grow')
    await flushTracker(page)
    await until('the flushed click', () => batchesOf(sk).some((b) => b.clicks.length > 0))
    const early = Date.now() - t0 < 3_000
    if (early) t.same(chunksOf(sk), [], 'nothing sent before the minimum')
    await page.waitForFunction((start) => Date.now() - start > 3_000, t0)
    await flushTracker(page)
    await until('the held recording', () => chunksOf(sk).length > 0)
    const first = chunksOf(sk)[0]
    t.equal(first.pageIndex, 0, 'the first page view\'s chunk, held, not dropped')
    t.ok(first.firstTs - t0 < 3_000, 'it starts before the minimum was reached')
  })
})
