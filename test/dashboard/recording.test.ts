/**
 * A real session, recorded by the tracker on a fixture shop page in one
 * browser, then looked at in the dashboard in another: it is listed with the
 * visitor's identity, its replay renders the recorded page in rrweb-player
 * with its friction as moments on the timeline, the heatmap shows the clicks
 * over the page rebuilt from its DOM snapshot, the element leaderboard names
 * the clicked elements, the friction feed links to the replay at the
 * moment of each item, and a search by the element clicked opens the replay at
 * that click with the match marked on its timeline.
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import t from 'tap'
import { PNG } from 'pngjs'
import type { Page, Response } from 'playwright-core'
import { snippetFor } from '../../src/install/snippet.js'
import { flushTracker, launchBrowser, trackerStarted, until } from '../helpers/browser.js'
import { clusterFor, ROOT } from '../helpers/cluster.js'
import { openDashboard, ownerSession, PHONE, shoot } from '../helpers/dashboard.js'
import { gzipBomb } from '../helpers/gzip-bomb.js'
import { postChunk, postSignals } from '../helpers/read.js'

const SHOP = readFileSync(join(ROOT, 'test', 'fixtures', 'dashboard', 'shop.html'), 'utf8')
/** The fixture's hero block, #ff6a00. */
const HERO = [255, 106, 0]

/** Serves the fixture shop at every path (/acme/products/42 …), with the project's snippet in it. */
async function shopSite(t: { teardown(fn: () => unknown): void }, clusterUrl: string, publicKey: string): Promise<string> {
  const page = SHOP.replace('{{SNIPPET}}', snippetFor(publicKey, clusterUrl))
  const server = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const address = server.address()
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
}

/** Calls the API as the signed-in dashboard does (cookie and CSRF token), from the test process. */
function apiAs(clusterUrl: string, session: string) {
  let csrf: string | undefined
  return async (route: string, body: unknown = {}): Promise<any> => {
    csrf ??= (await (await fetch(`${clusterUrl}/api/v1/auth/state`, { headers: { cookie: `svc_session=${session}` } })).json()).csrfToken
    const res = await fetch(`${clusterUrl}/api/v1${route}`, { method: 'POST', headers: { cookie: `svc_session=${session}`, 'x-csrf-token': csrf!, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return res.json()
  }
}

/** Share of a screenshot's pixels within a small distance of `rgb`. */
function shareOf(png: Buffer, rgb: number[]): number {
  const image = PNG.sync.read(png)
  let hits = 0
  for (let i = 0; i < image.data.length; i += 4) {
    if (Math.abs(image.data[i] - rgb[0]) + Math.abs(image.data[i + 1] - rgb[1]) + Math.abs(image.data[i + 2] - rgb[2]) < 40) hits++
  }
  return hits / (image.width * image.height)
}

/** The player's current time once it has moved off zero, in seconds (it shows mm:ss). */
function playerSeconds(page: Page): Promise<number> {
  return until('the player to reach the moment', async () => {
    const text = (await page.locator('.rr-timeline__time').first().textContent())?.trim() ?? ''
    const [m, s] = text.split(':').map(Number)
    const seconds = m * 60 + s
    return seconds > 0 ? seconds : false
  })
}

async function centreOf(page: Page, selector: string): Promise<{ x: number; y: number }> {
  return page.evaluate((s) => {
    const r = document.querySelector(s)!.getBoundingClientRect()
    return { x: r.left + r.width / 2 + scrollX, y: r.top + r.height / 2 + scrollY }
  }, selector)
}

t.test('a recorded session, seen in the dashboard', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const session = await ownerSession(cluster.url)
  const api = apiAs(cluster.url, session)
  const { project } = await api('/cli/projects.create', { name: 'Fixture Shop', domain: '127.0.0.1', pathRules: ['/{tenant}/products/*'] })
  const site = await shopSite(t, cluster.url, project.publicKey)
  const browser = await launchBrowser(t)

  // ---- the visitor: a real recording by the real tracker ----
  const visitor = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  t.teardown(() => visitor.close())
  const shop = await visitor.newPage()
  // Only the interaction loads the tracker (as in test/tracker/): if browser idle loaded it first, the
  // tracker would wait for the next interaction, and the one move below could fall between the two.
  await shop.addInitScript('window.requestIdleCallback = function () { return 0 }')
  const visitorErrors: string[] = []
  shop.on('pageerror', (e) => visitorErrors.push(e.message))
  await shop.goto(`${site}/acme/products/42`)
  await shop.mouse.move(200, 200)
  await trackerStarted(shop)
  const buy = await centreOf(shop, '#buy')
  const stars = await centreOf(shop, '#stars')
  // A visitor's pace, on the real clock of the tracker in this page: it decides a click's kind over 1 s windows
  // (a dead click is one nothing answers within 1 s), so the clicks are spaced as a person's would be.
  await shop.waitForTimeout(600)
  await shop.click('#buy')
  await shop.waitForTimeout(400) // #buy's answer (the cart) is recorded before the next click
  await shop.click('#coupon') // nothing answers it: a dead click
  await shop.waitForTimeout(1300) // #coupon's 1 s window runs out unanswered: a dead click
  for (let i = 0; i < 4; i++) await shop.click('#stars', { delay: 10 }) // four clicks in well under a second: rage
  await shop.waitForTimeout(300) // the visitor's pace (above)
  await shop.click('#pay') // throws: an error click and a JavaScript error
  await shop.waitForTimeout(400) // the visitor's pace (above)
  await shop.mouse.wheel(0, 900)
  await shop.waitForTimeout(1300) // the last clicks' 1 s windows close on the page's clock before the flush
  await flushTracker(shop)
  const sk = (await shop.evaluate('window.svc("stats").sk')) as string
  t.same(visitorErrors.filter((m) => !/checkoutNotDefined/.test(m)), [], 'the only page error is the fixture\'s own')

  // The server has it all once the session is listed and its friction is in the feed.
  await until('the session to be listed', async () => (await api('/cli/sessions.list', { projectId: project.id })).sessions?.some((s: any) => s.sessionKey === sk && s.rage > 0 && s.eventCount > 0), 15_000)
  await until('the friction feed', async () => (await api('/cli/friction.list', { projectId: project.id })).items?.some((i: any) => i.kind === 'jsError'), 15_000)
  // Leaving the page ends its view, which reports how far it was scrolled (the scroll map).
  await shop.goto('about:blank')
  await until('the scroll depth', async () => (await api('/cli/heatmap', { projectId: project.id, page: '/{tenant}/products/:id', kind: 'scroll' })).views > 0, 15_000)

  const tab = await openDashboard(browser, cluster.url, { session })
  t.teardown(tab.close)
  const { page } = tab
  const base = `${cluster.url}/app/#/p/${project.id}`

  await t.test('Sessions lists it newest first with the identity the page gave and its friction', async (t) => {
    await page.goto(`${base}/sessions`)
    const row = page.getByTestId('sessions').locator('tbody tr').first()
    await row.waitFor()
    t.match(await row.textContent(), /Ada Lovelace/, 'the identified user')
    t.match(await row.textContent(), /ada@shop\.test · account acme/, 'with email and account')
    t.match(await row.textContent(), /1 rage click.*1 error click.*1 JS error/, 'and its friction')
    await shoot(page, '30-sessions')
    await page.getByLabel('User id').fill('usr_nobody')
    await page.getByRole('button', { name: 'Filter' }).click()
    await page.getByRole('heading', { name: 'No sessions match' }).waitFor()
    t.ok(page.url().includes('user=usr_nobody'), 'filters live in the address')
    // A page of a search that ended at its read budget before any match (a large project): the server's answer stood in.
    await page.route('**/api/v1/cli/sessions.list', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ sessions: [], nextCursor: 'c1' }) }), { times: 1 })
    await page.getByLabel('User id').fill('usr_budget')
    await page.getByRole('button', { name: 'Filter' }).click()
    await page.getByRole('heading', { name: 'None found on this page' }).waitFor()
    t.ok(await page.getByRole('button', { name: 'Older' }).isEnabled(), 'an empty page that has a cursor says so, not "No sessions match", and Older looks further')
    await page.getByLabel('User id').fill('usr_42')
    await page.getByLabel('With rage clicks').check()
    await page.getByRole('button', { name: 'Filter' }).click()
    await page.getByTestId('sessions').locator('tbody tr', { hasText: 'Ada Lovelace' }).waitFor()
    t.pass('filtered by user and rage, the session is there')
  })

  await t.test('Replay plays the recorded page in rrweb-player, with the friction as moments', async (t) => {
    await page.goto(`${base}/sessions`)
    await page.getByTestId('sessions').getByRole('link', { name: 'Replay' }).first().click()
    const frame = page.frameLocator('.player-target iframe')
    await frame.getByRole('heading', { name: 'Trail Runner 42' }).waitFor()
    t.pass('the recorded page is rebuilt inside the player')
    const moments = await page.getByTestId('moments').locator('li').allTextContents()
    for (const kind of ['Rage click', 'Dead click', 'Error click']) t.ok(moments.some((m) => m.includes(kind)), `a ${kind} moment`)
    t.ok(moments.some((m) => /Apply coupon/.test(m)), 'the dead click names its element')
    t.ok(await page.locator('.rr-controller').isVisible(), 'the player has its controller (play/pause, speed, skip inactivity, timeline)')
    t.ok((await page.locator('.rr-progress__handler').count()) > 0)
    await page.waitForTimeout(300) // the first frame paints
    const shot = await page.getByTestId('player').screenshot()
    const orange = shareOf(shot, HERO)
    t.ok(orange > 0.03, `the screenshot shows the recorded page's hero block (${(orange * 100).toFixed(1)}% of the player)`)
    await shoot(page, '31-replay')
    const scripts = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.endsWith('.js')))
    t.ok(scripts.some((n) => /\/app\/player-/.test(n)), 'the player chunk loaded on this screen')
    t.notOk(scripts.some((n) => /\/app\/rebuild-/.test(n)), 'the heatmap chunk did not')
  })

  await t.test('the player chunk is not loaded by the other screens', async (t) => {
    const fresh = await openDashboard(browser, cluster.url, { session })
    t.teardown(fresh.close)
    await fresh.page.goto(`${base}/sessions`)
    await fresh.page.getByTestId('sessions').waitFor()
    const scripts = await fresh.page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.endsWith('.js')))
    t.notOk(scripts.some((n) => /\/app\/(player|rebuild)-/.test(n)), `only the dashboard's own modules: ${scripts.map((s) => s.split('/').pop()).join(', ')}`)
  })

  await t.test('Heatmaps draw the recorded clicks over the page rebuilt from its DOM snapshot', async (t) => {
    // An attacker plants the newest desktop session on that page: one event of a 70 KB chunk inflating to 70 MiB, past the 64 MiB inflate limit.
    const bomb = await gzipBomb('[{"type":4,"data":{"href":"x"},"timestamp":1},{"type":2,"data":{"pad":"', 70 * 1024 * 1024, '"},"timestamp":2}]')
    t.equal(await postChunk(cluster.url, project.publicKey, { sk: 'planted', seq: 0, encoding: 'gzip', url: `${site}/acme/products/43`, viewport: { w: 1280, h: 800 }, eventCount: 2 }, bomb), 200)
    const asked: { sessionKey: string; maxBytes?: number; answered?: number }[] = []
    const onResponse = async (response: Response) => {
      if (!response.url().endsWith('/cli/sessions.events')) return
      asked.push({ ...JSON.parse(response.request().postData() ?? '{}'), answered: (await response.body()).length })
    }
    page.on('response', onResponse)
    await page.goto(`${base}/heatmaps`)
    const summary = page.getByTestId('heat-summary')
    await until('the click heatmap', async () => /[1-9]\d* clicks? on/.test((await summary.textContent()) ?? ''))
    t.match(await summary.textContent(), /\/\{tenant\}\/products\/:id/, 'for the page the rules grouped')
    const frame = page.frameLocator('.heat-page iframe')
    await frame.getByRole('heading', { name: 'Trail Runner 42' }).waitFor()
    t.pass('the page is rebuilt from the recording')
    page.off('response', onResponse)
    t.equal(asked[0]?.sessionKey, 'planted', 'the planted session was tried first')
    t.ok(asked.every((a) => a.maxBytes === 24 * 1024 * 1024), `every sessions.events fetch asked for at most 24 MiB (${asked.map((a) => `${a.sessionKey}: ${a.answered} bytes`).join(', ')})`)
    t.ok(asked[0].answered! < 4096, 'the bomb came back as a few hundred bytes')
    const heatAt = (p: { x: number; y: number }) =>
      page.evaluate(({ x, y }) => {
        const canvas = document.querySelector<HTMLCanvasElement>('[data-testid="heat-canvas"]')!
        const k = canvas.width / parseFloat(canvas.style.width)
        return canvas.getContext('2d')!.getImageData(Math.round(x * k), Math.round(y * k), 1, 1).data[3]
      }, p)
    await until('heat to be painted', async () => (await heatAt(buy)) > 0)
    t.ok((await heatAt(buy)) > 0, 'heat where "Buy now" was clicked')
    t.equal(await heatAt({ x: 1200, y: 1900 }), 0, 'none where nobody clicked')
    await shoot(page, '32-heatmap-clicks')

    await page.getByText('Rage clicks', { exact: true }).click()
    await until('the rage heatmap', async () => /[1-9]\d* rage clicks? on/.test((await summary.textContent()) ?? ''))
    // The summary changes a frame or more before the canvas is repainted: wait for the rage map itself.
    await until('the rage map painted', async () => (await page.getByTestId('heat-canvas').getAttribute('data-painted')) === 'rage:desktop')
    t.ok((await heatAt(stars)) > 0, 'rage heat at the stars')
    t.equal(await heatAt(buy), 0, 'the rage map has no heat at "Buy now"')
    await shoot(page, '33-heatmap-rage')

    await page.getByText('Scroll depth', { exact: true }).click()
    await until('the scroll map', async () => /1 view with a scroll depth/.test((await summary.textContent()) ?? ''))
    await page.locator('.scroll-mark').first().waitFor()
    t.match(await page.locator('.scroll-mark').first().textContent(), /% of views reached here/, 'the depths are labelled in text')
    // The marks are text; the colour is drawn on the canvas a frame or more later.
    t.ok(await until('the scroll map drawn', async () => (await heatAt({ x: 640, y: 100 })) > 0), 'the top of the page is coloured')
    await shoot(page, '34-heatmap-scroll')

    await page.getByText('Mobile', { exact: true }).click()
    await until('the mobile scroll map', async () => /mobile/.test((await summary.textContent()) ?? ''))
    t.match(await summary.textContent(), /^No view of .* \(mobile\) has reported/, 'no view from a phone, and the screen says so')
    await page.getByText('Clicks', { exact: true }).click()
    await until('the mobile click map', async () => /clicks? on/.test((await summary.textContent()) ?? ''))
    t.match(await summary.textContent(), /^0 clicks on .* \(mobile\)/, 'no click from a phone')
  })

  await t.test('Elements ranks the clicked elements, each linking to the sessions that clicked it', async (t) => {
    // Another visitor of the same page, an hour earlier, who clicked "Buy now" and not the stars.
    const url = `${site}/acme/products/7`
    const startedAt = Date.now() - 3_600_000
    const chunk = Buffer.from('[{"type":3,"timestamp":1,"data":{}}]')
    t.equal(await postChunk(cluster.url, project.publicKey, { sk: 'other-visitor', seq: 0, url, startedAt, firstTs: startedAt, lastTs: startedAt + 5_000 }, chunk), 200)
    const clicks = [{ url, ts: startedAt + 1_000, xRatio: 0.5, yDoc: 300, selector: '#buy', tag: 'button', label: 'Buy now' }]
    t.equal(await postSignals(cluster.url, project.publicKey, { sk: 'other-visitor', vid: 'v-other', views: [{ url, startedAt }], clicks }), 200)

    await page.goto(`${base}/elements`)
    const table = page.getByTestId('elements')
    await table.waitFor()
    const rows = await table.locator('tbody tr').allTextContents()
    t.ok(rows.some((r) => r.includes('“Buy now”')), 'the buy button')
    const starRow = table.locator('tbody tr', { hasText: '#stars' })
    t.match(await starRow.textContent(), /#stars/, 'the stars, by selector')
    await shoot(page, '35-elements')
    await starRow.getByRole('link', { name: /^Sessions/ }).click()
    const clicked = page.getByTestId('element-clicks')
    await clicked.getByRole('link', { name: 'Watch that moment' }).waitFor()
    t.match(await clicked.textContent(), /Sessions that clicked .*#stars.*Rage click/, 'the rage clicks on the stars, each in its session')
    t.match(await clicked.getByRole('link', { name: 'Watch that moment' }).getAttribute('href'), new RegExp(`/replay/${sk}\\?t=\\d+`))
    const sessions = page.getByTestId('sessions').locator('tbody tr')
    await sessions.filter({ hasText: 'Ada Lovelace' }).waitFor()
    t.ok(page.url().includes('/sessions?page='), 'and below, the sessions that clicked it')
    t.equal(await sessions.count(), 1, 'only the session that clicked the stars, not the other visitor of the page')
    await shoot(page, '35b-element-sessions')

    await page.goBack()
    await table.locator('tbody tr', { hasText: '“Buy now”' }).getByRole('link', { name: /^Sessions/ }).click()
    await until('both sessions that clicked "Buy now"', async () => (await sessions.count()) === 2)
    t.match(await page.getByTestId('sessions').textContent(), /Ada Lovelace[\s\S]*Anonymous/, 'Ada, and the other visitor an hour before her')
    await shoot(page, '35c-element-sessions-buy')
  })

  await t.test('Friction lists rage, dead and error clicks and the JavaScript error, each opening the replay at its moment', async (t) => {
    await page.goto(`${base}/friction`)
    const feed = page.getByTestId('friction')
    await feed.waitFor()
    const items = await feed.locator('li').allTextContents()
    for (const kind of ['Rage click', 'Dead click', 'Error click', 'JavaScript error']) t.ok(items.some((i) => i.includes(kind)), kind)
    t.ok(items.some((i) => /checkoutNotDefined/.test(i)), 'the error message')
    await shoot(page, '36-friction')
    const rage = feed.locator('li', { hasText: 'Rage click' })
    const link = await rage.getByRole('link').getAttribute('href')
    const at = Number(new URL(`http://x/${link!.slice(2)}`).searchParams.get('t'))
    t.ok(link!.includes(`/replay/${sk}?t=`), 'the item links to the replay of its session at its time')
    await rage.getByRole('link').click()
    const frame = page.frameLocator('.player-target iframe')
    await frame.getByRole('heading', { name: 'Trail Runner 42' }).waitFor()
    // It opens a little before the moment and plays.
    const shown = await playerSeconds(page)
    const events = await api('/cli/sessions.events', { projectId: project.id, sessionKey: sk })
    const expected = (at - events[0].timestamp) / 1000
    t.ok(shown >= expected - 4 && shown <= expected + 6, `the replay opened near the rage click (at ${shown} s, the click at ${expected.toFixed(1)} s)`)
    await shoot(page, '37-replay-at-moment')
  })

  await t.test('Sessions searched by a clicked element open the replay at the matching click, marked on the timeline', async (t) => {
    await page.goto(`${base}/sessions`)
    await page.getByLabel('Clicked').fill('Pay')
    await page.getByRole('button', { name: 'Filter' }).click()
    const rows = page.getByTestId('sessions').locator('tbody tr')
    let asked = Date.now()
    await until('the search to narrow the list', async () => {
      if (!page.url().includes('clicked=Pay')) return false
      if ((await rows.count()) === 1) return true
      // Sessions by element come from the fold's index, behind the acknowledgement: asked again every 2 s, as a user would.
      if (Date.now() - asked > 2000) {
        asked = Date.now()
        await page.reload()
      }
      return false
    }).catch(async (error) => {
      // What the screen and the API held, for a failure seen only under the suite's load.
      const listed = await api('/cli/sessions.list', { projectId: project.id, clicked: 'Pay' })
      t.comment(`rows: ${JSON.stringify(await rows.allTextContents())}; ${page.url()}; sessions.list clicked=Pay: ${JSON.stringify(listed).slice(0, 2000)}`)
      throw error
    })
    t.match(await rows.first().textContent(), /Ada Lovelace/, 'the session that clicked "Pay", and neither the other visitor nor the planted one')
    t.match(await rows.first().getByTestId('match').textContent(), /First match \d+:\d\d: clicked Pay \(#pay\)/, 'the row says what matched and when')
    // The first matching moment is the click itself: the error click on #pay the friction feed holds.
    const listed = await api('/cli/sessions.list', { projectId: project.id, clicked: 'Pay' })
    const errorClick = (await api('/cli/friction.list', { projectId: project.id })).items.find((i: any) => i.kind === 'errorClick' && i.sessionKey === sk)
    t.same(listed.sessions[0].match, { ts: errorClick.ts, kind: 'click', label: 'Pay (#pay)' }, 'sessions.list: the click\'s own time')
    await shoot(page, '52-sessions-search-clicked')

    await rows.first().getByRole('link', { name: 'Replay' }).click()
    const frame = page.frameLocator('.player-target iframe')
    await frame.getByRole('heading', { name: 'Trail Runner 42' }).waitFor()
    const address = new URL(`http://x/${page.url().split('#/')[1]}`)
    t.equal(Number(address.searchParams.get('t')), errorClick.ts, 'the replay opens at the first matching moment')
    t.equal(address.searchParams.get('clicked'), 'Pay', 'and carries the search')
    const moments = page.getByTestId('moments').locator('li', { hasText: 'Search match' })
    await moments.first().waitFor()
    t.match(await moments.first().textContent(), /clicked: Pay \(#pay\)/, 'the match is a moment of the replay')
    t.equal(await page.locator('.moments-strip .tick-match').count(), 1, 'and a mark on the timeline')
    const shown = await playerSeconds(page)
    const events = await api('/cli/sessions.events', { projectId: project.id, sessionKey: sk })
    const expected = (errorClick.ts - events[0].timestamp) / 1000
    t.ok(shown >= expected - 4 && shown <= expected + 6, `the replay opened near the click (at ${shown} s, the click at ${expected.toFixed(1)} s)`)
    await shoot(page, '53-replay-search-match')
  })

  await t.test('on a phone, the replay and the heatmap fit the screen', async (t) => {
    const phone = await openDashboard(browser, cluster.url, { session, viewport: PHONE })
    t.teardown(phone.close)
    await phone.page.goto(`${base}/sessions`)
    // The start time links to the replay: on a phone it is on screen even when the last column is not.
    // (The session planted by the heatmap test is newer: the recorded one is picked by its replay address.)
    const replayLink = phone.page.getByTestId('sessions').locator(`a[href$="/replay/${sk}"]`).first()
    await replayLink.waitFor()
    const box = await replayLink.boundingBox()
    t.ok(box && box.x + box.width <= PHONE.width, 'sessions: the start time, a link to the recorded session\'s replay, is on screen')
    const listOverflow = await phone.page.evaluate((width) => document.documentElement.scrollWidth - width, PHONE.width)
    t.ok(listOverflow <= 0, `sessions: the page is not wider than the screen (${listOverflow} px over)`)
    await shoot(phone.page, '38a-phone-sessions')
    await phone.page.goto(`${base}/replay/${sk}`)
    await phone.page.frameLocator('.player-target iframe').getByRole('heading', { name: 'Trail Runner 42' }).waitFor()
    await phone.page.waitForTimeout(300) // the player scales its frame to the screen after the first frame is rebuilt
    const overflow = await phone.page.evaluate((width) => document.documentElement.scrollWidth - width, PHONE.width)
    t.ok(overflow <= 0, `replay: nothing wider than the screen (${overflow} px over)`)
    await shoot(phone.page, '38-phone-replay')
    await phone.page.goto(`${base}/heatmaps`)
    await phone.page.frameLocator('.heat-page iframe').getByRole('heading', { name: 'Trail Runner 42' }).waitFor()
    await phone.page.waitForTimeout(300) // the heatmap fits the rebuilt page to the screen in a later render
    const heatOverflow = await phone.page.evaluate((width) => document.documentElement.scrollWidth - width, PHONE.width)
    t.ok(heatOverflow <= 0, `heatmap: nothing wider than the screen (${heatOverflow} px over)`)
    await shoot(phone.page, '39-phone-heatmap')
    t.same(phone.problems, [])
  })

  t.same(tab.problems, [], 'no console errors, page errors or CSP violations in the dashboard')
})
