/**
 * The tracker never breaks the page: server answers of 404, 413 and 500,
 * timeouts and a page with a strict CSP leave zero uncaught page errors; a
 * 4xx is not retried, a 500 is (with backoff), a 404 (unknown key) stops the
 * tracker. A strict-CSP page still records. (The blocked script case is in
 * loading.test.ts.)
 */
import t from 'tap'
import type { Page, Route } from 'playwright-core'
import { flushTracker, openPage, storedChunks, trackerStarted, until } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'

const CORS = { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'access-control-allow-methods': 'POST, OPTIONS' }

t.test('resilience', async (t) => {
  const { cluster, seeded, store, fixtures, browser } = await recordingHarness(t)

  /** Opens the basic page with the service's ingest answers replaced by `answer`, and records something. */
  async function recordAgainst(answer: (route: Route) => Promise<void>) {
    const tab = await openPage(browser, { noIdle: true })
    const posts: string[] = []
    await tab.page.route(`${cluster.url}/api/**`, async (route) => {
      if (route.request().method() === 'OPTIONS') return route.fulfill({ status: 204, headers: CORS })
      // The capture settings come from the real service: without them the tracker holds its chunks.
      if (route.request().url().includes('/api/capture?')) return route.continue()
      posts.push(new URL(route.request().url()).pathname)
      return answer(route)
    })
    await tab.page.goto(`${fixtures.url}/basic.html`, { waitUntil: 'load' })
    await tab.page.mouse.move(5, 5)
    await trackerStarted(tab.page)
    await tab.page.click('#grow')
    // The capture settings known (cached), or the flush below would hold the chunk until the next 10 s tick.
    await tab.page.waitForFunction(() => Object.keys(localStorage).some((k) => k.startsWith('svc_c_')), undefined, { timeout: 30_000 })
    await flushTracker(tab.page)
    return { ...tab, posts }
  }
  const stats = (page: Page) => page.evaluate('window.svc("stats")') as Promise<Record<string, any>>
  const errorBody = (status: number, code: string) => ({ status, headers: { ...CORS, 'content-type': 'application/json' }, body: JSON.stringify({ ok: false, code, error: code }) })

  await t.test('a 404 (unknown key) is not retried and stops the tracker', async (t) => {
    const tab = await recordAgainst((route) => route.fulfill(errorBody(404, 'not_found')))
    t.teardown(tab.close)
    await until('the tracker to stop', async () => (await stats(tab.page)).stopped)
    await tab.page.click('#grow')
    await tab.page.waitForTimeout(300) // time for a stopped tracker to send (wrongly): an absence cannot be polled for
    await flushTracker(tab.page)
    t.ok(tab.posts.length <= 2, `at most one chunk and one batch were sent (${tab.posts.join(', ')})`)
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('a 413 is not retried', async (t) => {
    const tab = await recordAgainst((route) => route.fulfill(errorBody(413, 'payload_too_large')))
    t.teardown(tab.close)
    // A send counts `refused` only as it returns for good, and counts a retry before waiting for it: once both
    // sends are refused, neither can try again, and a retry of either would already show in `retries`.
    await until('both sends to end refused', async () => (await stats(tab.page)).refused >= 2)
    t.equal(tab.posts.filter((p) => p === '/api/ingest').length, 1, 'one ingest request')
    t.equal(tab.posts.filter((p) => p === '/api/signals').length, 1, 'one signals request')
    t.equal((await stats(tab.page)).retries, 0, 'no retry')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('a 500 is retried with backoff, and the retry lands', async (t) => {
    let failures = 0
    const tab = await recordAgainst(async (route) => {
      if (route.request().url().includes('/api/ingest') && failures++ === 0) return route.fulfill(errorBody(500, 'internal_error'))
      return route.continue()
    })
    t.teardown(tab.close)
    const sk = (await stats(tab.page)).sk
    await until('the retried chunk to be stored', () => storedChunks(store, seeded.project.id).some((c) => c.sk === sk))
    t.equal(tab.posts.filter((p) => p === '/api/ingest').length, 2, 'the chunk was sent twice')
    t.ok((await stats(tab.page)).retries >= 1, 'counted as a retry')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('a chunk whose upload is cut off by leaving the page is sent again under its seq, with keepalive', async (t) => {
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    let held: { sk: string; seq: number } | undefined
    const metas: { sk: string; seq: number; encoding: string }[] = []
    await tab.page.route(`${cluster.url}/api/ingest**`, async (route) => {
      if (route.request().method() === 'OPTIONS') return route.fulfill({ status: 204, headers: CORS })
      const meta = JSON.parse((await route.request().headerValue('x-svc-meta')) ?? '{}')
      metas.push(meta)
      // The first upload never gets an answer: it is still in flight when the page goes away.
      if (!held) return void (held = meta)
      return route.continue().catch(() => undefined)
    })
    await tab.page.goto(`${fixtures.url}/basic.html`, { waitUntil: 'load' })
    await tab.page.mouse.move(5, 5)
    await trackerStarted(tab.page)
    await tab.page.click('#grow')
    await flushTracker(tab.page)
    const cut = await until('the first upload to be in flight', () => held)
    await tab.page.goto('about:blank')
    // The held request never reached the server: what it stores under that seq is the copy sent at pagehide
    // (a keepalive request, which outlives the page and Playwright's interception alike).
    const stored = await until('the cut-off chunk stored under its seq', () => storedChunks(store, seeded.project.id).find((c) => c.sk === cut.sk && c.seq === cut.seq))
    t.equal(metas.filter((m) => m.sk === cut.sk && m.seq === cut.seq)[0].encoding, 'gzip', 'first sent compressed')
    t.equal(stored.encoding, 'json', 'sent again raw, with no time left to compress, under the same seq')
    t.ok(stored.events.some((e: any) => e.type === 2), 'the chunk with the page\'s snapshot is not lost')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('timeouts and network failures leave no page errors', async (t) => {
    const tab = await recordAgainst((route) => route.abort('timedout'))
    t.teardown(tab.close)
    await until('a retry', async () => tab.posts.length >= 3)
    await tab.page.goto('about:blank') // the final flush fails too
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('no chunk over the 1,000,000-byte cap is ever sent; an event too big to send is dropped and counted', async (t) => {
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    await tab.page.goto(`${fixtures.url}/basic.html`, { waitUntil: 'load' })
    await tab.page.mouse.move(5, 5)
    await trackerStarted(tab.page)
    // Random text barely compresses: 1,600,000 characters stay over the cap gzipped; 600,000 do not.
    const addRandomText = (chars: number, marker: string) =>
      tab.page.evaluate(`(() => {
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
        let text = '${marker}'
        const bytes = new Uint8Array(${chars})
        for (let i = 0; i < bytes.length; i += 65536) crypto.getRandomValues(bytes.subarray(i, i + 65536))
        for (const b of bytes) text += alphabet[b & 63]
        const div = document.createElement('div')
        div.textContent = text
        document.body.appendChild(div)
      })()`)
    await addRandomText(1_600_000, 'HugeMarker')
    await tab.page.waitForTimeout(50)
    await addRandomText(600_000, 'LargeMarker')
    await tab.page.waitForTimeout(50)
    await tab.page.click('#grow')
    await flushTracker(tab.page)
    const sk = (await stats(tab.page)).sk
    const chunks = await until('the large event', () => {
      const found = storedChunks(store, seeded.project.id).filter((c) => c.sk === sk)
      return found.some((c) => c.text.includes('LargeMarker')) && found.some((c) => c.text.includes('grown')) ? found : false
    })
    const sizes = store.listChunks(seeded.project.id, sk).map((c) => c.size)
    t.ok(sizes.every((n) => n <= 1_000_000), `every stored chunk is within the cap (${sizes.join(', ')} bytes)`)
    t.ok(sizes.some((n) => n > 256 * 1024), 'a chunk larger than the 256 KB flush size still went, whole')
    t.equal((await stats(tab.page)).refused, 0, 'the server refused nothing (no 413)')
    t.notOk(chunks.some((c) => c.text.includes('HugeMarker')), 'the event too big to send was not sent')
    t.ok((await stats(tab.page)).droppedEvents >= 1, 'and was counted as dropped')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('a page under a strict CSP still records, without violations', async (t) => {
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    await tab.page.addInitScript('window.__violations = []; document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective + " " + e.blockedURI))')
    const response = await tab.page.goto(`${fixtures.url}/csp-page.html`, { waitUntil: 'load' })
    t.match(response!.headers()['content-security-policy'], /strict-dynamic/, 'the page is served with a strict CSP')
    await tab.page.mouse.move(5, 5)
    await trackerStarted(tab.page)
    await tab.page.locator('#field').pressSequentially('under csp')
    await flushTracker(tab.page)
    const sk = (await stats(tab.page)).sk
    const chunks = await until('chunks', () => {
      const found = storedChunks(store, seeded.project.id).filter((c) => c.sk === sk)
      return found.some((c) => c.text.includes('under csp')) ? found : false
    })
    t.ok(chunks[0].events.some((e: any) => e.type === 2), 'the snapshot was recorded')
    t.equal(chunks[0].encoding, 'gzip', 'gzip without a worker')
    t.same(await tab.page.evaluate('window.__violations'), [], 'no CSP violation')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })
})
