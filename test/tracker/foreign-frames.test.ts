/**
 * A frame of another origin recorded in place (issue 46): the tracker runs in
 * a checkout page (127.0.0.1) and in its payment frame (localhost, another
 * origin), with the same project key. When the project lists the page's
 * origin in `frameParents`, the frame's tracker hands its events to the
 * page's, the page's session holds them, and sessions.events answers them as
 * rrweb's own events for a frame's document: the dashboard's replay shows the
 * frame's form, the visitor's typing (masked) and what the click changed, in
 * place of the placeholder. When the project does not list it, the frame's
 * recording never reaches the page: it records a session of its own once the
 * visitor interacts in it, and the page's replay shows the placeholder.
 */
import type { Frame, Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { call } from '../helpers/api.js'
import { flushTracker, openPage, storedChunks, storedSignals, trackerStarted, until } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'
import { playersStep, replayToEnd } from '../helpers/replay.js'

const { cluster, seeded, store, fixtures, browser } = await recordingHarness(t)
const projectId = seeded.project.id
const setCapture = (capture: Record<string, unknown>) => call(cluster.url, '/cli/projects.capture', { token: seeded.apiKey, body: { projectId, capture } })
const setParents = (frameParents: string[]) => setCapture({ frameParents })
const sessionsNow = () => new Set(Array.from(store.listSessions(projectId), (s) => s.sk))

/** Opens the checkout page in a fresh context, starts its tracker, and answers the page, its payment frame and the session. */
async function checkout(t: Test, query = ''): Promise<{ page: Page; frame: Frame; sk: string; pageErrors: Error[] }> {
  // With idle time: each frame's stub loads tracker.js when the browser is idle, and it starts at an interaction.
  const visitor = await openPage(browser)
  t.teardown(visitor.close)
  const { page } = visitor
  await page.goto(`${fixtures.url}/frame-page.html${query}`, { waitUntil: 'load' })
  const frame = await until('the payment frame loaded', () => page.frames().find((f) => f.url().endsWith('/frame-child.html') && f.url().includes('localhost')))
  await frame.waitForFunction('typeof window.svc === "function" && !!window.svc.v')
  await page.mouse.move(5, 5)
  await trackerStarted(page)
  return { page, frame, sk: (await page.evaluate('window.svc("stats").sk')) as string, pageErrors: visitor.pageErrors }
}

/** The visitor pays in the frame: types the card holder and clicks Pay. */
async function pay(frame: Frame): Promise<void> {
  await frame.locator('#holder').pressSequentially('Ada')
  await frame.locator('#pay').click()
}

const viewerLook = `(replayer, resolve) => {
  const look = (tries) => {
    const payment = replayer.iframe.contentDocument.getElementById('payment')
    const doc = payment && payment.contentDocument
    const text = doc && doc.body ? doc.body.textContent.replace(/\\s+/g, ' ').trim() : ''
    if (!/thank you|not recorded/.test(text) && tries > 0) return setTimeout(() => look(tries - 1), 50)
    const status = doc && doc.getElementById('status')
    resolve({ text, holder: doc && doc.getElementById('holder') ? doc.getElementById('holder').value : null, color: status ? getComputedStyle(status).color : null })
  }
  look(60)
}`

t.test('the project lists the page: the frame replays in place in the page\'s session', async (t) => {
  const refused = await setParents(['https://shop.example/checkout'])
  t.same([refused.status, (refused.body as { code?: string }).code], [400, 'invalid_request'], 'a frame parent with a path: 400 invalid_request')
  t.equal((await setParents([fixtures.url])).status, 200)
  const before = sessionsNow()
  const { page, frame, sk, pageErrors } = await checkout(t)
  await pay(frame)
  await flushTracker(page)
  const chunks = await until('the frame\'s click stored in the page\'s session', () => {
    const found = storedChunks(store, projectId).filter((c) => c.sk === sk)
    return found.some((c) => c.text.includes('svc.frame') && c.text.includes('thank you')) && found
  })
  t.ok(chunks.some((c) => c.text.includes('"tag":"svc.frame"')), 'stored as the page\'s tracker kept them: svc.frame events')
  t.notOk(chunks.some((c) => c.text.includes('Ada')), 'the typed card holder (autocomplete cc-name) is masked before it leaves the frame')

  const read = await call(cluster.url, '/cli/sessions.events', { token: seeded.apiKey, body: { projectId, sessionKey: sk } })
  t.equal(read.status, 200)
  const events = read.body as any[]
  t.notOk(JSON.stringify(events).includes('svc.frame'), 'sessions.events answers no svc.frame event: each is put in place')
  const attach = events.find((e) => e.type === 3 && e.data.isAttachIframe)
  const snapshot = JSON.stringify(events.find((e) => e.type === 2).data.node)
  const frameId = Number(/"tagName":"iframe","attributes":\{[^}]*\},"childNodes":\[\],"id":(\d+)/.exec(snapshot)?.[1])
  t.ok(attach, 'the frame\'s full snapshot is a document added under the frame element')
  t.equal(attach?.data.adds[0].parentId, frameId, 'under the payment frame\'s id in the page\'s recording')
  t.ok(attach?.data.adds[0].node.id > 2 ** 26, 'its ids moved to a range of their own')

  const viewer = await browser.newPage()
  t.teardown(() => viewer.close())
  const replayed = await replayToEnd<{ text: string; holder: string | null; color: string | null }>(viewer, await playersStep('frames.ts'), events, 'playersStep.labelUnrecordedFrames(replayer.iframe, replayer.getMirror(), events)', viewerLook)
  t.match(replayed.text, /Card holder.*Paid, thank you.*Pay/, 'the replay shows the frame\'s form after the click, not a placeholder')
  t.equal(replayed.holder, '***', 'the typed value, masked')
  t.equal(replayed.color, 'rgb(0, 128, 0)', 'styled by the frame\'s own stylesheet')

  // A new page view (a route) takes a full snapshot of the page, and the frame sends its document after it again.
  await page.evaluate(`history.pushState({}, '', '/frame-page.html?step=receipt')`)
  await page.mouse.move(50, 50)
  await flushTracker(page)
  const later = await until('the frame\'s document again after the new page view\'s snapshot', async () => {
    const all = (await call(cluster.url, '/cli/sessions.events', { token: seeded.apiKey, body: { projectId, sessionKey: sk } })).body as any[]
    const snapshots = all.filter((e) => e.type === 2)
    return snapshots.length >= 2 && all.some((e) => e.type === 3 && e.data.isAttachIframe && e.timestamp >= snapshots[1].timestamp) && all
  })
  t.ok(later, 'a checkpoint of the page holds the frame\'s document too')
  const others = [...sessionsNow()].filter((s) => !before.has(s) && s !== sk)
  t.same(others, [], 'the frame recorded no session of its own')
  t.same(pageErrors, [], 'no error reached the page')
})

t.test('the project does not list the page: the frame records on its own, the page shows the placeholder', async (t) => {
  t.equal((await setParents([])).status, 200)
  const before = sessionsNow()
  const { page, frame, sk } = await checkout(t)
  await pay(frame)
  await flushTracker(page)
  await frame.evaluate('window.svc("flush")')
  const own = await until('the frame\'s own session', () => [...sessionsNow()].find((s) => !before.has(s) && s !== sk))
  const chunks = storedChunks(store, projectId)
  t.notOk(chunks.some((c) => c.sk === sk && c.text.includes('svc.frame')), 'nothing of the frame in the page\'s session')
  t.ok(
    await until('the frame\'s click in its own session', () => storedChunks(store, projectId).some((c) => c.sk === own && c.text.includes('thank you'))),
    'the frame\'s session holds its own recording',
  )
  const events = await until('the page\'s recording stored', async () => {
    const read = await call(cluster.url, '/cli/sessions.events', { token: seeded.apiKey, body: { projectId, sessionKey: sk } })
    return read.status === 200 && (read.body as any[]).some((e) => e.type === 2) && (read.body as any[])
  })
  const viewer = await browser.newPage()
  t.teardown(() => viewer.close())
  const replayed = await replayToEnd<{ text: string }>(viewer, await playersStep('frames.ts'), events, 'playersStep.labelUnrecordedFrames(replayer.iframe, replayer.getMirror(), events)', viewerLook)
  t.match(replayed.text, /Frame from http:\/\/localhost:\d+ ?not recorded/, 'the page\'s replay shows the placeholder naming the frame\'s origin')
})

t.test('the page is listed but not recorded (its session sampled out): the frame records nothing either', async (t) => {
  t.equal((await setCapture({ frameParents: [fixtures.url], sampleRate: 0 })).status, 200)
  t.teardown(() => setCapture({ sampleRate: 1 }))
  const before = sessionsNow()
  const { page, frame, sk } = await checkout(t)
  await page.waitForFunction('window.svc("stats").recording === false')
  await page.evaluate(`window.frameEvents = 0; addEventListener('message', (e) => { if (e.data && e.data.svc === 'f') window.frameEvents++ })`)
  await pay(frame)
  // Longer than the frame waits for a page before it records on its own (JOIN_WAIT_MS, 1 s).
  await page.waitForTimeout(1500)
  t.equal(await frame.evaluate('window.svc("stats").started'), false, 'the frame\'s own tracker never started')
  t.equal(await page.evaluate('window.frameEvents'), 0, 'and the frame stopped recording when the page did: its typing and click never left it')
  await page.click('h1') // a click: the page's flush then sends signals, which show when it was answered
  await flushTracker(page)
  await until('the page\'s flush answered (its signals stored)', () => storedSignals(store, projectId).some((b) => b.sk === sk))
  const chunks = storedChunks(store, projectId).filter((c) => !before.has(c.sk))
  t.same(chunks.map((c) => c.sk), [], 'no recording stored since the page opened: nothing of the frame, in any session, nor of the page')
})

t.test('the page blocks the frame (data-svc-block): nothing of it is recorded, in place or on its own', async (t) => {
  t.equal((await setParents([fixtures.url])).status, 200)
  const before = sessionsNow()
  const { page, frame, sk } = await checkout(t, '?blocked')
  await page.evaluate(`window.frameEvents = 0; addEventListener('message', (e) => { if (e.data && e.data.svc === 'f') window.frameEvents++ })`)
  await pay(frame)
  // Longer than the frame waits for a page before it records on its own (JOIN_WAIT_MS, 1 s).
  await page.waitForTimeout(1500)
  t.equal(await page.evaluate('window.frameEvents'), 0, 'the frame sent the page none of its events')
  t.equal(await frame.evaluate('window.svc("stats").started'), false, 'nor recorded on its own')
  await page.click('h1')
  await flushTracker(page)
  const chunks = await until('the page\'s recording stored', () => {
    const found = storedChunks(store, projectId).filter((c) => !before.has(c.sk))
    return found.length > 0 && found
  })
  t.same([...new Set(chunks.map((c) => c.sk))], [sk], 'the page\'s session alone')
  t.notOk(chunks.some((c) => c.text.includes('svc.frame') || c.text.includes('Card holder')), 'with nothing of the frame')
})
