/**
 * Accounts in the dashboard, in a real browser: the first run creates the
 * organisation and its owner, sign-out ends the session on the server,
 * sign-in refuses a wrong password without saying which part was wrong, a
 * same-site page cannot make changes with the owner's cookie (CSRF), and an
 * invite link lets a second person join.
 */
import { createServer } from 'node:http'
import t from 'tap'
import { launchBrowser, until } from '../helpers/browser.js'
import { clusterFor } from '../helpers/cluster.js'
import { firstRun, openDashboard, OWNER, PHONE, sessionCookie, shoot, signIn } from '../helpers/dashboard.js'

/** A page on another loopback port: same site as the dashboard (ports do not make sites), another origin. */
async function attackerSite(t: { teardown(fn: () => unknown): void }, clusterUrl: string): Promise<string> {
  const page = `<!doctype html><title>attacker</title>
<form id="f" method="POST" action="${clusterUrl}/api/v1/cli/projects.create" enctype="text/plain">
<input name='{"name":"Planted by a form","x":"' value='"}'></form>
<script>document.getElementById('f').submit()</script>`
  // `/` forges a post; any other path is a blank page of the same origin to run scripts in.
  const server = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(req.url === '/' ? page : '<!doctype html><title>blank</title>'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const address = server.address()
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`
}

t.test('dashboard accounts in a browser', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const browser = await launchBrowser(t)

  await t.test('first run offers to create the organisation, then lands on an empty project list', async (t) => {
    const tab = await openDashboard(browser, cluster.url)
    t.teardown(tab.close)
    const { page } = tab
    await page.getByRole('heading', { name: 'Set up your organisation' }).waitFor()
    await shoot(page, '01-first-run')
    await firstRun(page)
    t.ok(await sessionCookie(tab.context), 'signed in: the session cookie is set')
    await page.getByRole('heading', { name: 'No projects yet' }).waitFor()
    t.ok(await page.getByText('Acme').first().isVisible(), 'the organisation name is in the header')
    await shoot(page, '02-projects-empty')
    const state = await page.evaluate(() => fetch('/api/v1/auth/state').then((r) => r.json()))
    t.match(state, { firstRun: false, signedIn: true, user: { email: OWNER.email, orgName: 'Acme' } })
    t.same(tab.problems, [], 'no console errors, page errors or CSP violations')
  })

  await t.test('sign-out ends the session on the server; sign-in refuses a wrong password, then accepts the right one', async (t) => {
    const tab = await openDashboard(browser, cluster.url)
    t.teardown(tab.close)
    const { page } = tab
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    t.notOk(await page.getByLabel('Organisation name').count(), 'after the first run, sign-in only')
    await signIn(page, OWNER.email, 'not the password')
    const alert = page.getByRole('alert')
    await alert.waitFor()
    t.match(await alert.textContent(), /email or the password is wrong/, 'a wrong password is refused without saying whether the email exists')
    await shoot(page, '03-sign-in-refused')
    await signIn(page, OWNER.email, OWNER.password)
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()
    const cookie = await sessionCookie(tab.context)
    t.ok(cookie, 'signed in')

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    await shoot(page, '04-signed-out')
    // The old cookie is dead on the server, not merely forgotten by the browser.
    const replay = await fetch(`${cluster.url}/api/v1/cli/projects.list`, { method: 'POST', headers: { cookie: `svc_session=${cookie}` } })
    t.same([replay.status, (await replay.json()).code], [401, 'unauthorized'], 'the ended session is refused')
    t.same(tab.problems, [])
  })

  await t.test('CSRF: a same-site page cannot change anything with the signed-in cookie, nor can a request without the token', async (t) => {
    const tab = await openDashboard(browser, cluster.url)
    t.teardown(tab.close)
    const { page, context } = tab
    await signIn(page, OWNER.email, OWNER.password)
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()

    // 1. A form on another port of 127.0.0.1 (same site, so SameSite=Strict still sends the cookie) posts JSON-shaped text/plain.
    const attacker = await attackerSite(t, cluster.url)
    const evil = await context.newPage()
    const answer = evil.waitForResponse((r) => r.url().includes('/cli/projects.create'))
    await evil.goto(attacker)
    const response = await answer
    t.equal(response.status(), 401, 'the forged post is refused')
    t.equal((await response.json()).code, 'unauthorized')
    t.ok((await response.request().allHeaders()).cookie?.includes('svc_session='), 'even though the browser sent the session cookie')
    await evil.close()

    // 2. From the dashboard's own origin, a change without X-CSRF-Token is refused; with it, accepted.
    const without = await page.evaluate(() =>
      fetch('/api/v1/cli/projects.create', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'No token' }) }).then(async (r) => [r.status, (await r.json()).code]),
    )
    t.same(without, [401, 'unauthorized'], 'a change without the CSRF token is refused')
    const list = await page.evaluate(() => fetch('/api/v1/cli/projects.list', { method: 'POST', headers: { 'x-csrf-token': 'f'.repeat(64) } }).then((r) => r.status))
    t.equal(list, 401, 'a wrong token is refused too')

    // 3. Another origin cannot read the CSRF token: the API answers CORS with *, which never carries credentials.
    const reader = await context.newPage()
    await reader.goto(`${attacker}reader`)
    t.equal(new URL(reader.url()).port, new URL(attacker).port, 'the reading page is on the other origin')
    const read = await reader.evaluate((url) => fetch(`${url}/api/v1/auth/state`, { credentials: 'include' }).then((r) => r.json()).then((s) => s.csrfToken ?? 'none', () => 'blocked'), cluster.url)
    t.equal(read, 'blocked', 'a credentialed read of /auth/state from another origin is blocked by the browser')
    await reader.close()

    await page.reload()
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()
    // The list loads after the heading: wait for its answer, whichever it is.
    await page.getByRole('heading', { name: 'No projects yet' }).or(page.locator('main table')).first().waitFor()
    t.ok(await page.getByRole('heading', { name: 'No projects yet' }).isVisible(), 'nothing was created by any of it')
  })

  await t.test('an invite link lets a second person join the organisation, once', async (t) => {
    const owner = await openDashboard(browser, cluster.url)
    t.teardown(owner.close)
    await signIn(owner.page, OWNER.email, OWNER.password)
    await owner.page.getByRole('link', { name: 'Invite people' }).click()
    await owner.page.getByRole('button', { name: 'Create invite link' }).click()
    const link = (await owner.page.getByTestId('invite-link').locator('code').textContent())!.trim()
    t.match(link, new RegExp(`^${cluster.url}/app/#/invite/svc_iv_`), 'the link opens the dashboard at the invite')
    await shoot(owner.page, '05-invite-link')

    const guest = await openDashboard(browser, cluster.url, PHONE)
    t.teardown(guest.close)
    await guest.page.goto(link)
    await guest.page.getByRole('heading', { name: 'Join your organisation' }).waitFor()
    await shoot(guest.page, '06-accept-invite-phone')
    await guest.page.getByLabel('Your email').fill('second@acme.test')
    await guest.page.getByLabel('Password').fill('another long password')
    await guest.page.getByRole('button', { name: 'Join' }).click()
    await guest.page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()
    const state = await guest.page.evaluate(() => fetch('/api/v1/auth/state').then((r) => r.json()))
    t.match(state.user, { email: 'second@acme.test', orgName: 'Acme' }, 'joined the same organisation')

    /** Someone else opens `invite` and tries to join: the dashboard must refuse. */
    const joinRefused = async (invite: string, email: string, why: string) => {
      const tab = await openDashboard(browser, cluster.url)
      t.teardown(tab.close)
      await tab.page.goto(invite)
      await tab.page.getByLabel('Your email').fill(email)
      await tab.page.getByLabel('Password').fill('another long password')
      await tab.page.getByRole('button', { name: 'Join' }).click()
      await tab.page.getByRole('alert').waitFor()
      t.match(await tab.page.getByRole('alert').textContent(), /used or has expired|not valid/, why)
      return tab
    }
    const third = await joinRefused(link, 'third@acme.test', 'the link works once')

    // The owner's list: the used link, and a second one revoked before anyone opens it.
    await owner.page.getByRole('button', { name: 'Create invite link' }).click()
    const rows = owner.page.getByTestId('invites').locator('tbody tr')
    await until('both links in the list', async () => (await rows.count()) === 2)
    const cards = owner.page.getByTestId('invite-link')
    t.equal(await cards.count(), 1, 'only the new link is still offered for copying: the used one is gone')
    const second = (await cards.first().locator('code').textContent())!.trim()
    t.not(second, link)
    t.match(await rows.nth(0).textContent(), /Waiting/, 'the new link waits')
    t.match(await rows.nth(1).textContent(), /Used/, 'the first was used')
    await rows.nth(0).getByRole('button', { name: 'Revoke' }).click()
    await owner.page.getByRole('button', { name: 'Revoke this link' }).click()
    await until('the link revoked', async () => /Revoked/.test((await rows.nth(0).textContent()) ?? ''))
    t.equal(await rows.nth(0).getByRole('button', { name: 'Revoke' }).count(), 0, 'nothing left to revoke on it')
    await shoot(owner.page, '07-invites-list')
    const fourth = await joinRefused(second, 'fourth@acme.test', 'the revoked link lets no one in')
    t.same([...owner.problems, ...guest.problems, ...third.problems, ...fourth.problems], [])
  })
})
