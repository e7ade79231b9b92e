/**
 * A long recording streams in the dashboard's replay: the controls span the
 * whole session from the first frame, only the part around the playhead is
 * fetched (sessions.events with `from` and `until`, never the whole
 * recording), a seek far ahead loads the part that holds the target, and
 * playing across a checkpoint goes on into the next part.
 */
import t from 'tap'
import type { Request } from 'playwright-core'
import { launchBrowser, until } from '../helpers/browser.js'
import { clusterFor } from '../helpers/cluster.js'
import { openDashboard, ownerSession, shoot } from '../helpers/dashboard.js'
import { clockText, postLongRecording } from '../helpers/long-recording.js'

/** Minutes and seconds of an "At m:ss" heading. */
const secondsOf = (text: string) => {
  const m = /At (\d+):(\d\d)/.exec(text)
  return m ? Number(m[1]) * 60 + Number(m[2]) : -1
}

t.test('a 24-minute recording streams part by part', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const session = await ownerSession(cluster.url)
  const headers = { cookie: `svc_session=${session}`, 'content-type': 'application/json' }
  const csrf = (await (await fetch(`${cluster.url}/api/v1/auth/state`, { headers })).json()).csrfToken
  const create = await fetch(`${cluster.url}/api/v1/cli/projects.create`, { method: 'POST', headers: { ...headers, 'x-csrf-token': csrf }, body: JSON.stringify({ name: 'Kiosk' }) })
  const { project } = await create.json()
  const recording = await postLongRecording(cluster.url, project.publicKey, 'long-1', {
    minutes: 24,
    checkpointMinutes: 6,
    // The chunk at 21:00 says it holds two console errors: the timeline marks them before their part is read.
    meta: (at) => (at === 21 * 60_000 ? { consoleErrors: 2 } : {}),
  })
  t.equal(recording.checkpoints.length, 4, 'four checkpoints, one every 6 minutes')

  const browser = await launchBrowser(t)
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
