/**
 * The real tracker in Chromium, followed live: while nobody follows its
 * session it sends chunks every 10 s as before; once a follow is open, its
 * next chunk is answered `watched` and it sends every 1.5 s, and the DOM
 * changes the page makes reach the follower a second or two later; when the
 * follow closes, it goes back to 10 s. Asserted from the requests it sends.
 */
import t from 'tap'
import { flushTracker, until } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'

t.test('the tracker sends every 1.5 s only while its session is followed', async (t) => {
  const { cluster, seeded, record } = await recordingHarness(t)
  const { tab, page, sk } = await record(t, '/basic.html')
  const posts: Array<{ at: number; watched: boolean }> = []
  page.on('response', async (response) => {
    if (!response.url().includes('/api/ingest') || response.request().method() !== 'POST') return
    const answer = await response.json().catch(() => ({}))
    posts.push({ at: Date.now(), watched: answer.watched === true })
  })
  // The page changes every 250 ms: there is always something to send.
  await page.evaluate(`setInterval(() => { document.body.dataset.tick = String(Date.now()) }, 250)`)
  await flushTracker(page)
  await until('the first chunk answered', () => posts.length > 0)

  const quiet = async (ms: number) => {
    const from = posts.length
    await new Promise((resolve) => setTimeout(resolve, ms))
    return posts.length - from
  }
  t.ok((await quiet(4_000)) <= 1, 'unfollowed: at most one chunk in 4 s (every 10 s)')

  const controller = new AbortController()
  const feed = await fetch(`${cluster.url}/api/v1/cli/sessions.follow`, {
    method: 'POST',
    headers: { authorization: `Bearer ${seeded.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ projectId: seeded.project.id, sessionKey: sk }),
    signal: controller.signal,
  })
  t.equal(feed.status, 200)
  const lines: any[] = []
  void (async () => {
    let rest = ''
    try {
      for await (const piece of feed.body as unknown as AsyncIterable<Uint8Array>) {
        const parts = (rest + Buffer.from(piece).toString()).split('\n')
        rest = parts.pop()!
        lines.push(...parts.map((part) => JSON.parse(part)))
      }
    } catch {
      // the follow closed by the test
    }
  })()
  // The board tells the fronts within a second; the tracker learns it from its next chunk's answer.
  await new Promise((resolve) => setTimeout(resolve, 1_200))
  await flushTracker(page)
  await until('a chunk answered watched', () => posts.some((p) => p.watched), 10_000)
  const watchedFrom = posts.length
  const sent = await quiet(4_500)
  t.ok(sent >= 2, `followed: ${sent} chunks in 4.5 s`)
  t.ok(posts.slice(watchedFrom).every((p) => p.watched), 'each answered watched')
  const ticks = lines.filter((l) => l.type === 3 && l.data?.attributes?.some?.((a: any) => a.attributes?.['data-tick']))
  t.ok(ticks.length > 0, `the page's changes reached the follower (${ticks.length} mutations)`)

  controller.abort()
  await until('an answer no longer watched', () => posts.at(-1)?.watched === false, 10_000)
  t.ok((await quiet(4_000)) <= 1, 'unfollowed again: back to every 10 s')
  t.equal(tab.pageErrors.length, 0, 'no page errors')
})
