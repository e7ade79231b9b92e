/**
 * The overview in Chromium (issue 35): a project with two months of traffic
 * opens on it; its figures are the API's, each with a drawn chart; the device
 * filter changes them; the top pages link to their heatmap and sessions; an
 * empty period says so. Screenshots 50-overview (a month, laptop) and
 * 51-overview-phone.
 */
import t from 'tap'
import { launchBrowser, until } from '../helpers/browser.js'
import { clusterFor } from '../helpers/cluster.js'
import { openDashboard, ownerSession, PHONE, shoot, signedInApi } from '../helpers/dashboard.js'
import { seedMonths } from '../helpers/overview-month.js'
import { storeAt } from '../helpers/seed.js'

const DAY_MS = 24 * 60 * 60 * 1000

t.test('the overview shows the API\'s figures with charts, filters by device, and links its top pages', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const session = await ownerSession(cluster.url)
  const api = signedInApi(cluster.url, session)
  const { project } = await api('/cli/projects.create', { name: 'Shoe shop', domain: 'shop.test' })
  const store = storeAt(cluster.dataDir)
  t.teardown(() => store.close())
  const sessions = await seedMonths(store, project.id, Date.now())
  await until('the fold thread folded the two months', () => store.derivationLag() === 0, 60_000)
  const browser = await launchBrowser(t)

  const tab = await openDashboard(browser, cluster.url, { session })
  t.teardown(tab.close)
  const { page } = tab
  await page.getByRole('link', { name: 'Shoe shop' }).click()
  await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Overview', exact: true }).waitFor()
  t.equal(await page.getByRole('link', { name: 'Overview', exact: true }).getAttribute('aria-current'), 'page', 'a project opens on its overview')

  await page.locator('#overview-period').selectOption('30d')
  const sessionsCard = page.getByTestId('metric-sessions')
  const now = Date.now()
  const expected = await api('/cli/overview.get', { projectId: project.id, since: now - 30 * DAY_MS, until: now })
  t.ok(expected.metrics.sessions.value > 500 && expected.metrics.sessions.value < sessions, `${expected.metrics.sessions.value} sessions in the last 30 days of ${sessions}`)
  await until('the 30-day figures', async () => (await sessionsCard.getByTestId('value').textContent()) === expected.metrics.sessions.value.toLocaleString('en-US'))
  t.equal(await page.getByTestId('metric-visitors').getByTestId('value').textContent(), expected.metrics.visitors.value.toLocaleString('en-US'))
  t.equal(await page.getByTestId('metric-rage').getByTestId('value').textContent(), `${(expected.metrics.rage.value * 100).toFixed(1)}%`)
  t.equal(await page.getByTestId('metric-pagesPerSession').getByTestId('value').textContent(), expected.metrics.pagesPerSession.value.toFixed(2))
  t.match(await page.getByTestId('metric-sessions').locator('.change').textContent(), /^[▲▼] \d+%$/, 'the change against the 30 days before')
  await until('every chart drawn', async () => (await page.locator('.metric .uplot canvas').count()) === 10)

  const rage = page.getByTestId('top-rage')
  t.match(await rage.locator('li').first().textContent(), /\/checkout/, 'the checkout leads the rage clicks')
  t.match(await rage.getByRole('link', { name: 'Heatmap of /checkout' }).getAttribute('href'), /heatmaps\?page=%2Fcheckout&kind=rage/)
  t.match(await rage.getByRole('link', { name: 'Sessions on /checkout' }).getAttribute('href'), /sessions\?page=%2Fcheckout&rage=1/)
  const shot = await shoot(page, '50-overview')
  t.comment(`screenshot: ${shot}`)

  await page.locator('#overview-device').selectOption('mobile')
  const phones = await api('/cli/overview.get', { projectId: project.id, since: now - 30 * DAY_MS, until: now, device: 'mobile' })
  t.ok(phones.metrics.sessions.value < expected.metrics.sessions.value)
  await until('the phones\' figures', async () => (await sessionsCard.getByTestId('value').textContent()) === phones.metrics.sessions.value.toLocaleString('en-US'))

  await page.getByRole('link', { name: 'Heatmap of /checkout' }).first().click()
  await page.waitForURL(/#\/p\/[^/]+\/heatmaps\?page=%2Fcheckout/)
  t.pass('a top page opens its heatmap')

  const phone = await openDashboard(browser, cluster.url, { session, viewport: PHONE })
  t.teardown(phone.close)
  await phone.page.goto(`${cluster.url}/app/#/p/${project.id}/overview?period=7d`)
  await until('the phone\'s charts', async () => (await phone.page.locator('.metric .uplot canvas').count()) === 10)
  await shoot(phone.page, '51-overview-phone')

  // The promotion ended 40 days ago: no sessions in the last 7 days, an empty state, and no chart drawn over nothing.
  await page.goto(`${cluster.url}/app/#/p/${project.id}/overview?period=7d&page=%2Fpromo`)
  await page.getByRole('heading', { name: 'No sessions in this period' }).waitFor()
  t.equal(await sessionsCard.getByTestId('value').textContent(), '0')
  t.equal(await page.locator('.metric .uplot').count(), 0)
  t.equal(await page.locator('.chart-empty').first().textContent(), 'No data in this period')
  t.same([...tab.problems, ...phone.problems], [], 'no console errors, page errors or CSP violations')
})
