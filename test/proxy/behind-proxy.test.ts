/**
 * The service behind each reverse proxy a self-hoster uses, run from the
 * configs shipped in deploy/ (Debian's nginx, Caddy and HAProxy, TLS with a
 * test certificate): everything a tracker, the dashboard and the CLI do
 * reaches the service and comes back whole, and the client address the
 * service acts on is the client's, not the proxy's (TRUST_PROXY).
 */
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { fetch, type Agent } from 'undici'
import { launchBrowser } from '../helpers/browser.js'
import { runCli, tempHome } from '../helpers/cli.js'
import { clusterFor, freePort } from '../helpers/cluster.js'
import { OWNER, ownerSession } from '../helpers/dashboard.js'
import { clientFrom, PROXIES, proxyInstalled, selfSignedCertificate, startProxy, type ProxyKind } from '../helpers/proxies.js'
import { seedProject } from '../helpers/seed.js'

const missing = PROXIES.filter((kind) => !proxyInstalled(kind))
if (missing.length > 0 && process.env.CI) throw new Error(`.ci/run must install ${missing.join(', ')}`)

const cert = selfSignedCertificate()
const browser = await launchBrowser(t)

/** Each proxy's clients come from their own loopback addresses, so that a log line names one proxy's client. */
const CLIENT_NET: Record<ProxyKind, string> = { nginx: '127.0.1', caddy: '127.0.2', haproxy: '127.0.3' }

async function post(client: Agent, base: string, route: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/api/v1${route}`, { method: 'POST', dispatcher: client, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  const text = await res.text()
  let json: any
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.status, headers: res.headers, json, text }
}

/** `n` chunks of about 900 KB of gzip each (random text does not compress), as one recording of several MB. */
function largeRecording(n: number): Buffer[] {
  return Array.from({ length: n }, (_, seq) => {
    const events = Array.from({ length: 40 }, (_, i) => ({ type: 3, timestamp: 1_700_000_000_000 + seq * 1_000 + i, data: { n: seq * 40 + i, text: randomBytes(16_500).toString('base64') } }))
    return gzipSync(JSON.stringify(events), { level: 1 })
  })
}

for (const kind of PROXIES) {
  t.test(`behind ${kind}, with the shipped config`, { skip: missing.includes(kind) && `${kind} is not installed` }, async (t) => {
    // The service is told its public address (DIRECT_URL), as a self-hoster does: nginx's `Host $host` drops the port.
    const port = await freePort()
    const cluster = await clusterFor(t, { workers: 2, env: { TRUST_PROXY: '127.0.0.1', DIRECT_URL: `https://127.0.0.1:${port}` } })
    await ownerSession(cluster.url)
    const { apiKey, project } = await seedProject(cluster.dataDir, 'Beta', 'beta@acme.test')
    const proxy = await startProxy(kind, port, cluster.port, cert)
    t.teardown(() => proxy.stop())
    const from = (host: number) => clientFrom(`${CLIENT_NET[kind]}.${host}`)
    const client = from(1)
    t.teardown(() => client.close())
    const base = proxy.url

    t.test('health, tracker.js and the CORS preflight', async (t) => {
      const health = await fetch(`${base}/health`, { dispatcher: client })
      t.equal(health.status, 200)
      t.match(await health.json(), { ok: true, http: String })
      const tracker = await fetch(`${base}/tracker.js`, { dispatcher: client })
      t.equal(tracker.status, 200)
      t.match(tracker.headers.get('content-type'), /javascript/)
      t.ok((await tracker.text()).length > 10_000, 'the whole tracker')
      const preflight = await fetch(`${base}/api/v1/ingest?pk=${project.publicKey}`, {
        method: 'OPTIONS',
        dispatcher: client,
        headers: { origin: 'https://shop.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-svc-meta' },
      })
      t.equal(preflight.status, 204)
      t.equal(preflight.headers.get('access-control-allow-origin'), '*')
      t.match(preflight.headers.get('access-control-allow-headers') ?? '', /x-svc-meta/i)
    })

    t.test('a 20 KB chunk and a signals batch are acknowledged and read back', async (t) => {
      const sk = `${kind}-small`
      const body = gzipSync(JSON.stringify(Array.from({ length: 20 }, (_, i) => ({ type: 3, timestamp: 1_700_000_000_000 + i, data: { text: randomBytes(1_100).toString('base64') } }))), { level: 1 })
      t.ok(body.byteLength > 20_000, `${body.byteLength} bytes`)
      const meta = { sk, vid: 'v1', seq: 0, pageIndex: 0, url: 'https://shop.test/', firstTs: 1_700_000_000_000, lastTs: 1_700_000_000_019, eventCount: 20, encoding: 'gzip' }
      const chunk = await fetch(`${base}/api/v1/ingest?pk=${project.publicKey}`, { method: 'POST', dispatcher: client, headers: { 'x-svc-meta': JSON.stringify(meta), 'content-type': 'application/octet-stream' }, body })
      t.same([chunk.status, await chunk.json()], [200, { ok: true }])
      const back = await fetch(`${base}/api/v1/cli/sessions.chunk`, { method: 'POST', dispatcher: client, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ projectId: project.id, sessionKey: sk, seq: 0 }) })
      t.equal(back.status, 200)
      t.ok(Buffer.from(await back.arrayBuffer()).equals(body), 'the chunk comes back byte for byte')

      const page = `https://shop.test/${kind}/cart`
      const signals = await post(client, base, `/signals?pk=${project.publicKey}`, { sk, vid: 'v1', clicks: [{ url: page, ts: Date.now() - 1_000, xRatio: 0.5, yDoc: 100, vw: 1280, selector: 'button#pay', label: 'Pay', tag: 'button' }] })
      t.same([signals.status, signals.json], [200, { ok: true }])
      const heat = await post(client, base, '/cli/heatmap', { projectId: project.id, page: `/${kind}/cart`, kind: 'click' }, { authorization: `Bearer ${apiKey}` })
      t.equal(heat.status, 200)
      t.equal(heat.json.total, 1, 'the click is counted')
    })

    t.test('a streamed recording of several MB arrives whole', async (t) => {
      const sk = `${kind}-large`
      const chunks = largeRecording(5)
      for (const [seq, body] of chunks.entries()) {
        const meta = { sk, vid: 'v1', seq, pageIndex: 0, url: 'https://shop.test/', eventCount: 40, encoding: 'gzip' }
        const res = await fetch(`${base}/api/v1/ingest?pk=${project.publicKey}`, { method: 'POST', dispatcher: client, headers: { 'x-svc-meta': JSON.stringify(meta), 'content-type': 'application/octet-stream' }, body })
        t.equal(res.status, 200, `chunk ${seq} (${body.byteLength} bytes) acknowledged`)
        await res.arrayBuffer()
      }
      const read = (url: string, dispatcher?: Agent) =>
        fetch(`${url}/api/v1/cli/sessions.events`, { method: 'POST', dispatcher, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ projectId: project.id, sessionKey: sk }) })
      const through = await read(base, client)
      t.equal(through.status, 200)
      const bytes = Buffer.from(await through.arrayBuffer())
      const direct = Buffer.from(await (await read(cluster.url)).arrayBuffer())
      t.ok(bytes.byteLength > 3_000_000, `${(bytes.byteLength / 1e6).toFixed(1)} MB through ${kind}`)
      t.ok(bytes.equals(direct), 'the same bytes as read directly')
      const events = JSON.parse(bytes.toString()) as { data: { n: number } }[]
      t.same(events.map((e) => e.data.n), Array.from({ length: 200 }, (_, i) => i), 'every event, in order')
    })

    t.test('the dashboard signs in from its own origin; another origin is refused', async (t) => {
      const context = await browser.newContext({ ignoreHTTPSErrors: true })
      t.teardown(() => context.close())
      const page = await context.newPage()
      page.setDefaultTimeout(15_000)
      await page.goto(`${base}/app/`)
      await page.getByLabel('Email').fill(OWNER.email)
      await page.getByLabel('Password').fill(OWNER.password)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()
      t.ok((await context.cookies()).some((c) => c.name === 'svc_session' && c.secure), 'a Secure session cookie over https')

      const foreign = await post(client, base, '/auth/login', { email: OWNER.email, password: OWNER.password }, { origin: 'https://evil.test' })
      t.same([foreign.status, foreign.json?.code], [401, 'unauthorized'], 'a page of another site cannot sign in')
    })

    t.test('svc whoami through the proxy', async (t) => {
      const home = tempHome(t)
      const cli = join(home, 'svc.mjs')
      writeFileSync(cli, Buffer.from(await (await fetch(`${base}/cli.mjs`, { dispatcher: client })).arrayBuffer()))
      const result = await runCli(cli, ['whoami', '--json'], { home, env: { SVC_API_KEY: apiKey, SVC_URL: `${base}/api/v1`, NODE_EXTRA_CA_CERTS: cert.cert } })
      t.equal(result.code, 0, result.stderr)
      t.match(result.json, { orgId: String })
    })

    t.test('40 wrong sign-ins from one client leave another client\'s right password accepted', async (t) => {
      const attacker = from(66)
      const owner = from(7)
      t.teardown(() => Promise.all([attacker.close(), owner.close()]))
      const guesses = []
      for (let i = 0; i < 40; i++) guesses.push(await post(attacker, base, '/auth/login', { email: OWNER.email, password: `wrong guess ${i}` }))
      t.ok(guesses.every((g) => g.status === 401 && g.json.code === 'unauthorized'), 'every guess is refused')
      t.equal(guesses.filter((g) => g.headers.get('retry-after') === null).length, 5, 'the attacker gets 5 guesses at the account, then waits')
      const right = await post(owner, base, '/auth/login', OWNER)
      t.equal(right.status, 200, 'the owner signs in from elsewhere')
      if (right.status !== 200) t.comment(right.text, cluster.output().split('\n').filter((l) => /throttled/.test(l)).join('\n'))
      const still = await post(attacker, base, '/auth/login', OWNER)
      t.same([still.status, still.json.code], [401, 'unauthorized'], 'the attacker is still throttled, even with the right password')
      t.ok(Number(still.headers.get('retry-after')) > 0)

      const sprayer = from(67)
      t.teardown(() => sprayer.close())
      const spray = []
      for (let i = 0; i < 40; i++) spray.push(await post(sprayer, base, '/auth/login', { email: `nobody${i}@acme.test`, password: 'wrong guess!' }))
      t.equal(spray.filter((g) => g.headers.get('retry-after') === null).length, 30, 'a spray from one address runs dry at 30')
      t.equal((await post(owner, base, '/auth/login', OWNER)).status, 200, 'and does not refuse the right password from another')
      t.match(cluster.output(), new RegExp(`"msg":"sign-in throttled"[^\\n]*"client":"${CLIENT_NET[kind].replace(/\./g, '\\.')}\\.66"`), 'the log names the client, not the proxy')
    })
  })
}

t.test('behind nginx with TRUST_PROXY unset: /metrics is not local for the proxy\'s clients, and the log and /health say what to set', { skip: missing.includes('nginx') && 'nginx is not installed' }, async (t) => {
  const port = await freePort()
  const cluster = await clusterFor(t, { workers: 1 })
  const proxy = await startProxy('nginx', port, cluster.port, cert)
  t.teardown(() => proxy.stop())
  const client = clientFrom('127.0.4.1')
  t.teardown(() => client.close())
  const base = `https://127.0.0.1:${port}`
  const quiet = (await (await fetch(`${cluster.url}/health`)).json()) as { warnings?: string[] }
  t.equal(quiet.warnings, undefined, 'no warning before a proxy was seen')
  const metrics = await fetch(`${base}/metrics`, { dispatcher: client })
  t.same([metrics.status, ((await metrics.json()) as { code: string }).code], [401, 'unauthorized'], 'a client of the proxy is not let in as a local scraper')
  t.equal((await fetch(`${cluster.url}/metrics`)).status, 200, 'a scraper on this host that comes directly still is')
  const health = (await (await fetch(`${base}/health`, { dispatcher: client })).json()) as { warnings?: string[] }
  t.match(health.warnings, [/TRUST_PROXY=127\.0\.0\.1/], `/health names the setting: ${health.warnings?.[0]}`)
  const warned = cluster.output().split('\n').filter((line) => line.includes('TRUST_PROXY does not name it'))
  t.equal(warned.length, 1, 'the log warns once, not once per request')
  t.match(warned[0], /"fix":"TRUST_PROXY=127\.0\.0\.1"/)
})
