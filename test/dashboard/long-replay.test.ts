/**
 * Replays in the dashboard. A long recording streams: the controls span the
 * whole session from the first frame, only the part around the playhead is
 * fetched (sessions.events with `from` and `until`, never the whole
 * recording), a seek far ahead loads the part that holds the target, and
 * playing across a checkpoint goes on into the next part. And a replay loads
 * nothing from outside the recorded site (dashboard/src/player/confine.ts).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import t from 'tap'
import type { Request } from 'playwright-core'
import { launchBrowser, until } from '../helpers/browser.js'
import { clusterFor } from '../helpers/cluster.js'
import { openDashboard, ownerSession, shoot } from '../helpers/dashboard.js'
import { clockText, postLongRecording } from '../helpers/long-recording.js'
import { postChunk } from '../helpers/read.js'

const cluster = await clusterFor(t, { workers: 1 })
const session = await ownerSession(cluster.url)
const browser = await launchBrowser(t)

async function createProject(name: string): Promise<{ id: string; publicKey: string }> {
  const headers = { cookie: `svc_session=${session}`, 'content-type': 'application/json' }
  const csrf = (await (await fetch(`${cluster.url}/api/v1/auth/state`, { headers })).json()).csrfToken
  const create = await fetch(`${cluster.url}/api/v1/cli/projects.create`, { method: 'POST', headers: { ...headers, 'x-csrf-token': csrf }, body: JSON.stringify({ name }) })
  return (await create.json()).project
}

/** Minutes and seconds of an "At m:ss" heading. */
const secondsOf = (text: string) => {
  const m = /At (\d+):(\d\d)/.exec(text)
  return m ? Number(m[1]) * 60 + Number(m[2]) : -1
}

t.test('a 24-minute recording streams part by part', async (t) => {
  const project = await createProject('Kiosk')
  const recording = await postLongRecording(cluster.url, project.publicKey, 'long-1', {
    minutes: 24,
    checkpointMinutes: 6,
    // The chunk at 21:00 says it holds two console errors: the timeline marks them before their part is read.
    meta: (at) => (at === 21 * 60_000 ? { consoleErrors: 2 } : {}),
  })
  t.equal(recording.checkpoints.length, 4, 'four checkpoints, one every 6 minutes')

  const { page, problems } = await openDashboard(browser, cluster.url, { session })
  const asked: { from?: number; until?: number }[] = []
  page.on('request', (request: Request) => {
    if (request.url().endsWith('/cli/sessions.events')) asked.push(JSON.parse(request.postData() ?? '{}'))
  })
  const heading = () => page.frameLocator('.player-target iframe').locator('#title')

  await page.goto(`${cluster.url}/app/#/p/${project.id}/replay/${recording.sk}`)
  await heading().waitFor()
  t.equal(await heading().textContent(), clockText(0), 'the first frame is the recording\'s start')
  const time = await page.getByTestId('stream-time').textContent()
  t.match(time, /\/ 23:5\d$/, `the controls span the whole session: ${time}`)
  t.notOk(await page.locator('.rr-controller').isVisible(), 'rrweb-player\'s own timeline, which would span one part, is not shown')
  const marks = await page.getByTestId('moments').locator('li').allTextContents()
  t.ok(marks.some((m) => /21:00.*2 console errors here/.test(m)), `the console errors of a part not read yet are on the timeline: ${marks.join(' | ')}`)
  t.same(asked, [{ projectId: project.id, sessionKey: recording.sk, from: recording.checkpoints[0], until: recording.checkpoints[1] }], 'only the first part was fetched')

  // Seek to 20:02 on the whole session's scale: the part from the 18-minute checkpoint is fetched.
  await page.getByLabel('Position in the recording').evaluate((input: HTMLInputElement) => {
    input.value = String(20 * 60_000 + 2_000)
    input.dispatchEvent(new Event('change', { bubbles: true }))
  })
  const seeked = await until('the replay to show 20:00', async () => {
    const s = secondsOf((await heading().textContent()) ?? '')
    return s === 20 * 60 ? s : undefined
  })
  t.ok(seeked, `after the seek the page says ${clockText(seeked * 1000)}`)
  t.ok(asked.some((a) => a.from === recording.checkpoints[3]), 'the part from the last checkpoint was fetched for it')
  t.ok(asked.every((a) => a.from !== undefined && a.until !== undefined), 'no request asked for the whole recording')

  // Play at 8× from 11:52, just before the 12-minute checkpoint: the next part follows on its own.
  await page.getByLabel('Speed').selectOption('8')
  await page.getByLabel('Position in the recording').evaluate((input: HTMLInputElement) => {
    input.value = String(11 * 60_000 + 52_000)
    input.dispatchEvent(new Event('change', { bubbles: true }))
  })
  await until('the replay to show 11:50', async () => secondsOf((await heading().textContent()) ?? '') === 11 * 60 + 50 || undefined)
  await page.getByRole('button', { name: 'Play' }).click()
  const crossed = await until('the replay to pass the 12-minute checkpoint', async () => {
    const s = secondsOf((await heading().textContent()) ?? '')
    return s >= 12 * 60 + 5 ? s : undefined
  })
  t.ok(crossed > 12 * 60, `playing went on into the next part: ${clockText(crossed * 1000)}`)
  t.ok(asked.some((a) => a.from === recording.checkpoints[2]), 'the part from the 12-minute checkpoint was fetched')
  await shoot(page, '50-long-replay')
  t.same(problems, [], 'no page errors')
})

/** A loopback server that counts what it is asked for, with each request's headers. */
async function watched(t: { teardown(fn: () => unknown): void }) {
  const hits: Array<{ path: string; headers: IncomingHttpHeaders }> = []
  const server = createServer((req, res) => {
    hits.push({ path: req.url ?? '', headers: req.headers })
    // A 1×1 GIF: enough for an image to count as loaded.
    res.writeHead(200, { 'content-type': 'image/gif' }).end(Buffer.from('R0lGODlhAQABAAAAACwAAAAAAQABAAACAA==', 'base64'))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const address = server.address()
  return { origin: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, hits }
}

/**
 * A page whose recorded CSS reaches another origin every way CSS can: a
 * background, a web font, and an attribute selector that would fetch one
 * prefix of an input's value; and an image of its own site, which must load.
 */
function hostilePage(site: string, elsewhere: string, tag: string, firstId: number) {
  let id = firstId
  const el = (tagName: string, attributes: Record<string, string | number>, childNodes: unknown[] = []) => ({ type: 2, id: id++, tagName, attributes, childNodes })
  const css = [
    `body { background: url(${elsewhere}/${tag}-background.png) }`,
    `@font-face { font-family: leak; src: url(${elsewhere}/${tag}-font.woff) }`,
    `h1 { font-family: leak }`,
    `input[value^="s"] { background-image: url(${elsewhere}/${tag}-value-starts-with-s) }`,
  ].join('\n')
  const head = el('head', {}, [el('style', { _cssText: css })])
  const body = el('body', {}, [
    el('h1', {}, [{ type: 3, id: id++, textContent: `Confined ${tag}` }]),
    el('input', { value: 'secret' }),
    el('img', { src: `${site}/${tag}-logo.gif`, width: 10, height: 10 }),
    el('img', { src: `${elsewhere}/${tag}-pixel.gif`, width: 10, height: 10 }),
  ])
  return { type: 0, id: firstId - 1, childNodes: [el('html', {}, [head, body])] }
}

t.test('a replay loads only from the recorded site: recorded CSS that reaches another origin sends nothing there, and nothing names the dashboard', async (t) => {
  const project = await createProject('Confined')
  const site = await watched(t)
  const elsewhere = await watched(t)
  const start = Date.now() - 60_000
  // Two page loads, each a full snapshot: rrweb rebuilds the second with document.open(), which the frame's policy must outlast.
  const events = [
    { type: 4, data: { href: `${site.origin}/`, width: 800, height: 600 }, timestamp: start },
    { type: 2, data: { node: hostilePage(site.origin, elsewhere.origin, 'first', 2), initialOffset: { left: 0, top: 0 } }, timestamp: start + 1 },
    { type: 4, data: { href: `${site.origin}/next`, width: 800, height: 600 }, timestamp: start + 1_500 },
    { type: 2, data: { node: hostilePage(site.origin, elsewhere.origin, 'second', 2), initialOffset: { left: 0, top: 0 } }, timestamp: start + 1_501 },
    { type: 3, data: { source: 1, positions: [{ x: 5, y: 5, id: 2, timeOffset: 0 }] }, timestamp: start + 2_500 },
  ]
  const meta = { sk: 'confined', seq: 0, firstTs: start, lastTs: start + 2_500, eventCount: events.length, url: `${site.origin}/` }
  t.equal(await postChunk(cluster.url, project.publicKey, meta, Buffer.from(JSON.stringify(events))), 200)

  const { page, problems } = await openDashboard(browser, cluster.url, { session })
  await page.goto(`${cluster.url}/app/#/p/${project.id}/replay/confined`)
  await until('the first page\'s own image loaded', () => site.hits.some((h) => h.path === '/first-logo.gif'))
  await page.locator('.rr-controller__btns button').first().click()
  await until('the second page\'s own image loaded, after rrweb rebuilt the frame', () => site.hits.some((h) => h.path === '/second-logo.gif'))
  // The replay has drawn both pages; give the font and the selector's background one more frame to be asked for.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))))
  t.same(elsewhere.hits.map((h) => h.path), [], 'nothing was asked of the other origin')
  t.same(site.hits.map((h) => h.headers.referer), site.hits.map(() => undefined), 'no request from the replay names the dashboard')
  const refused = problems.filter((p) => p.includes(elsewhere.origin))
  t.ok(refused.length >= 2 && refused.every((p) => /Content Security Policy|CSP violation/.test(p)), `the browser refused them under the replay's policy (${refused.length} refusals)`)
  t.same(problems.filter((p) => !p.includes(elsewhere.origin)), [], 'and nothing else went wrong')
})
