/**
 * README's five minutes to a first replay, followed as a new user would:
 * `npm start`, then `npm run admin -- create-key`, whose owner has no
 * password; the sign-in link it prints takes that owner into the dashboard,
 * in a real browser. Then the command-line path of step 4 (`svc login`,
 * `svc projects create`, `svc snippet`), the snippet pasted into a page's
 * <head>, a visitor who moves the mouse, and the owner finding the session
 * through the API and replaying it in the dashboard.
 */
import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import { join } from 'node:path'
import t from 'tap'
import { flushTracker, launchBrowser, openPage, trackerStarted, until } from '../helpers/browser.js'
import { downloadCli, runCli, tempHome } from '../helpers/cli.js'
import { clusterFor, DIST, type Cluster } from '../helpers/cluster.js'
import { openDashboard, shoot, signIn } from '../helpers/dashboard.js'

const EMAIL = 'you@acme.test'

/** `npm run admin -- …` against the cluster's data directory and port, as a user's shell would run it. */
function admin(cluster: Cluster, args: string[]): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, DATA_DIR: cluster.dataDir, PORT: String(cluster.port), HOST: '127.0.0.1' }
    const child = spawn(process.execPath, [join(DIST, 'admin.js'), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.once('error', reject)
    child.once('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`admin ${args[0]} exited ${code}: ${err}`))))
  })
}

t.test('the owner create-key makes signs in to the dashboard through the link it prints', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const browser = await launchBrowser(t)
  const created = await admin(cluster, ['create-key', '--org', 'Acme', '--email', EMAIL])
  t.match(created.signInUrl, new RegExp(`^${cluster.url}/app/#/invite/svc_iv_`), 'create-key prints a dashboard link for the owner')

  const tab = await openDashboard(browser, cluster.url)
  t.teardown(tab.close)
  const { page } = tab
  await page.goto(created.signInUrl)
  await page.getByRole('heading', { name: 'Join your organisation' }).waitFor()
  await page.getByLabel('Your email').fill('someone-else@acme.test')
  await page.getByLabel('Password').fill('a long enough password')
  await page.getByRole('button', { name: 'Join' }).click()
  await page.getByRole('alert').waitFor()
  t.match(await page.getByRole('alert').textContent(), /another email/, 'the link signs in only the user it was made for')

  await page.getByLabel('Your email').fill(EMAIL)
  await page.getByRole('button', { name: 'Join' }).click()
  await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()
  await shoot(page, '23-owner-first-sign-in')
  const state = await page.evaluate(() => fetch('/api/v1/auth/state').then((r) => r.json()))
  t.match(state, { signedIn: true, user: { email: EMAIL, orgName: 'Acme' } }, 'signed in as the owner create-key made')
  const members = await page.evaluate(async () => {
    const csrf = (await fetch('/api/v1/auth/state').then((r) => r.json())).csrfToken
    return fetch('/api/v1/auth/members.list', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body: '{}' }).then((r) => r.json())
  })
  t.match(members.members, [{ email: EMAIL, role: 'owner' }], 'still the owner, not a new member')
  t.same(tab.problems.filter((p) => !/status of 401/.test(p)), [], 'no console errors, page errors or CSP violations')

  await t.test('README step 4 to 6: the CLI makes the project and prints the snippet, a page with it records a visit, the owner replays it', async (t) => {
    const home = tempHome(t)
    const cli = await downloadCli(cluster.url, home)
    const svc = (args: string[], input?: string) => runCli(cli, args, { home, input })
    const login = await svc(['login'], `${created.apiKey}\n`)
    t.equal(login.code, 0, `svc login takes the key create-key printed: ${login.stderr}`)
    const made = await svc(['projects', 'create', 'Acme site', '--domain', '127.0.0.1', '--json'])
    t.equal(made.code, 0, made.stderr)
    const projectId: string = made.json.project?.id ?? made.json.id
    t.match(projectId, /^prj_/, 'svc projects create names the project')
    const snippet = await svc(['snippet', projectId])
    t.equal(snippet.code, 0, snippet.stderr)
    t.match(snippet.stdout, /<script/, 'svc snippet prints the snippet alone on stdout')

    // The user's page: the snippet, unchanged, in its <head>.
    const site = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>Acme</title>${snippet.stdout}</head><body><h1>Acme home</h1><p>Welcome.</p></body></html>`))
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
    t.teardown(() => new Promise<void>((resolve) => site.close(() => resolve())))
    const visitor = await openPage(browser)
    t.teardown(visitor.close)
    const address = site.address()
    await visitor.page.goto(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`)
    await visitor.page.mouse.move(120, 80)
    await visitor.page.mouse.move(300, 200, { steps: 5 })
    await trackerStarted(visitor.page)
    await flushTracker(visitor.page)

    const sessions = await until('the visit listed by sessions.list', async () => {
      const answer = await fetch(`${cluster.url}/api/v1/cli/sessions.list`, { method: 'POST', headers: { authorization: `Bearer ${created.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ projectId }) })
      const body = (await answer.json()) as { sessions?: unknown[] }
      return body.sessions?.length ? body.sessions : undefined
    })
    t.equal(sessions.length, 1, 'one session, found through the API')
    // The dashboard has been open since before the CLI made the project: its list is fetched again for it.
    await page.goto(`${cluster.url}/app/#/p/${projectId}/sessions`)
    await page.getByTestId('sessions').getByRole('link', { name: 'Replay' }).first().click()
    await page.frameLocator('.player-target iframe').getByRole('heading', { name: 'Acme home' }).waitFor()
    t.pass('the owner replays the visit in the dashboard')
    t.same(visitor.pageErrors, [], 'the recorded page saw no error')
  })

  await t.test('the link works once; sign-in-link lets the owner choose a new password', async (t) => {
    const again = await openDashboard(browser, cluster.url)
    t.teardown(again.close)
    await again.page.goto(created.signInUrl)
    await again.page.getByLabel('Your email').fill(EMAIL)
    await again.page.getByLabel('Password').fill('another long password')
    await again.page.getByRole('button', { name: 'Join' }).click()
    await again.page.getByRole('alert').waitFor()
    t.match(await again.page.getByRole('alert').textContent(), /used or has expired/)

    const reset = await admin(cluster, ['sign-in-link', '--email', EMAIL])
    await again.page.goto(reset.signInUrl)
    await again.page.getByLabel('Your email').fill(EMAIL)
    await again.page.getByLabel('Password').fill('a brand new password')
    await again.page.getByRole('button', { name: 'Join' }).click()
    await again.page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()

    const fresh = await openDashboard(browser, cluster.url)
    t.teardown(fresh.close)
    await signIn(fresh.page, EMAIL, 'a brand new password')
    await fresh.page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()
    t.pass('the new password signs in')
  })
})
