/**
 * Console and network capture in a real browser (capture.js, loaded on demand):
 * off by default (capture.js is not even fetched); when on, console calls,
 * uncaught errors and fetch/XHR requests land in the recording as plugin
 * events, within their bounds; the page's own console override and fetch
 * wrapper behave exactly as before; what was typed into password, masked and
 * ignored fields never appears, even when the page logs or requests it; a
 * session is found by the text of a console message or a failed request, and
 * by the origin of the site it came from, at the first matching moment; a
 * logging loop of 10,000 messages leaves the page responsive.
 */
import t from 'tap'
import type { Page } from 'playwright-core'
import { call } from '../helpers/api.js'
import { flushTracker, openPage, storedChunks, trackerStarted, until } from '../helpers/browser.js'
import { recordingHarness } from '../helpers/recording.js'

const SECRETS = { pw: 'TypedPw1234', card: 'CardSecret9876', coupon: 'CouponSecret5555' }

t.test('console and network capture', async (t) => {
  const { cluster, seeded, projectId, store, fixtures, browser } = await recordingHarness(t)
  const setCapture = async (capture: Record<string, unknown>) => {
    const answer = await call(cluster.url, '/cli/projects.capture', { token: seeded.apiKey, body: { projectId, capture } })
    if (answer.status !== 200) throw new Error(`projects.capture answered ${answer.status}`)
  }
  const pluginEvents = (sk: string, plugin: string) =>
    storedChunks(store, projectId)
      .filter((c) => c.sk === sk)
      .flatMap((c) => c.events)
      .filter((e) => e.type === 6 && e.data.plugin === plugin)
      .map((e) => e.data.payload)
  /** `referrer`: what document.referrer says, as a browser whose referrer policy sends the whole address would. */
  const open = async (t: Parameters<typeof recordingHarness>[0], referrer?: string) => {
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    if (referrer) await tab.page.addInitScript(`Object.defineProperty(Document.prototype, 'referrer', { get: () => ${JSON.stringify(referrer)} })`)
    await tab.page.goto(`${fixtures.url}/capture.html`, { waitUntil: 'load' })
    await tab.page.mouse.move(5, 5)
    await trackerStarted(tab.page)
    const sk = (await tab.page.evaluate('window.svc("stats").sk')) as string
    return { tab, page: tab.page, sk }
  }
  const captureRunning = (page: Page) => page.waitForFunction(() => typeof (window as any).svc?.x?.stop === 'function', undefined, { timeout: 30_000 })
  const typeSecrets = async (page: Page) => {
    await page.fill('#pw', SECRETS.pw)
    await page.fill('#card', SECRETS.card)
    await page.fill('#coupon', SECRETS.coupon)
    await page.fill('#name', 'Ada')
  }

  const sessions: Record<string, string> = {}
  await t.test('off by default: capture.js is not loaded and nothing is captured', async (t) => {
    const { tab, page, sk } = await open(t)
    sessions.off = sk
    await typeSecrets(page)
    await page.evaluate('window.logSecrets()')
    t.same(await page.evaluate('window.postForm()'), { status: 404, failed: 'TypeError', xhr: 200 })
    await flushTracker(page)
    await until('the recording', () => storedChunks(store, projectId).some((c) => c.sk === sk))
    t.notOk(tab.requests.some((r) => r.url().includes('/capture.js')), 'capture.js never requested')
    t.same(pluginEvents(sk, 'rrweb/console@1'), [], 'no console events')
    t.same(pluginEvents(sk, 'svc/network@1'), [], 'no network events')
  })

  await t.test('console capture: levels, arguments, errors with stacks, and no masked value', async (t) => {
    await setCapture({ console: true, network: false })
    const { tab, page, sk } = await open(t, 'https://www.search.example/results?q=private+words#top')
    sessions.console = sk
    await captureRunning(page)
    await typeSecrets(page)
    await page.evaluate('window.logSecrets()')
    await page.waitForFunction(() => true) // the uncaught error's timer runs before the next evaluate settles
    await page.evaluate('new Promise((resolve) => setTimeout(resolve))')
    await flushTracker(page)
    const events = await until('console events', () => {
      const found = pluginEvents(sk, 'rrweb/console@1')
      return found.some((e) => e.payload.join(' ').includes('Uncaught')) ? found : false
    })
    const levels = events.map((e) => e.level)
    t.same(levels.slice(0, 5), ['log', 'log', 'info', 'warn', 'error'], 'every level, in order')
    t.same(events[0].payload, [JSON.stringify('<input#pw>')], 'an element is its tag and id, never its value')
    t.same(events[1].payload, [JSON.stringify('pw is'), JSON.stringify('*'.repeat(SECRETS.pw.length))], 'a logged password value is starred')
    t.same(JSON.parse(events[2].payload[0]), { card: '*'.repeat(SECRETS.card.length), nested: { coupon: '*'.repeat(SECRETS.coupon.length) }, name: 'Ada' }, 'masked and ignored values starred in objects; others kept')
    t.ok(events[4].trace.length > 0, 'console.error carries a stack')
    const uncaught = events.find((e) => e.payload.join(' ').includes('Uncaught'))!
    t.equal(uncaught.level, 'error')
    t.ok(uncaught.trace.length > 0, 'an uncaught error carries its stack')
    const text = storedChunks(store, projectId).filter((c) => c.sk === sk).map((c) => c.text).join('\n')
    for (const [name, secret] of Object.entries(SECRETS)) t.notOk(text.includes(secret), `the ${name} value is nowhere in the recording`)
    t.same(pluginEvents(sk, 'svc/network@1'), [], 'network capture stays off')
    t.same(await page.evaluate('window.pageLogs.slice(0, 2)'), ['[object HTMLInputElement]', `pw is ${SECRETS.pw}`], 'the page\'s own console override still sees every call, unchanged')
    t.equal(tab.pageErrors.length, 1, 'the page\'s own uncaught error, and nothing else, reached the page')
    // For search, the signals name each console error and warning once, at most 5 a batch, as the recording holds them.
    await page.evaluate('for (let i = 0; i < 3; i++) console.error("same again"); for (let i = 0; i < 8; i++) console.warn("warning " + i)')
    await flushTracker(page)
    const named = await until('the signals naming them', () => {
      const batches = tab.requests.filter((r) => r.url().includes('/signals')).map((r) => JSON.parse(r.postData() ?? '{}'))
      return batches.some((b) => b.console?.some((c: { text: string }) => c.text === 'same again')) ? batches.filter((b) => b.console) : false
    })
    const texts = named.flatMap((b) => b.console.map((c: { text: string }) => c.text))
    t.ok(texts.includes('warned [1,2,3]') && texts.includes(`Error: boom ${'*'.repeat(SECRETS.pw.length)}`), 'warnings and errors, string arguments unquoted, the password starred')
    t.notOk(texts.some((text) => text.includes('pw is') || text.includes(SECRETS.pw) || text.includes(SECRETS.card)), 'no log line, no masked value')
    t.equal(texts.filter((text) => text === 'same again').length, 1, 'a repeated message named once')
    t.ok(named.every((b) => b.console.length <= 5), 'at most 5 a batch')
    t.same(texts.filter((text) => text.startsWith('warning ')), ['warning 0', 'warning 1', 'warning 2', 'warning 3'], 'past 5 in a batch, the rest only in the recording')
    // Leaving the page ends its first view, which goes (with the referrer) in the pagehide beacon.
    await page.goto(`${fixtures.url}/basic.html`, { waitUntil: 'load' })
  })

  await t.test('console calls made from load on, before capture.js runs, are recorded with their own times', async (t) => {
    await setCapture({ console: true, network: false })
    const tab = await openPage(browser) // idle loading on: tracker.js arrives soon after load, before any interaction
    t.teardown(tab.close)
    const { page } = tab
    // A first page load caches the settings that say console capture is on.
    await page.goto(`${fixtures.url}/basic.html`, { waitUntil: 'load' })
    await page.mouse.move(5, 5)
    await trackerStarted(page)
    await page.waitForFunction(() => Object.keys(localStorage).some((k) => k.startsWith('svc_c_')), undefined, { timeout: 30_000 })
    // capture.js a slow round trip away, so that there is a stretch it alone would miss.
    await page.route('**/capture.js', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1500)) // deliberately slow: the page logs while capture.js is on its way
      await route.continue()
    })
    await page.goto(`${fixtures.url}/console-early.html`, { waitUntil: 'load' })
    await page.waitForFunction(() => (window as any).ticks.some((tick: any) => tick.phase === 'tracker'), undefined, { timeout: 30_000 })
    await page.mouse.move(5, 5)
    await trackerStarted(page)
    await page.waitForFunction(() => (window as any).ticks.length === 40, undefined, { timeout: 30_000 })
    const sk = (await page.evaluate('window.svc("stats").sk')) as string
    await flushTracker(page)
    const ticks = (await page.evaluate('window.ticks')) as { n: number; phase: string; at: number }[]
    const early = ticks.filter((tick) => tick.phase === 'tracker')
    t.ok(early.length >= 10, `${early.length} lines logged after tracker.js ran and before capture.js did (before and after the interaction)`)
    t.ok(ticks.some((tick) => tick.phase === 'capture'), 'and more once capture.js ran')
    const events = await until('the last line', () => {
      const found = storedChunks(store, projectId).filter((c) => c.sk === sk).flatMap((c) => c.events).filter((e) => e.type === 6 && e.data.plugin === 'rrweb/console@1' && e.data.payload.payload[0] === '"tick"')
      return found.some((e) => e.data.payload.payload[1] === '39') ? found : false
    })
    for (const tick of [...early, ...ticks.filter((tick) => tick.phase === 'capture')]) {
      const event = events.find((e) => e.data.payload.payload[1] === String(tick.n))
      if (!event) {
        t.fail(`line ${tick.n} (${tick.phase}) is missing`)
        continue
      }
      if (event.timestamp < tick.at || event.timestamp > tick.at + 50) t.fail(`line ${tick.n} recorded at ${event.timestamp}, logged at ${tick.at}`)
    }
    t.pass('every line logged since tracker.js ran is recorded, at the time it was logged')
    t.equal(events.filter((e) => e.data.payload.payload[1] === String(early[0].n)).length, 1, 'once each')
    t.same(await page.evaluate('window.pageLogs.length'), 40, 'the page\'s own console override saw every call')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('network capture: fetch and XHR, the page\'s wrapper intact, never the service, no query string or secret', async (t) => {
    await setCapture({ console: false, network: true, networkQuery: false })
    const { page, sk } = await open(t)
    sessions.network = sk
    await captureRunning(page)
    await typeSecrets(page)
    t.same(await page.evaluate('window.postForm()'), { status: 404, failed: 'TypeError', xhr: 200 }, 'the page sees the same answers and errors')
    const seen = (await page.evaluate('window.pageFetches')) as string[]
    t.ok(seen.some((u) => u.startsWith('/echo?pw=')) && seen.includes('http://127.0.0.1:1/unreachable'), 'the page\'s own fetch wrapper ran for both fetches')
    await flushTracker(page)
    const events = await until('three network events', () => {
      const found = pluginEvents(sk, 'svc/network@1')
      return found.length >= 3 ? found : false
    })
    const post = events.find((e) => e.url.endsWith('/echo'))
    t.match(post, { method: 'POST', url: `${fixtures.url}/echo`, status: 404, initiator: 'fetch', requestSize: JSON.stringify({ pw: SECRETS.pw }).length }, 'method, URL without its query, status, request size')
    t.ok(post.duration >= 0 && post.at > 0, 'duration and start time')
    t.match(events.find((e) => e.url.includes('127.0.0.1:1')), { status: 0, initiator: 'fetch' }, 'a failed request has status 0')
    const xhr = events.find((e) => e.initiator === 'xhr')
    t.match(xhr, { method: 'GET', url: `${fixtures.url}/basic.html`, status: 200 }, 'XHR')
    t.ok(xhr.responseSize > 0, 'response size (no Content-Length here: from resource timing)')
    t.notOk(events.some((e) => e.url.startsWith(cluster.url)), 'the tracker\'s own uploads are never recorded')
    const text = storedChunks(store, projectId).filter((c) => c.sk === sk).map((c) => c.text).join('\n')
    t.notOk(text.includes(SECRETS.pw), 'the posted password is nowhere in the recording')
  })

  await t.test('with query strings allowed, a masked value in the URL is still starred', async (t) => {
    await setCapture({ network: true, networkQuery: true })
    const { page, sk } = await open(t)
    await captureRunning(page)
    await typeSecrets(page)
    await page.evaluate('window.postForm()')
    await flushTracker(page)
    const post = await until('the POST', () => pluginEvents(sk, 'svc/network@1').find((e) => e.url.includes('/echo')))
    t.equal(post.url, `${fixtures.url}/echo?pw=${'*'.repeat(SECRETS.pw.length)}`, 'the query kept, the password starred')
  })

  await t.test('under a nonce-only CSP: the stub, tracker.js and capture.js load, both captures work, no violation', async (t) => {
    await setCapture({ console: true, network: true, networkQuery: false })
    const tab = await openPage(browser, { noIdle: true })
    t.teardown(tab.close)
    const { page } = tab
    await page.addInitScript('window.__violations = []; document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective + " " + e.blockedURI))')
    const response = await page.goto(`${fixtures.url}/csp-nonce-capture.html`, { waitUntil: 'load' })
    const policy = response!.headers()['content-security-policy']
    t.match(policy, /script-src 'nonce-[^']+'(;|$)/, 'scripts need the nonce')
    t.notMatch(policy, /strict-dynamic|unsafe-inline|unsafe-eval/, 'nothing looser')
    await page.mouse.move(5, 5)
    await trackerStarted(page)
    await captureRunning(page)
    t.same(await page.evaluate('window.work()'), { fetch: 200, xhr: 200 }, 'the page\'s own requests answer as before')
    const sk = (await page.evaluate('window.svc("stats").sk')) as string
    await flushTracker(page)
    const consoleEvents = await until('console events', () => {
      const found = pluginEvents(sk, 'rrweb/console@1')
      return found.length >= 2 ? found : false
    })
    t.same(consoleEvents.map((e) => e.payload[0]), [JSON.stringify('under a nonce-only csp'), JSON.stringify('still here')], 'console captured')
    const network = await until('network events', () => {
      const found = pluginEvents(sk, 'svc/network@1')
      return found.length >= 2 ? found : false
    })
    t.same(network.map((e) => `${e.initiator} ${e.status}`).sort(), ['fetch 200', 'xhr 200'], 'fetch and XHR captured')
    for (const file of ['/tracker.js', '/capture.js']) {
      const request = tab.requests.find((r) => new URL(r.url()).pathname === file)
      t.equal((await request?.response())?.status(), 200, `${file} loaded`)
    }
    t.same(await page.evaluate('window.__violations'), [], 'no securitypolicyviolation event')
    t.equal(tab.pageErrors.length, 0, 'no page errors')
  })

  await t.test('the session list filters sessions with console errors or failed requests', async (t) => {
    const list = async (filter: Record<string, boolean>) => {
      const answer = await call(cluster.url, '/cli/sessions.list', { token: seeded.apiKey, body: { projectId, ...filter } })
      return (answer.body.sessions as { sessionKey: string }[]).map((s) => s.sessionKey)
    }
    const withErrors = await list({ hasConsoleErrors: true })
    t.ok(withErrors.includes(sessions.console), 'the session that logged an error')
    t.notOk(withErrors.includes(sessions.off) || withErrors.includes(sessions.network), 'not those without console capture')
    const failing = await list({ hasFailedRequests: true })
    t.ok(failing.includes(sessions.network), 'the session whose request failed')
    t.notOk(failing.includes(sessions.off) || failing.includes(sessions.console), 'not those without network capture')
  })

  await t.test('a session is found by console text, failed request and referrer, at the first matching moment', async (t) => {
    const search = async (find: Record<string, string>) => {
      const answer = await call(cluster.url, '/cli/sessions.list', { token: seeded.apiKey, body: { projectId, ...find } })
      t.equal(answer.status, 200)
      return answer.body.sessions as { sessionKey: string; match?: { ts: number; kind: string; label: string } }[]
    }
    const recorded = (sk: string, plugin: string, test: (payload: any) => boolean) =>
      storedChunks(store, projectId).filter((c) => c.sk === sk).flatMap((c) => c.events).find((e) => e.type === 6 && e.data.plugin === plugin && test(e.data.payload))

    const byConsole = await search({ console: 'BOOM' })
    t.same(byConsole.map((s) => s.sessionKey), [sessions.console], 'by console text, ignoring case')
    const boom = recorded(sessions.console, 'rrweb/console@1', (p) => p.level === 'error' && p.payload[0].includes('boom'))
    t.same(byConsole[0].match, { ts: boom.timestamp, kind: 'console', label: `Error: boom ${'*'.repeat(SECRETS.pw.length)}` }, 'at the console event\'s moment, the text as the recording holds it: the password starred')
    t.same((await search({ console: SECRETS.pw })).length, 0, 'a masked value is not searchable')
    t.same((await search({ console: 'warned [1,2,3]' })).map((s) => s.match?.kind), ['console'], 'warnings too, string arguments unquoted')
    t.same(await search({ console: 'pw is' }), [], 'not console.log lines')

    const byRequest = await search({ request: '127.0.0.1:1/unreachable failed' })
    const network = byRequest.find((s) => s.sessionKey === sessions.network)
    t.ok(network, 'by a failed request: its URL and that it failed')
    t.notOk(byRequest.some((s) => s.sessionKey === sessions.off || s.sessionKey === sessions.console), 'not the sessions without network capture')
    const unreachable = recorded(sessions.network, 'svc/network@1', (p) => p.url.includes('127.0.0.1:1'))
    t.same(network?.match, { ts: unreachable.timestamp, kind: 'request', label: 'GET http://127.0.0.1:1/unreachable failed' }, 'at the network event\'s moment')
    t.same(await search({ request: '/echo' }), [], 'a 404 is not a failed request')

    const byReferrer = await until('the first view, sent as the page was left', async () => {
      const found = await search({ referrer: 'search.example' })
      return found.length ? found : false
    })
    t.same(byReferrer.map((s) => [s.sessionKey, s.match?.kind, s.match?.label]), [[sessions.console, 'referrer', 'https://www.search.example']], 'by the referrer: its origin alone, nothing of its path, query or fragment')
  })

  await t.test('a logging loop of 10,000 messages leaves the page responsive and the chunk small', async (t) => {
    await setCapture({ console: true, network: false })
    const { page, sk } = await open(t)
    await captureRunning(page)
    const timing = (await page.evaluate(`(() => {
      const loop = (log) => { const start = performance.now(); for (let i = 0; i < 10000; i++) log('message', i, { i }); return performance.now() - start }
      const base = loop(window.pageConsoleLog)
      const captured = loop(console.log)
      return { base, captured }
    })()`)) as { base: number; captured: number }
    t.comment(`10,000 console.log calls: ${timing.base.toFixed(0)} ms through the page's own override, ${timing.captured.toFixed(0)} ms with capture`)
    t.ok(timing.captured < timing.base * 2 + 250, 'capture at most doubles the cost of a logging loop')
    // Responsive: a timer set now fires promptly, and the tracker still answers.
    const lag = (await page.evaluate('new Promise((resolve) => { const at = performance.now(); setTimeout(() => resolve(performance.now() - at), 0) })')) as number
    t.ok(lag < 250, `a timer fires ${lag.toFixed(0)} ms later`)
    await page.evaluate('new Promise((resolve) => setTimeout(resolve, 1100))') // the next second opens, which records the count left out
    await page.evaluate('console.log("after the loop"); console.warn("loop over")')
    await flushTracker(page)
    // On a slow machine the loop spans several seconds, each closed by a note, so wait for the line after it.
    const events = await until('the line logged after the loop', () => {
      const found = pluginEvents(sk, 'rrweb/console@1')
      return found.some((e) => e.payload[0] === JSON.stringify('after the loop')) ? found : false
    })
    const fromLoop = events.filter((e) => e.payload[0] === JSON.stringify('message')).length
    t.ok(fromLoop <= 20 * Math.ceil((timing.base + timing.captured) / 1000 + 1), `${fromLoop} of 20,000 loop messages recorded`)
    const note = events.findIndex((e) => e.payload.join(' ').includes('not recorded'))
    t.ok(note >= 0 && note < events.findIndex((e) => e.payload[0] === JSON.stringify('after the loop')), 'the messages left out are counted in a note, and recording goes on afterwards')
    // The warning after the note is searchable; the note, sent no later, is not.
    const search = async (text: string) => (await call(cluster.url, '/cli/sessions.list', { token: seeded.apiKey, body: { projectId, console: text } })).body.sessions.map((s: { sessionKey: string }) => s.sessionKey)
    await until('the warning after the loop, searchable', async () => (await search('loop over')).includes(sk))
    t.notOk((await search('not recorded')).includes(sk), 'the tracker\'s own note on what it left out is not searchable')
  })
})
