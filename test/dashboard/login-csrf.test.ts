/**
 * Login CSRF in Chromium: a page on another origin (another loopback port)
 * tries to sign the victim's browser in to the attacker's organisation, with
 * an auto-submitted text/plain form and with a JSON fetch. Both
 * are refused and the victim's dashboard session is unchanged.
 */
import { createServer } from 'node:http'
import t from 'tap'
import { launchBrowser } from '../helpers/browser.js'
import { clusterFor } from '../helpers/cluster.js'
import { openDashboard, OWNER, ownerSession, sessionCookie } from '../helpers/dashboard.js'
import { seedProject } from '../helpers/seed.js'

const CAROL = { email: 'carol@other.test', password: 'attacker password!' }

/**
 * The attacker's site: `/form` auto-submits a JSON-shaped text/plain form; `/fetch` posts real JSON
 * (after a CORS preflight the API allows; with credentials Chromium would not even send it, ACAO being *).
 */
async function attackerSite(t: { teardown(fn: () => unknown): void }, clusterUrl: string): Promise<string> {
  const action = `${clusterUrl}/api/v1/auth/login`
  const form = `<!doctype html><title>win a prize</title>
<form id="f" method="POST" action="${action}" enctype="text/plain">
<input name='{"email":"${CAROL.email}","password":"${CAROL.password}","z":"' value='"}'></form>
<script>document.getElementById('f').submit()</script>`
  const fetcher = `<!doctype html><title>win a prize</title>
<script>fetch(${JSON.stringify(action)}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(JSON.stringify(CAROL))} }).catch(() => {})</script>`
  const server = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(req.url === '/form' ? form : fetcher))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const address = server.address()
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
}

t.test('a cross-origin page cannot sign the victim in to another organisation', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const browser = await launchBrowser(t)
  const session = await ownerSession(cluster.url)
  // The attacker's own organisation and account (carol), made the way any organisation is: its owner's key invites her.
  const other = await seedProject(cluster.dataDir, 'Evil Corp', 'boss@other.test')
  const invite = await (await fetch(`${cluster.url}/api/v1/auth/invite`, { method: 'POST', headers: { authorization: `Bearer ${other.apiKey}` } })).json()
  const joined = await fetch(`${cluster.url}/api/v1/auth/accept-invite`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: invite.inviteUrl.split('/invite/')[1], ...CAROL }) })
  t.equal(joined.status, 200, 'carol can sign in, to Evil Corp')

  const tab = await openDashboard(browser, cluster.url, { session })
  t.teardown(tab.close)
  await tab.page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()
  const attacker = await attackerSite(t, cluster.url)

  for (const [path, status, code] of [['/form', 400, 'invalid_request'], ['/fetch', 401, 'unauthorized']] as const) {
    const evil = await tab.context.newPage()
    const answered = evil.waitForResponse((r) => r.url().endsWith('/auth/login') && r.request().method() === 'POST')
    await evil.goto(`${attacker}${path}`)
    const response = await answered
    t.equal(response.status(), status, `${path}: the forged sign-in is refused`)
    t.equal((await response.json()).code, code, `${path}: with ${code}`)
    t.notOk(response.headers()['set-cookie'], `${path}: and sets no cookie`)
    await evil.close()
    t.equal(await sessionCookie(tab.context), session, `${path}: the browser still holds the victim's session cookie`)
    const state = await tab.page.evaluate(() => fetch('/api/v1/auth/state').then((r) => r.json()))
    t.match(state, { signedIn: true, user: { email: OWNER.email, orgName: 'Acme' } }, `${path}: the dashboard is still the victim's own organisation`)
  }
  t.same(tab.problems, [])
})
