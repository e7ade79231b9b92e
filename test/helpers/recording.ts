/**
 * What every tracker test starts from: a real cluster with a seeded project,
 * its store opened for reading back what was recorded, the fixture site
 * serving pages with the project's snippet, and Debian's Chromium.
 */
import { fixtureServer, launchBrowser, openPage, storedSignals, trackerStarted } from './browser.js'
import { clusterFor } from './cluster.js'
import { seedProject, storeAt } from './seed.js'

export async function recordingHarness(t: Parameters<typeof clusterFor>[0]) {
  const cluster = await clusterFor(t, { workers: 1 })
  const seeded = await seedProject(cluster.dataDir)
  const projectId = seeded.project.id
  const store = storeAt(cluster.dataDir)
  t.teardown(() => store.close())
  const fixtures = await fixtureServer(t, { clusterUrl: cluster.url, publicKey: seeded.project.publicKey })
  const browser = await launchBrowser(t)
  /** The signal batches stored for session `sk`. */
  const batchesOf = (sk: string) => storedSignals(store, projectId).filter((b) => b.sk === sk)
  /**
   * Opens a fixture page (`path`, e.g. `/basic.html`) in a fresh tab without
   * browser idle time, moves the mouse so the tracker loads, and waits until
   * it records; the tab closes with the test.
   */
  const record = async (t: Parameters<typeof clusterFor>[0], path: string) => {
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    const { page } = tab
    await page.goto(`${fixtures.url}${path}`, { waitUntil: 'load' })
    await page.mouse.move(5, 5)
    await trackerStarted(page)
    const sk = (await page.evaluate('window.svc("stats").sk')) as string
    return { tab, page, sk }
  }
  return { cluster, seeded, projectId, store, fixtures, browser, batchesOf, record }
}
