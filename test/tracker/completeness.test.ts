/**
 * Recording completeness (issue 35), end to end in Chromium: one visit in
 * which the real tracker loses part of its recording in each way it can, and
 * the API (sessions.list, sessions.chunks, /metrics) and the dashboard (the
 * session list and the replay) name each loss and its reason.
 *
 * - dropped: an event over the chunk cap (random text the gzip cannot shrink)
 * - excluded: a route onto a URL the capture settings exclude
 * - refused_too_large: the tracker's own chunk padded past the cap on its way
 *   (as a proxy or a buggy client would), answered 413
 * - not_received: a chunk answered 200 on its way without reaching the
 *   service (a proxy that swallows it): nobody knows why it is missing
 * - tab_closed: a chunk too large for the keepalive budget, sent as the page
 *   goes away and cancelled with it (the test cancels it itself: otherwise
 *   whether it lands first is a race on loopback)
 * - sampled_out: the next page load finds the sampling rate at 0
 */
import t from 'tap'
import { describeMissing } from '../../src/recordings/missing-words.js'
import { fixtureServer, flushTracker, launchBrowser, openPage, trackerStarted, until } from '../helpers/browser.js'
import { clusterFor } from '../helpers/cluster.js'
import { openDashboard, ownerSession, shoot, signedInApi } from '../helpers/dashboard.js'
import { parseProm } from '../helpers/prom.js'

/** The tracker's keepalive budget (tracker/src/config.ts): a body past it is sent without keepalive, and dies with the page. */
const KEEPALIVE_BUDGET = 60_000

t.test('a tracker\'s lost chunks and left-out pages are named by the API and the dashboard', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const session = await ownerSession(cluster.url)
  const api = signedInApi(cluster.url, session)
  const { project } = await api('/cli/projects.create', { name: 'Gaps', domain: '127.0.0.1', pathRules: [] })
  const capture = (settings: Record<string, unknown>) => api('/cli/projects.capture', { projectId: project.id, capture: settings })
  await capture({ sampleRate: 1, excludeUrls: ['/spa/about'] })
  const fixtures = await fixtureServer(t, { clusterUrl: cluster.url, publicKey: project.publicKey })
  const browser = await launchBrowser(t)

  const visit = await openPage(browser, { noIdle: true })
  t.teardown(visit.close)
  const { page } = visit
  const stats = () => page.evaluate('window.svc("stats")') as Promise<{ sk: string; droppedEvents: number; refused: number }>
  await page.goto(`${fixtures.url}/spa/`, { waitUntil: 'load' })
  await page.mouse.move(5, 5)
  await trackerStarted(page)
  const { sk } = await stats()
  const listed = async () => (await api('/cli/sessions.list', { projectId: project.id })).sessions?.find((s: any) => s.sessionKey === sk)
  const missing = async (reason: string) => ((await listed())?.completeness.missing ?? []).filter((m: any) => m.reason === reason)
  await flushTracker(page)
  await until('the first chunk', async () => (await listed())?.chunkCount > 0)
  t.equal((await listed()).completeness.complete, true, 'complete while nothing is lost')

  // dropped: 1.6 million random characters gzip to about 1.2 MB, over the 1,000,000-byte cap even alone.
  await page.evaluate(() => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
    const chars = Array.from({ length: 1_600_000 }, () => alphabet[(Math.random() * 64) | 0])
    const p = document.createElement('p')
    p.id = 'noise'
    p.textContent = chars.join('')
    document.body.appendChild(p)
  })
  await flushTracker(page)
  await until('the tracker to drop the event', async () => (await stats()).droppedEvents > 0)
  await page.evaluate(() => document.getElementById('noise')!.remove()) // out of the next full snapshots
  await flushTracker(page) // the report goes with the next signals
  const [dropped] = await until('the dropped chunk to be named', () => missing('dropped').then((m) => m.length > 0 && m))
  t.match(dropped, { chunks: 1, fromSeq: null, pageIndex: 0 }, 'one chunk, dropped before it took a seq')

  // excluded: a route onto /spa/about, then off it again.
  await page.click('#to-about')
  await page.click('#to-products')
  await flushTracker(page)
  const [excluded] = await until('the excluded page to be named', () => missing('excluded').then((m) => m.length > 0 && m))
  t.match(excluded, { chunks: null, pageIndex: 1, url: /\/spa\/about$/ })

  // refused_too_large: the next chunk padded past the cap between the page and the service.
  let pad = false
  let swallow = false
  let swallowed = -1
  let closing = false
  await page.route(
    (url) => url.pathname === '/api/ingest',
    async (route) => {
      const body = route.request().postDataBuffer() ?? Buffer.alloc(0)
      if (closing && body.length > KEEPALIVE_BUDGET) return route.abort()
      if (swallow) {
        swallow = false
        swallowed = JSON.parse(route.request().headers()['x-svc-meta']).seq
        return route.fulfill({ status: 200, contentType: 'application/json', headers: { 'access-control-allow-origin': '*' }, body: '{"ok":true}' })
      }
      if (!pad) return route.continue()
      pad = false
      return route.continue({ postData: Buffer.concat([body, Buffer.alloc(1_000_001 - body.length)]) })
    },
  )
  pad = true
  await page.evaluate(() => (document.getElementById('main')!.textContent = 'changed before the padded chunk'))
  await flushTracker(page)
  await until('the tracker to see the 413', async () => (await stats()).refused > 0)
  const [refused] = await until('the refused chunk to be named', () => missing('refused_too_large').then((m) => m.length > 0 && m))
  t.match(refused, { chunks: 1, fromSeq: Number, pageIndex: 2 }, 'the chunk\'s seq, from the refused request\'s meta')

  // not_received: the next chunk answered on its way and never delivered; the hole shows once a later seq is known.
  swallow = true
  await page.evaluate(() => (document.getElementById('main')!.textContent = 'changed before the swallowed chunk'))
  await flushTracker(page)
  await until('the chunk to be swallowed', () => swallowed >= 0)

  // tab_closed and sampled_out: 150 KB to send at pagehide, then the next page load finds the rate at 0. The settings
  // change first: the 150 KB must still be unsent at pagehide, and the tracker's 10 s flush may fire in any gap.
  await capture({ sampleRate: 0, excludeUrls: [] })
  await page.evaluate((key) => localStorage.removeItem(`svc_c_${key.slice(-12)}`), project.publicKey as string)
  closing = true
  await page.evaluate(() => {
    const p = document.createElement('p')
    p.textContent = 'unsent '.repeat(22_000)
    document.body.appendChild(p)
  })
  await page.goto(`${fixtures.url}/spa/products`, { waitUntil: 'load' })
  await page.mouse.move(9, 9)
  await trackerStarted(page)
  t.equal((await stats()).sk, sk, 'the same session goes on')
  await until('the new settings', () => page.evaluate('window.svc("stats").recording === false'))
  await flushTracker(page)
  const [closed] = await until('the chunk lost with the tab to be named', () => missing('tab_closed').then((m) => m.length > 0 && m))
  t.ok(closed.chunks >= 1 && closed.fromSeq > swallowed, `${closed.chunks} chunk(s) from seq ${closed.fromSeq}, after the swallowed one`)
  const [unknown] = await missing('not_received')
  t.match(unknown, { chunks: 1, fromSeq: swallowed, toSeq: swallowed }, 'the swallowed chunk: missing, and nobody said why')
  t.ok(closed.untilTs >= closed.fromTs, 'until the tab closed')
  const [sampled] = await until('the sampled-out page to be named', () => missing('sampled_out').then((m) => m.length > 0 && m))
  t.match(sampled, { chunks: null, pageIndex: 3, url: /\/spa\/products$/ })

  const summary = await listed()
  const c = summary.completeness
  t.equal(c.complete, false)
  t.match(c, { dropped: 1, refused: 1, excludedPages: 2, notReceived: 1 })
  t.equal(c.tabClosed, closed.chunks)
  t.equal(c.missingChunks, 3 + closed.chunks)
  const chunks = await api('/cli/sessions.chunks', { projectId: project.id, sessionKey: sk })
  t.same(chunks.completeness, c, 'sessions.chunks answers the same completeness')
  const words = c.missing.map((m: any) => describeMissing(m, c.recordingStartedAt))
  t.ok(words.some((w: string) => /^(1 chunk|\d+ chunks) missing (at|between) [\d:]+( and [\d:]+)?: the tab was closed before (it was|they were) sent$/.test(w)), words.join('\n'))

  const metrics = parseProm(await (await fetch(`${cluster.url}/metrics`)).text())
  t.equal(metrics.value('svc_sessions_complete_ratio', { project: project.id }), 0, '/metrics: none of the project\'s one session is complete')

  // ---- the dashboard says it in words, in the session list and above the replay ----
  const dashboard = await openDashboard(browser, cluster.url, { session })
  t.teardown(dashboard.close)
  const base = `${cluster.url}/app/#/p/${project.id}`
  await dashboard.page.goto(`${base}/sessions`)
  const line = dashboard.page.getByTestId('missing').first()
  await line.waitFor()
  t.match(await line.textContent(), /Incomplete recording/, 'the session list marks it')
  t.match(await line.getAttribute('title'), /the tab was closed before (it was|they were) sent/, 'and names every part')
  t.comment(`screenshot: ${await shoot(dashboard.page, '50-sessions-recording-gaps')}`)
  await dashboard.page.goto(`${base}/replay/${sk}`)
  const gaps = dashboard.page.getByTestId('recording-gaps')
  await gaps.waitFor()
  const text = (await gaps.textContent()) ?? ''
  for (const reason of ['the tab was closed before', 'the service refused it as larger than the chunk cap', 'the tracker dropped it', 'the service never received it', 'excluded by the capture settings', 'sampled out']) {
    t.ok(text.includes(reason), `the replay says: ${reason}`)
  }
  await dashboard.page.waitForTimeout(300) // the player's first frame paints
  t.comment(`screenshot: ${await shoot(dashboard.page, '50-replay-recording-gaps')}`)
  t.same(dashboard.problems, [], 'no console errors in the dashboard')
  t.same(visit.pageErrors, [], 'no page errors on the visited site')
})
