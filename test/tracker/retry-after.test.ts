/**
 * A chunk answered 429 overloaded is kept and sent again after Retry-After:
 * the service stored nothing and asks for the same bytes later.
 * The first two uploads of the first chunk are answered 429 with
 * Retry-After: 3 (as the front answers, Retry-After exposed to the page's
 * origin); the third reaches the real server, which stores it exactly once.
 * And a signals batch the server took but whose answer was lost is sent again
 * under its batchId and stored once.
 */
import t from 'tap'
import { flushTracker, until } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'

const CORS = { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'access-control-allow-methods': 'POST, OPTIONS' }
const REFUSALS = 2
const RETRY_AFTER_S = 3

t.test('a chunk answered 429 is sent again after Retry-After, the same bytes under the same seq, and stored once', async (t) => {
  const { seeded, store, cluster, record } = await recordingHarness(t)
  const { tab, page, sk } = await record(t, '/basic.html')
  const posts: { seq: number; at: number; body: Buffer }[] = []
  let refused = 0
  let first: number | undefined
  await page.route(`${cluster.url}/api/ingest**`, async (route) => {
    const request = route.request()
    if (request.method() === 'OPTIONS') return route.fulfill({ status: 204, headers: CORS })
    const { seq } = JSON.parse((await request.headerValue('x-svc-meta')) ?? '{}')
    first ??= seq
    if (seq !== first) return route.continue()
    posts.push({ seq, at: Date.now(), body: request.postDataBuffer() ?? Buffer.alloc(0) })
    if (refused++ >= REFUSALS) return route.continue()
    return route.fulfill({
      status: 429,
      headers: { ...CORS, 'access-control-expose-headers': 'X-Svc-Encoding, Content-Length, Retry-After', 'content-type': 'application/json', 'retry-after': String(RETRY_AFTER_S) },
      body: JSON.stringify({ ok: false, code: 'overloaded', error: 'The write queue is full; nothing was stored.' }),
    })
  })
  await page.click('#grow')
  void flushTracker(page).catch(() => undefined)

  const stored = await until('the refused chunk stored', () => store.listChunks(seeded.project.id, sk).find((c) => c.seq === first))
  t.equal(posts.length, REFUSALS + 1, 'sent until it was acknowledged, and no more')
  // Without Retry-After the first retry waits at most 1.5 s (1 s backoff + 50% jitter).
  t.ok(posts[1].at - posts[0].at >= RETRY_AFTER_S * 1000 - 100, `the first retry waited Retry-After (${posts[1].at - posts[0].at} ms)`)
  t.ok(posts[2].at - posts[1].at >= RETRY_AFTER_S * 1000 - 100, `so did the second (${posts[2].at - posts[1].at} ms)`)
  t.ok(posts.every((p) => p.body.equals(posts[0].body)), 'the same bytes each time')
  t.equal(Buffer.compare(Buffer.from(store.getChunk(seeded.project.id, sk, stored.seq)!), posts[0].body), 0, 'stored byte-identical')
  t.equal(store.listChunks(seeded.project.id, sk).filter((c) => c.seq === first).length, 1, 'stored once')
  const stats = (await page.evaluate('window.svc("stats")')) as Record<string, number>
  t.ok(stats.retries >= REFUSALS, `counted as retries (${stats.retries})`)
  t.equal(stats.droppedEvents, 0, 'nothing dropped')

  // A signals batch the server stored but whose answer never reached the page (a connection cut after the
  // request, a pipelined request not answered): the page sends it again, and the server counts it once.
  const signalPosts: Buffer[] = []
  await page.route(`${cluster.url}/api/signals**`, async (route) => {
    const request = route.request()
    if (request.method() === 'OPTIONS') return route.fulfill({ status: 204, headers: CORS })
    signalPosts.push(request.postDataBuffer() ?? Buffer.alloc(0))
    const answer = await route.fetch()
    if (signalPosts.length > 1) return route.fulfill({ response: answer })
    return route.abort('connectionreset')
  })
  await page.click('#grow')
  void flushTracker(page).catch(() => undefined)
  await until('the batch sent again', () => signalPosts.length >= 2)
  const batchId = JSON.parse(signalPosts[0].toString()).batchId
  t.match(batchId, /^[0-9a-f]{12}\.[0-9a-z]+$/, `the batch carries an id (${batchId})`)
  t.ok(signalPosts[1].equals(signalPosts[0]), 'the same bytes again, its id with them')
  const batches = await until('the batch stored', () => {
    const found = Array.from(store.listSignals(seeded.project.id)).filter((s) => s.batch.batchId === batchId)
    return found.length > 0 && found
  })
  t.equal(batches.length, 1, 'stored once though the server took it twice')
  t.equal(tab.pageErrors.length, 0, 'no page errors')
  // A later batch may be in the handler when the page closes: its fulfil would then throw outside the test.
  await page.unrouteAll({ behavior: 'ignoreErrors' })
})
