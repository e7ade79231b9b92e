/**
 * Live sessions (`npm run bench:live`), embedded mode, the service pinned to
 * CPU 0 and Chromium with this process to CPU 1:
 * - a visitor's page with the real tracker, unfollowed for 30 s then followed
 *   for 30 s: its ingest requests, their bytes and its main thread's task time
 *   (CDP Performance.getMetrics TaskDuration) in each window, and with
 *   PREVIOUS_TRACKER=<a tracker.js built before live sessions> that tracker's
 *   unfollowed visitor in another tab in the same 30 s;
 * - action to feed: the page sets a unique attribute value (its clock read
 *   then) every 0.5-1 s, 60 times, and the follower (this process, reading
 *   sessions.follow) notes when the mutation carrying it arrives; p50, p95, worst;
 * - 100 idle followers (5 organisations × 20, sessions that send nothing):
 *   the service's CPU over 60 s against 60 s with none.
 * Writes a section of bench/RESULTS.md between its markers; `OUT=-` prints only.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, startCluster } from '../test/helpers/cluster.js'
import { fixtureServer, launchBrowser, openPage, trackerStarted } from '../test/helpers/browser.js'
import { openDashboard } from '../test/helpers/dashboard.js'
import { meta, postChunk } from '../test/helpers/http.js'
import { seedProject } from '../test/helpers/seed.js'
import { createProject, nodeOn, ownerWithKey } from '../test/helpers/cluster-mode.js'
import { natsCluster } from '../test/helpers/nats.js'
import { childrenOf, cpuSecondsOf } from './proc.js'
import { PINNED, pinning, pinSelf, SERVER_CPUS } from './pin.js'

const OUT = process.env.OUT || join(ROOT, 'bench', 'RESULTS.md')
const ACTIONS = Number(process.env.ACTIONS || 60)
const WINDOW_MS = 30_000
const IDLE_MS = 60_000

const cleanups: Array<() => unknown> = []
const t = { teardown: (fn: () => unknown) => void cleanups.push(fn) }
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]

/** --cluster: two nodes on a three-server NATS cluster, the visitor's chunks to node A, the follower on node B. */
const CLUSTER = process.argv.includes('--cluster')
const MARK = CLUSTER ? 'bench:live-cluster' : 'bench:live'

/** Where the visitor sends, where the follower reads, who follows, and the service's processes. */
async function service() {
  if (!CLUSTER) {
    const embedded = await startCluster({ workers: 1 })
    cleanups.push(() => embedded.stop())
    const owner = await ownerWithKey(embedded.url)
    const project = await createProject(embedded.url, owner.apiKey, 'Live')
    return { visitorUrl: embedded.url, followerUrl: embedded.url, dataDir: embedded.dataDir, owner, project, pids: [embedded.child.pid!, ...childrenOf(embedded.child.pid!).map((c) => c.pid)] }
  }
  const nats = await natsCluster(t as never, 3)
  const a = await nodeOn(t, nats)
  const b = await nodeOn(t, nats)
  const owner = await ownerWithKey(a.url)
  const project = await createProject(a.url, owner.apiKey, 'Live')
  const pids = [a, b].flatMap((node) => [node.child.pid!, ...childrenOf(node.child.pid!).map((c) => c.pid)])
  const natsPids = execFileSync('pgrep', ['-f', 'nats-server'], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number)
  return { visitorUrl: a.url, followerUrl: b.url, dataDir: a.dataDir, owner, project, pids: [...pids, ...natsPids] }
}

const served = await service()
const serverPids = served.pids
if (PINNED) for (const pid of serverPids) execFileSync('taskset', ['-a', '-p', '-c', SERVER_CPUS, String(pid)], { stdio: 'ignore' })
pinSelf()

/** Follows a session; every line is handed to `onLine` with the time it arrived. */
async function follow(token: string, projectId: string, sessionKey: string, onLine: (line: any, at: number) => void = () => {}) {
  const controller = new AbortController()
  const res = await fetch(`${served.followerUrl}/api/v1/cli/sessions.follow`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ projectId, sessionKey }),
    signal: controller.signal,
  })
  if (res.status !== 200) throw new Error(`follow answered ${res.status}: ${await res.text()}`)
  void (async () => {
    let rest = ''
    try {
      for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>) {
        const at = Date.now()
        const lines = (rest + Buffer.from(piece).toString()).split('\n')
        rest = lines.pop()!
        for (const line of lines) onLine(JSON.parse(line), at)
      }
    } catch {
      // closed by the benchmark
    }
  })()
  return () => controller.abort()
}

const fixtures = await fixtureServer(t, { clusterUrl: served.visitorUrl, publicKey: served.project.publicKey })
const browser = await launchBrowser(t)
/** A visitor's tab on the fixture page; `tracker`: the bytes to serve as tracker.js instead of this build's (the previous build's). */
async function visitor(tracker?: Buffer) {
  const { page } = await openPage(browser, { noIdle: true })
  const ingest: Array<{ at: number; bytes: number }> = []
  page.on('request', (request) => {
    if (request.url().includes('/api/ingest') && request.method() === 'POST') ingest.push({ at: Date.now(), bytes: request.postDataBuffer()?.byteLength ?? 0 })
  })
  if (tracker) await page.route('**/tracker.js*', (route) => route.fulfill({ body: tracker, contentType: 'text/javascript' }))
  await page.goto(`${fixtures.url}/basic.html`, { waitUntil: 'load' })
  await page.mouse.move(5, 5)
  await trackerStarted(page)
  const sk = (await page.evaluate('window.svc("stats").sk')) as string
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Performance.enable')
  const taskSeconds = async () => ((await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0)
  // A page that changes 4 times a second, as an application in use does.
  await page.evaluate(`setInterval(() => { document.body.dataset.tick = String(Date.now()) }, 250)`)
  return { page, sk, ingest, taskSeconds }
}

type Visitor = Awaited<ReturnType<typeof visitor>>

async function measureWindow(label: string, tab: Visitor) {
  const from = Date.now()
  const task = await tab.taskSeconds()
  await sleep(WINDOW_MS)
  const sent = tab.ingest.filter((r) => r.at >= from)
  return { label, requests: sent.length, kb: sent.reduce((sum, r) => sum + r.bytes, 0) / 1024, taskMs: ((await tab.taskSeconds()) - task) * 1000 }
}

const current = await visitor()
// PREVIOUS_TRACKER: tracker.js of the build before live sessions, measured beside this one in the same 30 s.
const previousFile = process.env.PREVIOUS_TRACKER
const previous = previousFile ? await visitor(readFileSync(previousFile)) : undefined
const { page, sk } = current
const windows = await Promise.all([measureWindow('not followed', current), ...(previous ? [measureWindow('not followed, the previous build\'s tracker.js', previous)] : [])])
await previous?.page.close()
const arrived = new Map<string, number>()
let historyAt = 0
const followFrom = Date.now()
const stopFollow = await follow(served.owner.apiKey, served.project.id, sk, (line, at) => {
  if (line.type === 5 && line.data?.tag === 'svc.live' && !historyAt) historyAt = at
  for (const change of line.type === 3 && line.data?.source === 0 ? line.data.attributes ?? [] : []) {
    const mark = change.attributes?.['data-mark']
    if (typeof mark === 'string' && !arrived.has(mark)) arrived.set(mark, at)
  }
})
// The watched flag reaches the tracker with its next chunk's answer: up to 10 s on the unfollowed schedule.
const followedAt = Date.now()
while (!arrived.size && Date.now() - followedAt < 15_000) {
  await page.evaluate(`document.body.dataset.mark = 'warm-' + Date.now()`)
  await sleep(500)
  if ([...arrived.keys()].some((k) => k.startsWith('warm-'))) break
}
const firstSeenMs = Date.now() - followedAt
const followed = await measureWindow('followed', current)

// The owner's dashboard following the same session: the action is on screen when the player's frame shows it.
const dashboard = await openDashboard(browser, served.followerUrl, { session: served.owner.cookie.split('=')[1] })
await dashboard.page.goto(`${served.followerUrl}/app/#/p/${served.project.id}/live/${sk}`)
await dashboard.page.frameLocator('[data-testid="live-player"] iframe').locator('body').waitFor()
const onScreen = (mark: string) =>
  dashboard.page.waitForFunction((m) => (document.querySelector('[data-testid="live-player"] iframe') as HTMLIFrameElement | null)?.contentDocument?.body?.getAttribute('data-mark') === m, mark, { polling: 'raf', timeout: 15_000 })

const latencies: number[] = []
const screen: number[] = []
for (let i = 0; i < ACTIONS; i++) {
  const mark = `m-${i}`
  const shown = onScreen(mark).then(() => Date.now(), () => Number.NaN)
  const at = (await page.evaluate(`(() => { const at = Date.now(); document.body.dataset.mark = '${mark}'; return at })()`)) as number
  const deadline = Date.now() + 10_000
  while (!arrived.has(mark) && Date.now() < deadline) await sleep(20)
  latencies.push((arrived.get(mark) ?? Number.NaN) - at)
  screen.push((await shown) - at)
  // Anywhere in the tracker's 1.5 s cycle: right after an arrival the next action would always wait a whole cycle.
  await sleep(Math.random() * 1500)
}
stopFollow()
await dashboard.close()
const lost = latencies.filter((l) => Number.isNaN(l)).length
const seen = latencies.filter((l) => !Number.isNaN(l))
const drawn = screen.filter((l) => !Number.isNaN(l))

/** 100 idle followers (embedded mode): 5 organisations of 20, each following a session that sends nothing more; the service's CPU against none. */
async function idleFollowers() {
  const closers: Array<() => void> = []
  const baselineFrom = cpuSecondsOf(serverPids)
  await sleep(IDLE_MS)
  const baseline = cpuSecondsOf(serverPids) - baselineFrom
  for (let org = 0; org < 5; org++) {
    const other = await seedProject(served.dataDir, `Idle ${org}`, `idle${org}@acme.test`)
    for (let i = 0; i < 20; i++) {
      const key = `idle-${i}`
      await postChunk(served.visitorUrl, { pk: other.project.publicKey, meta: meta({ sk: key, seq: 0, startedAt: Date.now(), firstTs: Date.now(), lastTs: Date.now(), checkpoint: true }) })
      closers.push(await follow(other.apiKey, other.project.id, key))
    }
  }
  await sleep(2_000)
  const idleFrom = cpuSecondsOf(serverPids)
  await sleep(IDLE_MS)
  const idle = cpuSecondsOf(serverPids) - idleFrom
  for (const close of closers) close()
  return { idle, baseline }
}
const cost = CLUSTER ? undefined : await idleFollowers()

for (const cleanup of cleanups.reverse()) await cleanup()

const ms = (v: number) => `${Math.round(v)} ms`
const section = [
  `<!-- ${MARK} -->`,
  CLUSTER ? '### The cluster mode (`npm run bench:live -- --cluster`)' : '## Live sessions (`npm run bench:live`)',
  '',
  `${new Date().toISOString().slice(0, 16)} UTC, ${CLUSTER ? 'two nodes on three nats-servers (all on the server core), the visitor\'s chunks to node A, the follower on node B' : 'embedded mode, one front'}; ${pinning()}; Chromium and the follower on the other core. A page that changes 4 times a second; the real tracker.`,
  '',
  '| Visitor, 30 s window | ingest requests | KB sent | main-thread task time |',
  '| --- | --- | --- | --- |',
  ...[...windows, followed].map((w) => `| ${w.label} | ${w.requests} | ${w.kb.toFixed(1)} | ${ms(w.taskMs)} |`),
  '',
  `- Follow opened to the recording drawn so far (the history up to \`svc.live\`): ${ms(historyAt - followFrom)}.`,
  `- Follow opened to the first change of the page seen in the feed: ${(firstSeenMs / 1000).toFixed(1)} s (the tracker learns it is followed from its next chunk's answer, on the 10 s schedule).`,
  `- **Action to screen**, ${drawn.length} of ${screen.length} actions drawn: p50 ${ms(percentile(drawn, 50))}, p95 ${ms(percentile(drawn, 95))}, worst ${ms(Math.max(...drawn))}: from the visitor's page changing an attribute to the dashboard's live player showing it in its frame (the player plays each chunk at the page's own pace, its newest event 1.5 s after it lands).`,
  `- Action to feed, ${seen.length} actions${lost ? ` (${lost} not seen within 10 s)` : ''}: p50 ${ms(percentile(seen, 50))}, p95 ${ms(percentile(seen, 95))}, worst ${ms(Math.max(...seen))}. The action is the page's attribute change; the feed line is the follower's read of the mutation carrying it (the dashboard's player draws it a frame later).`,
  ...(cost ? [`- 100 idle followers (5 organisations × 20): the service's CPU ${((cost.idle / (IDLE_MS / 1000)) * 100).toFixed(2)}% of a core over 60 s, against ${((cost.baseline / (IDLE_MS / 1000)) * 100).toFixed(2)}% with none (all processes of the service).`] : []),
  `<!-- /${MARK} -->`,
].join('\n')
console.log(section)
if (OUT !== '-') {
  const text = readFileSync(OUT, 'utf8')
  const at = text.indexOf(`<!-- ${MARK} -->`)
  const end = text.indexOf(`<!-- /${MARK} -->`)
  writeFileSync(OUT, at === -1 ? `${text.trimEnd()}\n\n${section}\n` : text.slice(0, at) + section + text.slice(end + `<!-- /${MARK} -->`.length))
}
process.exit(0)
