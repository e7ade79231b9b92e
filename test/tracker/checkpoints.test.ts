/**
 * Checkpoints (issue 33): past CHECKPOINT_MS since the last full snapshot,
 * rrweb takes a new one at the next change, and it starts a chunk of its own
 * whose meta says `checkpoint`, so a long session can be read from any point
 * (sessions.events `from`) without the hours before it. The page's clock is
 * Playwright's, fast-forwarded past the interval.
 */
import t from 'tap'
import { CHECKPOINT_MS } from '../../tracker/src/config.js'
import { flushTracker, openPage, storedChunks, trackerStarted, until } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'

t.test('a session older than the interval gets a new full snapshot, which opens a checkpoint chunk', async (t) => {
  const { seeded, store, fixtures, browser } = await recordingHarness(t)
  const visitor = await openPage(browser, { noIdle: true })
  t.teardown(visitor.close)
  await visitor.page.clock.install()
  await visitor.page.goto(`${fixtures.url}/replay.html`, { waitUntil: 'load' })
  await visitor.page.mouse.move(400, 300)
  await trackerStarted(visitor.page)
  await visitor.page.locator('#search').pressSequentially('red')
  await visitor.page.clock.fastForward(CHECKPOINT_MS + 60_000)
  await visitor.page.click('#ship')
  await visitor.page.locator('#search').pressSequentially(' shoes')
  await flushTracker(visitor.page)
  const sk = (await visitor.page.evaluate('window.svc("stats").sk')) as string
  const infos = await until('two checkpoint chunks', () => {
    const listed = store.listChunks(seeded.project.id, sk)
    return listed.filter((c) => c.checkpoint).length >= 2 && listed
  })
  const chunks = storedChunks(store, seeded.project.id).filter((c) => c.sk === sk)
  for (const info of infos) {
    const chunk = chunks.find((c) => c.seq === info.seq)!
    if (info.checkpoint) t.same(chunk.events.slice(0, 2).map((e) => e.type), [4, 2], `chunk ${info.seq}, a checkpoint, opens with Meta and the full snapshot`)
    else t.notOk(chunk.events.some((e) => e.type === 2), `chunk ${info.seq} holds no full snapshot`)
  }
  const second = infos.filter((c) => c.checkpoint)[1]
  const after = chunks.filter((c) => c.seq >= second.seq).flatMap((c) => c.events)
  t.ok(after.some((e) => e.type === 3), 'the changes after the checkpoint follow it')
  t.same(visitor.pageErrors, [], 'no error reached the page')
})
