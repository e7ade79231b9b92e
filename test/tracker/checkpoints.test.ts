/**
 * Checkpoints (issue 33): past CHECKPOINT_MS since the last full snapshot,
 * rrweb takes a new one at the next change, and it starts a chunk of its own
 * whose meta says `checkpoint`, so a long session can be read from any point
 * (sessions.events `from`) without the hours before it. The page's clock is
 * Playwright's, fast-forwarded past the interval.
 *
 * Added nodes are written once per page view and named by index in later
 * chunks (tracker/src/compact.ts, issue 47); the dictionary restarts at each
 * checkpoint. The events API answers the events the tracker serialized from
 * rrweb, identical, for the whole session and for the part read from the
 * second checkpoint alone.
 */
import t from 'tap'
import { CHECKPOINT_MS } from '../../tracker/src/config.js'
import { call } from '../helpers/api.js'
import { flushTracker, openPage, storedChunks, trackerStarted, until } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'

t.test('a session older than the interval gets a new full snapshot, which opens a checkpoint chunk', async (t) => {
  const { cluster, seeded, store, fixtures, browser } = await recordingHarness(t)
  const visitor = await openPage(browser, { noIdle: true })
  t.teardown(visitor.close)
  // Every event as the tracker serializes it from rrweb, before it writes adds compactly: what the events API must answer.
  await visitor.page.addInitScript(`{
    const stringify = JSON.stringify
    window.serialized = []
    JSON.stringify = function (value, ...rest) {
      const text = stringify.call(this, value, ...rest)
      if (value && typeof value.type === 'number' && typeof value.timestamp === 'number' && value.data && !('a' in value.data || 'A' in value.data)) window.serialized.push(text)
      return text
    }
  }`)
  // A list rendered again and again, in chunks of its own: the same nodes under new ids.
  const rerender = (n: number) =>
    visitor.page.evaluate(`{
      const list = document.getElementById('churn') || document.body.appendChild(Object.assign(document.createElement('ul'), { id: 'churn' }))
      list.innerHTML = Array.from({ length: 6 }, (_, i) => '<li class="churn-row"><b>row ' + i + '</b> ${n % 2 ? 'odd' : 'even'}</li>').join('')
    }`)
  await visitor.page.clock.install()
  await visitor.page.goto(`${fixtures.url}/replay.html`, { waitUntil: 'load' })
  await visitor.page.mouse.move(400, 300)
  await trackerStarted(visitor.page)
  await visitor.page.locator('#search').pressSequentially('red')
  const sk = (await visitor.page.evaluate('window.svc("stats").sk')) as string
  const count = () => store.listChunks(seeded.project.id, sk).length
  // Each in a chunk of its own, stored (so acknowledged) before the next is written: the next names its nodes.
  const rerenderAndSend = async (n: number) => {
    const before = count()
    await rerender(n)
    await flushTracker(visitor.page)
    await until(`chunk ${before + 1} stored`, () => count() > before)
  }
  for (let n = 0; n < 3; n++) await rerenderAndSend(n)
  await visitor.page.clock.fastForward(CHECKPOINT_MS + 60_000)
  await visitor.page.click('#ship')
  await visitor.page.locator('#search').pressSequentially(' shoes')
  await flushTracker(visitor.page)
  await until('the checkpoint stored', () => store.listChunks(seeded.project.id, sk).filter((c) => c.checkpoint).length >= 2)
  for (let n = 3; n < 5; n++) await rerenderAndSend(n)
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

  const texts = chunks.map((c) => c.text)
  const named = texts.filter((text) => text.includes('"A":[') && !text.includes('churn-row'))
  t.ok(named.length >= 2, `${named.length} chunks re-render the list naming its nodes by index, before and after the checkpoint`)
  t.ok(texts.filter((text) => text.includes('churn-row')).length >= 2, 'which the first chunk of each dictionary wrote whole (once before the checkpoint, once after)')
  const serialized = ((await visitor.page.evaluate('window.serialized')) as string[]).map((e) => JSON.parse(e))
  const read = await call(cluster.url, '/cli/sessions.events', { token: seeded.apiKey, body: { projectId: seeded.project.id, sessionKey: sk } })
  t.equal(read.status, 200)
  const events = read.body as any[]
  t.ok(events.length > 20, `${events.length} events read back`)
  t.same(events, serialized.slice(0, events.length), 'the events API answers the events rrweb recorded, every add put back')
  const part = await call(cluster.url, '/cli/sessions.events', { token: seeded.apiKey, body: { projectId: seeded.project.id, sessionKey: sk, from: second.firstTs + 1 } })
  t.equal(part.status, 200)
  const partEvents = part.body as any[]
  t.same(partEvents.map((e) => e.type).slice(0, 2), [4, 2], 'the part read from the second checkpoint opens with its Meta and full snapshot')
  t.same(partEvents, events.slice(events.length - partEvents.length), 'and reads on its own the same events as the whole')
  const missing = await call(cluster.url, '/cli/sessions.events', { token: seeded.apiKey, body: { projectId: seeded.project.id, sessionKey: 'no-such-session' } })
  t.same([missing.status, (missing.body as { code?: string }).code], [404, 'not_found'], 'an unknown session: 404 not_found')
  t.same(visitor.pageErrors, [], 'no error reached the page')
})
