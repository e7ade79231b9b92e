/**
 * Projects, Settings and API keys in a real browser: create a project with
 * its domain and path rules (a bad rule is caught as it is typed), copy the
 * snippet, preview path rules with the server's own grouping, copy an install
 * prompt that mints a working setup token and revoke it, create an API key
 * that is shown once and works, then revoke it; on a laptop, on a phone, and
 * from the keyboard.
 */
import t from 'tap'
import type { Page } from 'playwright-core'
import { groupUrl } from '../../src/grouping/group.js'
import { compileRules } from '../../src/grouping/rules.js'
import { call } from '../helpers/api.js'
import { launchBrowser } from '../helpers/browser.js'
import { clusterFor } from '../helpers/cluster.js'
import { clipboard, openDashboard, ownerSession, PHONE, shoot } from '../helpers/dashboard.js'

/** Calls the API from the page the way the dashboard does: its cookie and its CSRF token. */
async function fromPage(page: Page, route: string, body: unknown = {}): Promise<any> {
  return page.evaluate(
    async ({ route, body }) => {
      const state = await (await fetch('/api/v1/auth/state')).json()
      const res = await fetch(`/api/v1${route}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': state.csrfToken }, body: JSON.stringify(body) })
      return { status: res.status, body: await res.json() }
    },
    { route, body },
  )
}

const RULES = ['/docs/*', '/{tenant}/settings/*']

t.test('projects, settings and API keys in a browser', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const session = await ownerSession(cluster.url)
  const browser = await launchBrowser(t)
  const tab = await openDashboard(browser, cluster.url, { session })
  t.teardown(tab.close)
  const { page } = tab
  let projectId = ''
  let publicKey = ''

  await t.test('create a project with a domain and path rules; a rule that does not compile is flagged as it is typed', async (t) => {
    await page.getByRole('button', { name: 'Create your first project' }).click()
    await page.getByLabel('Name', { exact: true }).fill('Shop')
    await page.getByLabel('Domain').fill('shop.test')
    await page.getByLabel(/^Path rules/).fill([...RULES, '/{unclosed'].join('\n'))
    await page.getByTestId('invalid-rules').waitFor()
    t.match(await page.getByTestId('invalid-rules').textContent(), /\/\{unclosed/, 'the bad rule is named')
    await shoot(page, '10-create-project')
    await page.getByLabel(/^Path rules/).fill(RULES.join('\n'))
    t.equal(await page.getByTestId('invalid-rules').count(), 0, 'the flag goes when the rule is fixed')
    await page.getByRole('button', { name: 'Create project' }).click()
    await page.getByRole('heading', { name: 'Install', exact: true }).waitFor()
    t.match(await page.getByRole('status').first().textContent(), /Project Shop created/)
    const { body } = await fromPage(page, '/cli/projects.list')
    t.equal(body.projects.length, 1)
    t.match(body.projects[0], { name: 'Shop', domain: 'shop.test', pathRules: RULES, sessionCount: 0 }, 'created with its domain and rules')
    projectId = body.projects[0].id
    publicKey = body.projects[0].publicKey
    t.ok(page.url().includes(`#/p/${projectId}/settings`), 'the new project opens on its Settings')
  })

  await t.test('Settings shows the public key and the snippet; Copy snippet puts the exact snippet on the clipboard', async (t) => {
    t.equal(await page.getByTestId('public-key').textContent(), publicKey)
    const snippet = (await fromPage(page, '/cli/projects.snippet', { projectId })).body
    await page.getByTestId('snippet').waitFor()
    t.ok((await page.getByTestId('snippet').locator('pre').textContent())!.includes(publicKey), 'the snippet names the public key')
    await page.getByRole('button', { name: 'Copy snippet' }).click()
    await page.getByRole('button', { name: 'Copied' }).waitFor()
    t.equal(await clipboard(page), snippet.snippet, 'the clipboard holds the snippet the API serves')
    t.match(await page.getByTestId('install-check').textContent(), /Waiting for the first session.*0 sessions recorded/, 'the install check waits for the first session')
    await shoot(page, '11-settings')
  })

  await t.test('path rules: pasted URLs preview the pages the server will group them into; saving replaces the rules', async (t) => {
    const urls = ['https://shop.test/acme/settings/42', 'https://shop.test/docs/intro/2024-01-02', '/products/8b1f0c2e-3a4d-4f5e-9a6b-7c8d9e0f1a2b', 'https://shop.test/acme/orders/17']
    const form = page.locator('form', { has: page.getByRole('heading', { name: 'Path rules' }) })
    await form.getByLabel('Preview: paste URLs, one per line').fill(urls.join('\n'))
    const preview = async () => (await form.getByTestId('rules-preview').locator('tbody tr td:nth-child(2)').allTextContents()).map((s) => s.trim())
    const expected = (rules: string[]) => urls.map((u) => groupUrl(u.startsWith('/') ? `https://shop.test${u}` : u, compileRules(rules).rules).path)
    t.same(await preview(), expected(RULES), 'the preview is the server\'s grouping')
    t.same(await preview(), ['/{tenant}/settings/:id', '/docs/intro/:date', '/products/:uuid', '/acme/orders/:id'])
    const more = [...RULES, '/{tenant}/{section}/*']
    await form.getByLabel(/^Path rules/).fill(more.join('\n'))
    t.same(await preview(), expected(more), 'the preview follows the rules as they are edited')
    t.equal((await preview())[3], '/{tenant}/{section}/:id')
    await shoot(page, '12-path-rules-preview')
    await form.getByRole('button', { name: 'Save rules' }).click()
    await form.getByText('Rules saved.').waitFor()
    const { body } = await fromPage(page, '/cli/projects.list')
    t.same(body.projects[0].pathRules, more, 'saved')
  })

  await t.test('Copy install prompt mints a setup token and copies a prompt naming /skill.md, the key, the token and the direct URL; revoke refuses it', async (t) => {
    await page.getByRole('button', { name: 'Copy install prompt' }).click()
    await page.getByTestId('install-prompt').waitFor()
    const prompt = await clipboard(page)
    t.ok(prompt.includes(`${cluster.url}/skill.md`), 'names the skill')
    t.ok(prompt.includes(publicKey), 'names the public key')
    t.ok(prompt.includes(`Server: ${cluster.url}`), 'names the direct URL')
    const token = /export SVC_SETUP_TOKEN=(svc_st_\S+)/.exec(prompt)?.[1]
    t.ok(token, 'tells the agent to export the token in its shell')
    t.equal((await page.getByTestId('install-prompt').locator('pre').textContent())!.trim(), prompt.trim(), 'the prompt is shown too')
    const whoami = await call(cluster.url, '/setup/whoami', { token: token!, prefix: '/api' })
    t.equal(whoami.status, 200, 'the token works at the direct address')
    t.equal(whoami.body.project.name, 'Shop')
    await shoot(page, '13-install-prompt')

    await page.getByRole('button', { name: 'Revoke setup tokens' }).click()
    await page.getByRole('button', { name: 'Revoke every setup token' }).click()
    await page.getByTestId('revoked').waitFor()
    t.match(await page.getByTestId('revoked').textContent(), /Revoked 1 setup token/)
    const after = await call(cluster.url, '/setup/whoami', { token: token!, prefix: '/api' })
    t.same([after.status, after.body.code], [401, 'unauthorized'], 'the revoked token is refused')
  })

  await t.test('API keys: created and shown once, works, listed masked with its last use, revoked', async (t) => {
    await page.getByRole('link', { name: 'API keys' }).click()
    await page.getByRole('heading', { name: 'No API keys' }).waitFor()
    await page.getByLabel('Label').fill('CI')
    await page.getByRole('button', { name: 'Create key' }).click()
    const secret = (await page.getByTestId('new-key-value').textContent())!.trim()
    t.match(secret, /^svc_sk_/, 'the key is shown')
    await page.getByTestId('new-key').getByRole('button', { name: 'Copy key' }).click()
    t.equal(await clipboard(page), secret, 'and copied')
    await shoot(page, '14-key-created')
    const whoami = await call(cluster.url, '/cli/whoami', { token: secret })
    t.match([whoami.status, whoami.body.label], [200, 'CI'], 'the key works')

    await page.reload()
    const row = page.getByTestId('keys').locator('tbody tr', { hasText: 'CI' })
    await row.waitFor()
    t.notOk((await page.content()).includes(secret), 'after a reload the secret is nowhere on the page')
    t.match(await row.locator('td').first().textContent(), /svc_sk_.*…|svc_sk_\*+|svc_sk_.*\.\.\./, 'listed masked')
    t.match(await row.textContent(), /just now/, 'with its last use')
    await shoot(page, '15-keys')
    await row.getByRole('button', { name: 'Revoke' }).click()
    await row.getByRole('button', { name: 'Revoke CI' }).click()
    await page.getByRole('heading', { name: 'No API keys' }).waitFor()
    const refused = await call(cluster.url, '/cli/whoami', { token: secret })
    t.same([refused.status, refused.body.code], [401, 'unauthorized'], 'the revoked key is refused')
  })

  await t.test('the project list shows session counts; an empty project shows the snippet and the install check', async (t) => {
    await page.getByRole('link', { name: 'Projects' }).click()
    const row = page.locator('tbody tr', { hasText: 'Shop' })
    await row.waitFor()
    t.equal((await row.getByTestId('session-count').textContent())!.trim(), '0')
    await shoot(page, '16-projects')
    await page.goto(`${cluster.url}/app/#/p/${projectId}/sessions`)
    await page.getByTestId('empty-project').waitFor()
    await page.getByTestId('empty-project').getByTestId('snippet').waitFor()
    t.ok(await page.getByTestId('empty-project').getByTestId('snippet').isVisible(), 'the empty project shows the snippet')
    t.match(await page.getByTestId('empty-project').textContent(), new RegExp(`svc sessions count ${projectId} --watch`), 'and the CLI install check')
    await shoot(page, '17-empty-project')
  })

  await t.test('keyboard: the main navigation and the forms work without a mouse, and a new screen focuses its heading', async (t) => {
    await page.goto(`${cluster.url}/app/#/projects`)
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()
    // Focus moves in an effect, after the screen paints.
    const headingFocused = () => page.waitForFunction(() => document.activeElement?.tagName === 'H1').then(() => true, () => false)
    t.ok(await headingFocused(), 'a loaded screen focuses its heading')
    await page.getByRole('link', { name: 'Skip to content' }).focus()
    await page.keyboard.press('Enter')
    t.equal(await page.evaluate(() => document.activeElement?.id), 'main', 'the skip link moves focus to the content')
    // Back from the content into the header, to the main navigation.
    let guard = 0
    while ((await page.evaluate(() => document.activeElement?.textContent)) !== 'API keys' && guard++ < 10) await page.keyboard.press('Shift+Tab')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor()
    t.ok(await headingFocused(), 'the new screen\'s heading has focus')
    await page.keyboard.press('Tab')
    t.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement)?.name), 'label', 'the next stop is the form')
    await page.keyboard.type('keyboard')
    await page.keyboard.press('Enter')
    await page.getByTestId('new-key').waitFor()
    t.pass('a key was created from the keyboard')
    const focusRing = await page.evaluate(() => {
      const button = document.querySelector<HTMLButtonElement>('[data-testid="new-key"] button')!
      button.focus()
      return getComputedStyle(button).boxShadow
    })
    t.not(focusRing, 'none', 'focus is visible')
  })

  await t.test('on a phone: the screens fit the width', async (t) => {
    const phone = await openDashboard(browser, cluster.url, { session, viewport: PHONE })
    t.teardown(phone.close)
    for (const [route, name, heading] of [
      ['#/projects', '20-phone-projects', 'Projects'],
      [`#/p/${projectId}/settings`, '21-phone-settings', 'Shop'],
      ['#/keys', '22-phone-keys', 'API keys'],
    ]) {
      await phone.page.goto(`${cluster.url}/app/${route}`)
      await phone.page.getByRole('heading', { level: 1, name: heading }).waitFor()
      await phone.page.waitForLoadState('networkidle')
      // Against the phone's width, not innerWidth: a mobile layout viewport grows to fit content that overflows.
      const overflow = await phone.page.evaluate((width) => document.documentElement.scrollWidth - width, PHONE.width)
      t.ok(overflow <= 0, `${route}: nothing wider than the screen (${overflow} px over)`)
      await shoot(phone.page, name)
    }
    const revoke = await phone.page.getByRole('button', { name: 'Revoke' }).first().boundingBox()
    t.ok(revoke && revoke.x + revoke.width <= PHONE.width, 'a key\'s Revoke button is on screen, not scrolled off')
    t.same(phone.problems, [])
  })

  t.same(tab.problems, [], 'no console errors, page errors or CSP violations')
})
