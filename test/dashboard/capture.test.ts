/**
 * Capture in the dashboard, from a real recording: the Settings screen shows
 * and saves a project's capture settings (canvas capture and its rate too); the tracker records a page of a
 * project with console and network capture on, and the replay lists its
 * console lines and requests beside the player, marks console errors and
 * failed requests on the timeline, and jumps the player to a line that is
 * clicked; the session list filters sessions with console errors or failed
 * requests, and searches them by a console message's text, the replay then
 * opening at that message with the match marked on the timeline.
 */
import t from 'tap'
import { fixtureServer, flushTracker, launchBrowser, storedChunks, trackerStarted, until } from '../helpers/browser.js'
import { clusterFor } from '../helpers/cluster.js'
import { openDashboard, ownerSession, shoot } from '../helpers/dashboard.js'
import { storeAt } from '../helpers/seed.js'

t.test('capture settings, replay panels and session filters in the dashboard', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const session = await ownerSession(cluster.url)
  let csrf: string | undefined
  const api = async (route: string, body: unknown): Promise<any> => {
    csrf ??= (await (await fetch(`${cluster.url}/api/v1/auth/state`, { headers: { cookie: `svc_session=${session}` } })).json()).csrfToken
    const res = await fetch(`${cluster.url}/api/v1${route}`, { method: 'POST', headers: { cookie: `svc_session=${session}`, 'x-csrf-token': csrf!, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return res.json()
  }
  const { project } = await api('/cli/projects.create', { name: 'Console shop' })
  await api('/cli/projects.capture', { projectId: project.id, capture: { console: true, network: true } })
  const fixtures = await fixtureServer(t, { clusterUrl: cluster.url, publicKey: project.publicKey })
  const browser = await launchBrowser(t)
  const store = storeAt(cluster.dataDir)
  t.teardown(() => store.close())

  const visitor = await browser.newContext({ viewport: { width: 1024, height: 700 } })
  t.teardown(() => visitor.close())
  const page = await visitor.newPage()
  await page.addInitScript('window.requestIdleCallback = function () { return 0 }')
  await page.goto(`${fixtures.url}/capture.html`)
  await page.mouse.move(5, 5)
  await trackerStarted(page)
  await page.waitForFunction(() => typeof (window as any).svc?.x?.stop === 'function')
  await page.fill('#pw', 'TypedPw1234')
  await page.fill('#name', 'Ada')
  await page.evaluate('window.logSecrets()')
  await page.evaluate('window.postForm()')
  await page.evaluate('console.log("checkout ready")')
  await flushTracker(page)
  const sk = (await page.evaluate('window.svc("stats").sk')) as string
  await until('the captured events', () => {
    const events = storedChunks(store, project.id).filter((c) => c.sk === sk).flatMap((c) => c.events)
    return events.some((e) => e.type === 6 && e.data.plugin === 'svc/network@1' && e.data.payload.initiator === 'xhr') && events.some((e) => e.type === 6 && JSON.stringify(e).includes('checkout ready'))
  })

  const tab = await openDashboard(browser, cluster.url, { session })
  t.teardown(tab.close)
  await tab.page.goto(`${cluster.url}/app/#/p/${project.id}/replay/${sk}`)
  const panels = tab.page.getByTestId('capture-panels')
  await panels.waitFor()
  await tab.page.frameLocator('.player-target iframe').getByRole('heading', { name: 'Console and network' }).waitFor()
  const consoleLines = await tab.page.getByTestId('console-lines').locator('li').allTextContents()
  t.ok(consoleLines.some((l) => l.includes('pw is ***********')), 'a console line, with the password starred')
  t.notOk(consoleLines.some((l) => l.includes('TypedPw1234')), 'the password nowhere')
  t.ok(consoleLines.some((l) => /error.*boom/.test(l)), 'the console error')
  t.ok(consoleLines.some((l) => l.includes('checkout ready')), 'the last log')
  const moments = await tab.page.getByTestId('moments').locator('li').allTextContents()
  t.ok(moments.some((m) => m.includes('Console error')), 'console errors are moments on the timeline')
  t.ok(moments.some((m) => m.includes('Failed request')), 'and so is the failed request')
  t.ok((await tab.page.locator('.moments-strip .tick-consoleError').count()) > 0, 'marked on the strip under the player')

  await tab.page.getByRole('tab', { name: /Network/ }).click()
  const networkLines = await tab.page.getByTestId('network-lines').locator('li').allTextContents()
  t.ok(networkLines.some((l) => l.includes('404') && l.includes('POST') && l.includes('/echo')), 'the POST and its 404')
  t.ok(networkLines.some((l) => l.includes('failed') && l.includes('127.0.0.1:1')), 'the failed request')
  t.ok(networkLines.some((l) => l.includes('200') && l.includes('/basic.html')), 'the XHR')
  t.notOk(networkLines.some((l) => l.includes(cluster.url)), 'none of the tracker\'s own uploads')

  const last = tab.page.getByTestId('network-lines').locator('li').last()
  await last.locator('button').click()
  await until('the player to reach the clicked line', async () => (await last.getAttribute('class'))?.includes('current'))
  t.pass('clicking a line moves the player there, and the panel follows its time')
  await tab.page.getByRole('tab', { name: /Console/ }).click()
  await tab.page.waitForFunction(() => document.querySelector('.player-target iframe') !== null)
  const shot = await shoot(tab.page, '35-replay-console-network')
  t.comment(`screenshot: ${shot}`)

  // The session list: filtered by console errors and by failed requests, the session is there; a quiet one is not.
  await fetch(`${cluster.url}/api/v1/ingest?pk=${project.publicKey}`, {
    method: 'POST',
    headers: { 'x-svc-meta': JSON.stringify({ sk: 'quiet', vid: 'v-quiet', seq: 0, encoding: 'json', eventCount: 1, url: 'https://shop.test/' }), 'content-type': 'application/octet-stream' },
    body: '[{"type":4,"data":{"href":"https://shop.test/"},"timestamp":1}]',
  })
  await until('the quiet session', () => store.getSession(project.id, 'quiet'))
  await tab.page.goto(`${cluster.url}/app/#/p/${project.id}/sessions`)
  const rows = tab.page.getByTestId('sessions').locator('tbody tr')
  await until('both sessions listed', async () => (await rows.count()) === 2)
  await tab.page.getByLabel('With console errors').check()
  await tab.page.getByRole('button', { name: 'Filter' }).click()
  await until('the filtered list', async () => (await rows.count()) === 1)
  t.match(await rows.first().textContent(), /console error/, 'only the session with console errors, its count shown')
  t.ok(tab.page.url().includes('consoleErrors=1'), 'the filter lives in the address')
  await tab.page.getByLabel('With console errors').uncheck()
  await tab.page.getByLabel('With failed requests').check()
  await tab.page.getByRole('button', { name: 'Filter' }).click()
  await until('the failed-requests list', async () => (await rows.count()) === 1 && /failed request/.test((await rows.first().textContent()) ?? ''))
  t.pass('only the session with a failed request')
  await tab.page.getByLabel('With failed requests').uncheck()

  // Search by a console message's text: the row says what matched, and its replay opens there with the match marked.
  await tab.page.getByLabel('Console message').fill('boom')
  await tab.page.getByRole('button', { name: 'Filter' }).click()
  await until('the search to narrow the list', async () => tab.page.url().includes('console=boom') && (await rows.count()) === 1)
  t.match(await rows.first().getByTestId('match').textContent(), /First match \d+:\d\d: console Error: boom \*{11}/, 'the row says what matched and when, the password starred')
  const boom = storedChunks(store, project.id).filter((c) => c.sk === sk).flatMap((c) => c.events).find((e) => e.type === 6 && e.data.payload.level === 'error' && e.data.payload.payload[0]?.includes('boom'))
  await shoot(tab.page, '37-sessions-search-console')
  await rows.first().getByRole('link', { name: 'Replay' }).click()
  await tab.page.frameLocator('.player-target iframe').getByRole('heading', { name: 'Console and network' }).waitFor()
  const address = new URL(`http://x/${tab.page.url().split('#/')[1]}`)
  t.equal(Number(address.searchParams.get('t')), boom.timestamp, 'the replay opens at the console error')
  t.equal(address.searchParams.get('console'), 'boom', 'and carries the search')
  const match = tab.page.getByTestId('moments').locator('li', { hasText: 'Search match' })
  await match.first().waitFor()
  t.match(await match.first().textContent(), /console: Error: boom/, 'the match is a moment of the replay')
  t.equal(await tab.page.locator('.moments-strip .tick-match').count(), 1, 'and a mark on the timeline')

  // Settings: the capture form shows the project's settings and saves a change.
  await tab.page.goto(`${cluster.url}/app/#/p/${project.id}/settings`)
  const form = tab.page.getByTestId('capture-settings')
  await form.waitFor()
  t.ok(await form.locator('input[name="console"]').isChecked(), 'console capture shown on')
  t.ok(await form.locator('input[name="network"]').isChecked(), 'network capture shown on')
  await form.getByLabel('Sessions recorded (%)').fill('25')
  await form.getByLabel('Never record pages matching').fill('/account/*')
  await form.locator('input[name="network"]').uncheck()
  await form.getByRole('button', { name: 'Save recording settings' }).click()
  await form.getByText('Recording settings saved.').waitFor()
  const saved = (await api('/cli/projects.list', {})).projects.find((p: { id: string }) => p.id === project.id).capture
  t.match(saved, { sampleRate: 0.25, excludeUrls: ['/account/*'], console: true, network: false }, 'the API holds what the form saved')
  await form.locator('input[name="canvas"]').check()
  await form.getByLabel(/Canvas frames a second/).fill('1')
  await form.getByRole('button', { name: 'Save recording settings' }).click()
  await until('canvas capture saved', async () => (await api('/cli/projects.list', {})).projects.find((p: { id: string }) => p.id === project.id).capture.canvasFps === 1)
  t.match((await api('/cli/projects.list', {})).projects.find((p: { id: string }) => p.id === project.id).capture, { canvas: true, canvasFps: 1, canvasQuality: 0.6 }, 'canvas capture on, at the rate the form set')
  await form.locator('textarea[name="frameParents"]').fill('https://shop.example\n')
  await form.getByRole('button', { name: 'Save recording settings' }).click()
  await until('frame parents saved', async () => (await api('/cli/projects.list', {})).projects.find((p: { id: string }) => p.id === project.id).capture.frameParents.length === 1)
  t.same((await api('/cli/projects.list', {})).projects.find((p: { id: string }) => p.id === project.id).capture.frameParents, ['https://shop.example'], 'the frame parents the form saved')
  await form.getByLabel('Never record pages matching').fill('/a/*/b')
  await form.getByRole('button', { name: 'Save recording settings' }).click()
  t.match(await form.getByRole('alert').textContent(), /\/a\/\*\/b/, 'the refused pattern is named')
  t.pass('a pattern that does not compile is refused with a message')
  await shoot(tab.page, '36-settings-capture')

  // Settings: the storage card says what the project holds and what a recorded minute costs, and saves a shorter retention.
  const storage = tab.page.getByTestId('storage-settings')
  await storage.getByTestId('storage-figures').waitFor()
  t.match(await storage.getByTestId('bytes-per-minute').textContent(), /^\d+(\.\d)? (bytes|KB|MB)$/, 'the cost of a recorded minute')
  await storage.getByLabel(/Keep recordings/).fill('7')
  await storage.getByRole('button', { name: 'Save retention' }).click()
  await storage.getByText('Retention saved.').waitFor()
  t.equal((await api('/cli/projects.list', {})).projects.find((p: { id: string }) => p.id === project.id).retentionDays, 7, 'the API holds the saved retention')
  await storage.getByLabel(/Keep recordings/).fill('400')
  await storage.getByRole('button', { name: 'Save retention' }).click()
  t.match(await storage.getByRole('alert').textContent(), /RETENTION_DAYS/, 'more than the deployment keeps is refused, and says why')
})
