/**
 * A page flood: anyone with a project's public key (it sits in every recorded
 * page) can send clicks on 200,000 distinct paths. The project keeps at most
 * MAX_PAGES_PER_PROJECT pages (past it, new pages count under `(other)`),
 * pages.list answers a bounded page of them at a time, and another
 * organisation's requests to the control worker are not held up meanwhile.
 */
import t from 'tap'
import { call } from '../helpers/api.js'
import { until } from '../helpers/until.js'
import { clusterFor } from '../helpers/cluster.js'
import { ownerSession } from '../helpers/dashboard.js'
import { postSignals } from '../helpers/read.js'
import { seedProject } from '../helpers/seed.js'

const CAP = 10_000
const BATCHES = 100
const CLICKS = 2_000
const VIEWS = 200
const NOW = Date.now()
const WORDS = ['alpha', 'bravo', 'cedar', 'delta', 'ember', 'fjord', 'gamma', 'harbor', 'iris', 'jade', 'koala', 'lumen', 'maple', 'nectar', 'opal', 'prism']

/** A distinct word-like path for each number, as a crawler or a hostile client would make them. */
const pathOf = (n: number) => `/${WORDS[n % 16]}-${WORDS[(n >> 4) % 16]}/${WORDS[(n >> 8) % 16]}-${n.toString(36)}`

function floodBatch(b: number) {
  const clicks = Array.from({ length: CLICKS }, (_, i) => ({ url: `https://shop.test${pathOf(b * CLICKS + i)}`, ts: NOW - 1_000, xRatio: 0.5, yDoc: 100, selector: 'a' }))
  const views = Array.from({ length: VIEWS }, (_, i) => ({ url: `https://shop.test${pathOf(b * CLICKS + i)}`, startedAt: NOW - 2_000 }))
  return { sk: `flood-${b}`, vid: `v-${b}`, views, clicks }
}

/** Latencies of B's GET /auth/state, asked one after another until `stop` resolves. */
async function probe(url: string, cookie: string, stop: Promise<void>): Promise<number[]> {
  let done = false
  void stop.then(() => (done = true))
  const latencies: number[] = []
  while (!done) {
    const started = performance.now()
    const res = await fetch(`${url}/api/v1/auth/state`, { headers: { cookie: `svc_session=${cookie}` } })
    const body = await res.json()
    latencies.push(performance.now() - started)
    if (res.status !== 200 || body.signedIn !== true) throw new Error(`B's /auth/state answered ${res.status}`)
    await new Promise((r) => setTimeout(r, 20))
  }
  return latencies
}

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]

t.test('200,000 distinct paths make at most the cap of pages, and another organisation is not held up while they are paged through', async (t) => {
  const cluster = await clusterFor(t, { workers: 1, env: { MAX_PAGES_PER_PROJECT: String(CAP) } })
  const cookieB = await ownerSession(cluster.url, { orgName: 'Bystander', email: 'owner@bystander.test', password: 'correct horse battery' })
  const { apiKey, project } = await seedProject(cluster.dataDir)

  const floodStarted = Date.now()
  for (let b = 0; b < BATCHES; b += 4) {
    const statuses = await Promise.all([0, 1, 2, 3].map((i) => postSignals(cluster.url, project.publicKey, floodBatch(b + i))))
    if (statuses.some((s) => s !== 200)) t.fail(`a flood batch was answered ${statuses}`)
  }
  t.comment(`flood of ${BATCHES * CLICKS} distinct paths sent in ${Date.now() - floodStarted} ms`)

  // The fold thread counts the flood behind the acknowledgements; a search for (other) reads one row while it does.
  let other: any
  await until('the flood to be counted under (other)', async () => {
    const answer = await call(cluster.url, '/cli/pages.list', { token: apiKey, body: { projectId: project.id, search: '(other)' } })
    t.equal(answer.status, 200)
    other = answer.body.pages.find((p: any) => p.key === '(other)')
    return other?.clicks === BATCHES * CLICKS - CAP
  }, 60_000)
  t.comment(`the flood was counted ${Date.now() - floodStarted} ms after it began`)
  t.equal(other?.clicks, BATCHES * CLICKS - CAP, 'clicks on pages past the cap count under (other)')

  // B's latency with nothing else to do, on this machine now: the scale for the bound below.
  const quiet = await probe(cluster.url, cookieB, new Promise<void>((r) => setTimeout(r, 1_500)))
  let stopProbe!: () => void
  const probing = probe(cluster.url, cookieB, new Promise<void>((r) => (stopProbe = r)))

  // Page through everything, as the CLI would.
  const listed: any[] = []
  let cursor: string | undefined
  let first = 0
  let slowest = 0
  let largest = 0
  let answers = 0
  do {
    const started = performance.now()
    const answer = await call(cluster.url, '/cli/pages.list', { token: apiKey, body: { projectId: project.id, ...(cursor ? { cursor, limit: 500 } : {}) } })
    // The first answer ranks every page (in slices, between other requests); the ones after it read that ranking.
    if (answers === 0) first = performance.now() - started
    else slowest = Math.max(slowest, performance.now() - started)
    if (answer.status !== 200) t.fail(`pages.list answered ${answer.status}`)
    largest = Math.max(largest, JSON.stringify(answer.body).length)
    if (answer.body.pages.length > 500) t.fail('more than the limit')
    for (const page of answer.body.pages) listed.push(page)
    cursor = answer.body.nextCursor ?? undefined
    answers += 1
  } while (cursor && answers < 100)
  stopProbe()
  const latencies = await probing

  t.equal(listed.length, CAP + 1, 'the cap of pages, and (other)')
  t.equal(new Set(listed.map((p) => p.key)).size, listed.length, 'no page listed twice')
  t.same(listed[0], { ...other, page: '(other)', host: '' }, '(other), the busiest page, listed first')
  t.equal(listed.reduce((sum, p) => sum + p.clicks, 0), BATCHES * CLICKS, 'every click is counted, on its page or under (other)')
  t.equal(listed.reduce((sum, p) => sum + p.views, 0), BATCHES * VIEWS, 'and every view')
  t.ok(largest < 500_000, `each answer bounded (${largest} bytes at most)`)
  t.ok(first < 15_000 && slowest < 1_000, `answers quick (the first ${Math.round(first)} ms, the others ${Math.round(slowest)} ms at most)`)

  const p95 = quantile(latencies, 0.95)
  t.comment(`B's GET /auth/state over ${latencies.length} probes: p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms; pages.list: ${answers} answers, the first in ${Math.round(first)} ms, the others ${Math.round(slowest)} ms at most, largest ${largest} bytes`)
  t.ok(latencies.length >= 10, `B was probed throughout (${latencies.length} probes)`)
  // The 100 ms target is held by `npm run bench:isolation` on pinned cores. Here other files' browsers share both
  // cores, and one probe of 14 (so the p95) can wait 100 ms and more for a CPU: the bound is 250 ms, and at least 4
  // times B's quiet p95. What it guards against held B for seconds (13.1 s).
  const bound = Math.max(250, 4 * quantile(quiet, 0.95))
  t.ok(p95 < bound, `B's p95 ${p95.toFixed(1)} ms under ${bound.toFixed(0)} ms (quiet p95 ${quantile(quiet, 0.95).toFixed(1)} ms)`)
})
