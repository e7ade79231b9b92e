/**
 * The CLI's install check and session commands end to end: sessions count moving
 * off zero after a simulated ingest (--watch), its timeout, sessions list (its
 * filters and its search by what happened) and export.
 * The file the server serves at /cli.mjs, saved and run as a process (under
 * Node 18 when one is installed) against a real cluster. No mocks.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { call, ingestChunk } from '../helpers/api.js'
import { CLI_NODE, cliSetup } from '../helpers/cli.js'
import { clusterFor } from '../helpers/cluster.js'
import { postChunk, postSignals } from '../helpers/read.js'

const cluster = await clusterFor(t, { workers: 1 })
t.comment(`CLI runs under ${CLI_NODE}`)

t.test('sessions count --watch exits 0 once a session lands, and 1 with code timeout when none does', async (t) => {
  const { seeded, svc } = await cliSetup(t, cluster)
  const env = { SVC_API_KEY: seeded.apiKey }
  const zero = await svc(['sessions', 'count', seeded.project.id], { env })
  t.equal(zero.stdout.trim(), '0')

  let ingested: Promise<number> | undefined
  const watched = await svc(['sessions', 'count', seeded.project.id, '--watch', '--interval', '100ms', '--timeout', '2m', '--json'], {
    env,
    // Ingest only once the CLI has seen zero and is waiting.
    onStderr: (text) => {
      if (!ingested && text.includes('Waiting for the first session')) ingested = ingestChunk(cluster.url, seeded.project.publicKey, 'watched-session')
    },
  })
  t.equal(await ingested, 200, 'the simulated ingest was accepted')
  t.equal(watched.code, 0, watched.stderr)
  t.same(watched.json, { projectId: seeded.project.id, count: 1 })

  const again = await svc(['sessions', 'count', seeded.project.id, '--watch'], { env })
  t.equal(again.code, 0, 'a count already above zero ends the watch at once')
  t.match(again.stdout, /Recording: 1 session so far/)

  const other = await call(cluster.url, '/cli/projects.create', { token: seeded.apiKey, body: { name: 'Quiet' } })
  const timedOut = await svc(['sessions', 'count', other.body.project.id, '--watch', '--interval', '50ms', '--timeout', '300ms', '--json'], { env })
  t.equal(timedOut.code, 1, 'a watch that sees no session fails')
  t.equal(timedOut.error.code, 'timeout')
  t.ok(timedOut.error.hint)
})

t.test('sessions list and export return what the tracker sent', async (t) => {
  const { seeded, home, svc } = await cliSetup(t, cluster)
  const env = { SVC_API_KEY: seeded.apiKey }
  t.equal(await ingestChunk(cluster.url, seeded.project.publicKey, 'export-me', 0), 200)
  t.equal(await ingestChunk(cluster.url, seeded.project.publicKey, 'export-me', 1), 200)

  const listed = await svc(['sessions', 'list', seeded.project.id, '--json'], { env })
  t.equal(listed.code, 0, listed.stderr)
  t.same(listed.json.sessions.map((s: { sessionKey: string }) => s.sessionKey), ['export-me'])
  const human = await svc(['sessions', 'list', seeded.project.id], { env })
  t.match(human.stdout, /^SESSION +STARTED/, 'a table')
  t.match(human.stdout, /\nexport-me +\d{4}-/)
  t.match(human.stdout, /\bRECORDING\b/, 'a column says whether each recording is complete')
  t.match(human.stdout, /\nexport-me .* complete /)

  // A hole in the seqs: the column says so, and a sentence below the table says where and why.
  t.equal(await ingestChunk(cluster.url, seeded.project.publicKey, 'gappy', 0), 200)
  t.equal(await ingestChunk(cluster.url, seeded.project.publicKey, 'gappy', 2), 200)
  const gappy = await svc(['sessions', 'list', seeded.project.id], { env })
  t.match(gappy.stdout, /\ngappy .* 1 chunk missing /)
  t.match(gappy.stdout, /\ngappy: 1 chunk missing (at|between) [\d:]+( and [\d:]+)?: the service never received it, and nothing reported why\n/)

  const out = join(home, 'session.json')
  const exported = await svc(['export', seeded.project.id, 'export-me', '--out', out], { env })
  t.equal(exported.code, 0, exported.stderr)
  const events = JSON.parse(readFileSync(out, 'utf8'))
  const direct = await call(cluster.url, '/cli/sessions.events', { token: seeded.apiKey, body: { projectId: seeded.project.id, sessionKey: 'export-me' } })
  t.same(events, direct.body, 'the file holds the rrweb events the API streams')
  t.equal(events.length, 2, 'one event per chunk sent')
  t.equal(statSync(out).mode & 0o777, 0o600, 'readable by its owner only: recordings are personal data')

  const toStdout = await svc(['export', seeded.project.id, 'export-me'], { env })
  t.same(JSON.parse(toStdout.stdout), direct.body, 'without --out, the events go to stdout')

  const missing = await svc(['export', seeded.project.id, 'no-such-session', '--out', join(home, 'none.json'), '--json'], { env })
  t.equal(missing.code, 1)
  t.equal(missing.error.code, 'not_found')
  t.notOk(existsSync(join(home, 'none.json')), 'a failed export leaves no file')
})

t.test('sessions list filters by page, element, identity and friction, and repeats the filters in the next page\'s command', async (t) => {
  const { seeded, svc } = await cliSetup(t, cluster)
  const env = { SVC_API_KEY: seeded.apiKey }
  const pk = seeded.project.publicKey
  const url = 'https://shop.test/pricing'
  const now = Date.now()
  const chunk = Buffer.from('[{"type":3,"timestamp":1,"data":{}}]')
  for (const [sk, ago, identity] of [['ada', 30, { userId: 'u_ada' }], ['bob', 20, undefined], ['cy', 10, undefined]] as const) {
    t.equal(await postChunk(cluster.url, pk, { sk, seq: 0, url, startedAt: now - ago * 1000, firstTs: now - ago * 1000, lastTs: now - ago * 1000 + 5000, identity }, chunk), 200)
  }
  const click = (selector: string, kind?: string, label?: string) => ({ url, ts: now - 5000, xRatio: 0.5, yDoc: 100, selector, ...(kind ? { kind } : {}), ...(label ? { label } : {}) })
  t.equal(await postSignals(cluster.url, pk, { sk: 'ada', vid: 'v-ada', views: [{ url, startedAt: now - 6000 }], clicks: [click('#buy', undefined, 'Buy now')], errors: [{ url, ts: now - 4000, message: 'TypeError: price is null' }] }), 200)
  t.equal(await postSignals(cluster.url, pk, { sk: 'bob', vid: 'v-bob', clicks: [click('#buy', 'rage')] }), 200)
  t.equal(await postSignals(cluster.url, pk, {
    sk: 'cy',
    vid: 'v-cy',
    views: [{ url, startedAt: now - 7000, referrer: 'https://www.google.com' }],
    clicks: [click('#faq')],
    console: [{ ts: now - 3000, level: 'warn', text: 'Cart failed to load' }],
    requests: [{ ts: now - 2000, method: 'POST', url: 'https://api.shop.test/cart', status: 503 }],
  }), 200)
  const keys = async (...flags: string[]) => {
    const run = await svc(['sessions', 'list', seeded.project.id, ...flags, '--json'], { env })
    t.equal(run.code, 0, run.stderr)
    return run.json.sessions.map((s: { sessionKey: string }) => s.sessionKey)
  }
  t.same(await keys('--page', '/pricing', '--element', '#buy'), ['bob', 'ada'], 'the sessions that clicked #buy')
  t.same(await keys('--page', '/pricing', '--rage'), ['bob'])
  t.same(await keys('--user', 'u_ada'), ['ada'])
  t.same(await keys('--min-duration', '1m'), [], 'none lasted a minute')
  t.same(await keys('--clicked', 'buy now'), ['ada'], 'by the label of the element clicked')
  t.same(await keys('--clicked', '#buy'), ['bob', 'ada'], 'by its selector')
  t.same(await keys('--visited', '/pricing', '--error', 'price is null'), ['ada'], 'by a path pattern and an error message, combined')
  t.same(await keys('--clicked', '#buy', '--device', 'mobile'), [], 'no session reported a phone\'s viewport')
  t.same(await keys('--console', 'cart FAILED'), ['cy'], 'by a console message')
  t.same(await keys('--request', 'post https://api.shop.test/cart 503'), ['cy'], 'by a failed request: method, URL and status')
  t.same(await keys('--referrer', 'google'), ['cy'], 'by the site it came from')
  t.same(await keys('--console', 'cart', '--referrer', 'bing'), [], 'combined: every one must hold')
  const byRequest = await svc(['sessions', 'list', seeded.project.id, '--request', 'api.shop.test', '--json'], { env })
  t.same(byRequest.json.sessions[0].match, { ts: now - 2000, kind: 'request', label: 'POST https://api.shop.test/cart 503' }, 'its moment')

  const found = await svc(['sessions', 'list', seeded.project.id, '--clicked', 'Buy now'], { env })
  t.equal(found.code, 0, found.stderr)
  const [head, row] = found.stdout.split('\n')
  t.match(head, /\bMATCH\b/, 'a search adds the MATCH column')
  t.match(row, new RegExp(`^ada .*${new Date(now - 5000).toISOString().slice(11, 19)} click Buy now \\(#buy\\)`), 'the first matching moment: its time, kind and what')
  const json = await svc(['sessions', 'list', seeded.project.id, '--clicked', 'Buy now', '--json'], { env })
  t.same(json.json.sessions[0].match, { ts: now - 5000, kind: 'click', label: 'Buy now (#buy)' })
  const badDevice = await svc(['sessions', 'list', seeded.project.id, '--device', 'watch', '--json'], { env })
  t.same([badDevice.code, badDevice.error?.code], [1, 'invalid_request'], 'the server refuses an unknown device class')
  const badPattern = await svc(['sessions', 'list', seeded.project.id, '--visited', 'pricing', '--json'], { env })
  t.same([badPattern.code, badPattern.error?.code], [1, 'invalid_request'], 'and a path pattern that is not one')
  const badReferrer = await svc(['sessions', 'list', seeded.project.id, '--referrer', 'google.com/search', '--json'], { env })
  t.same([badReferrer.code, badReferrer.error?.code], [1, 'invalid_request'], 'and a referrer with a path, which could never match')

  const paged = await svc(['sessions', 'list', seeded.project.id, '--page', '/pricing', '--element', '#buy', '--limit', '1'], { env })
  t.equal(paged.code, 0, paged.stderr)
  t.match(paged.stdout, /\nbob /)
  const next = /svc sessions list (.+)$/m.exec(paged.stderr + paged.stdout)?.[1]
  t.match(next, new RegExp(`^${seeded.project.id} --page /pricing --element '#buy' --limit 1 --cursor \\S+$`), 'the next page keeps the filters')
  const second = await svc(['sessions', 'list', ...next!.split(' ').map((w) => w.replace(/^'(.*)'$/, '$1')), '--json'], { env })
  t.same(second.json.sessions.map((s: { sessionKey: string }) => s.sessionKey), ['ada'], 'and its command lists the rest')

  const none = await svc(['sessions', 'list', seeded.project.id, '--user', 'nobody'], { env })
  t.match(none.stdout, /No session matches/)
  const bad = await svc(['sessions', 'list', seeded.project.id, '--min-duration', 'soon', '--json'], { env })
  t.equal(bad.code, 2, 'a bad duration is wrong usage')
  const noPage = await svc(['sessions', 'list', seeded.project.id, '--element', '#buy', '--json'], { env })
  t.equal(noPage.code, 1)
  t.equal(noPage.error.code, 'invalid_request', 'the server says an element needs its page')
})
