/**
 * The replay's console and network panels, from a real recording: the tracker
 * records a page of a project with console and network capture on, and the
 * dashboard's replay lists its console lines and requests beside the player,
 * marks console errors and failed requests on the timeline, and jumps the
 * player to a line that is clicked.
 */
import t from 'tap'
import { fixtureServer, flushTracker, launchBrowser, storedChunks, trackerStarted, until } from '../helpers/browser.js'
import { clusterFor } from '../helpers/cluster.js'
import { openDashboard, ownerSession, shoot } from '../helpers/dashboard.js'
import { storeAt } from '../helpers/seed.js'

t.test('console and network panels in the replay', async (t) => {
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
})
