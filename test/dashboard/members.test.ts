/**
 * Members in the dashboard, in two browsers: the owner removes a member on the
 * Members screen and the member's open dashboard is signed out at its next
 * step; a member changes their password and signs out everywhere from Account.
 */
import t from 'tap'
import { launchBrowser, until } from '../helpers/browser.js'
import { clusterFor } from '../helpers/cluster.js'
import { openDashboard, OWNER, ownerSession, PHONE, sessionCookie, shoot, signIn } from '../helpers/dashboard.js'

const MEMBER = { email: 'member@acme.test', password: 'member long password' }

t.test('members in a browser', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const browser = await launchBrowser(t)
  const session = await ownerSession(cluster.url)

  /** A member joins through an invite link the owner's session creates, in a browser of their own. */
  async function memberTab(email: string) {
    const state = await (await fetch(`${cluster.url}/api/v1/auth/state`, { headers: { cookie: `svc_session=${session}` } })).json()
    const invite = await (await fetch(`${cluster.url}/api/v1/auth/invite`, { method: 'POST', headers: { cookie: `svc_session=${session}`, 'x-csrf-token': state.csrfToken } })).json()
    const tab = await openDashboard(browser, cluster.url)
    t.teardown(tab.close)
    await tab.page.goto(invite.inviteUrl)
    await tab.page.getByLabel('Your email').fill(email)
    await tab.page.getByLabel('Password').fill(MEMBER.password)
    await tab.page.getByRole('button', { name: 'Join' }).click()
    await tab.page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()
    return tab
  }

  await t.test('the owner removes a member: the member\'s other browser is signed out at once', async (t) => {
    const member = await memberTab(MEMBER.email)
    const owner = await openDashboard(browser, cluster.url, { session })
    t.teardown(owner.close)
    await owner.page.getByRole('link', { name: 'Members' }).click()
    await owner.page.getByRole('heading', { level: 1, name: 'Members' }).waitFor()
    const rows = owner.page.getByTestId('members').locator('tbody tr')
    await until('both members listed', async () => (await rows.count()) === 2)
    t.match(await rows.nth(0).textContent(), new RegExp(`${OWNER.email}.*Owner.*You`), 'the owner first, marked as owner and as you')
    t.match(await rows.nth(1).textContent(), new RegExp(`${MEMBER.email}.*${OWNER.email}`), 'the member, invited by the owner')
    t.equal(await rows.nth(0).getByRole('button', { name: 'Remove' }).count(), 0, 'the owner cannot be removed')
    await shoot(owner.page, '20-members')

    // The member sees the list too, without a Remove button.
    await member.page.getByRole('link', { name: 'Members' }).click()
    await member.page.getByTestId('members').locator('tbody tr').nth(1).waitFor()
    t.equal(await member.page.getByRole('button', { name: 'Remove' }).count(), 0, 'a member cannot remove anyone')
    await member.page.getByRole('link', { name: 'Projects' }).click()
    await member.page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()

    await rows.nth(1).getByRole('button', { name: 'Remove' }).click()
    await owner.page.getByRole('button', { name: `Remove ${MEMBER.email}` }).click()
    await owner.page.getByRole('status').filter({ hasText: 'Removed' }).waitFor()
    t.match(await owner.page.getByRole('status').filter({ hasText: 'Removed' }).textContent(), /1 session ended/)
    await until('the member gone from the list', async () => (await rows.count()) === 1)
    await shoot(owner.page, '21-member-removed')

    // The member's dashboard, still open: its very next call is refused and it falls back to sign-in.
    const replay = await member.page.evaluate(() => fetch('/api/v1/cli/projects.list', { method: 'POST' }).then((r) => r.status))
    t.equal(replay, 401, 'the member\'s session is dead on the server')
    await member.page.getByRole('link', { name: 'Members' }).click()
    await member.page.getByRole('heading', { name: 'Sign in' }).waitFor()
    await signIn(member.page, MEMBER.email, MEMBER.password)
    await member.page.getByRole('alert').waitFor()
    t.match(await member.page.getByRole('alert').textContent(), /email or the password is wrong/, 'and cannot sign in again')
    t.same([...owner.problems, ...member.problems.filter((p) => !/status of 401/.test(p))], [])
  })

  await t.test('Account: changing the password signs out the other browsers; signing out everywhere signs out this one too', async (t) => {
    const here = await memberTab('second@acme.test')
    const there = await openDashboard(browser, cluster.url, PHONE)
    t.teardown(there.close)
    await signIn(there.page, 'second@acme.test', MEMBER.password)
    await there.page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()

    await here.page.getByRole('link', { name: 'Account' }).click()
    await here.page.getByRole('heading', { level: 1, name: 'Account' }).waitFor()
    await here.page.getByLabel('Current password').fill('not my password')
    await here.page.getByLabel('New password').fill('a brand new password')
    await here.page.getByRole('button', { name: 'Change password' }).click()
    await here.page.getByRole('alert').waitFor()
    t.match(await here.page.getByRole('alert').textContent(), /current password is wrong/, 'a wrong current password is refused, and the page stays signed in')
    await here.page.getByLabel('Current password').fill(MEMBER.password)
    await here.page.getByLabel('New password').fill('a brand new password')
    await here.page.getByRole('button', { name: 'Change password' }).click()
    await here.page.getByRole('status').filter({ hasText: 'Password changed' }).waitFor()
    t.match(await here.page.getByRole('status').filter({ hasText: 'Password changed' }).textContent(), /1 other session was signed out/)
    await shoot(here.page, '22-account')
    await there.page.getByRole('link', { name: 'Members' }).click()
    await there.page.getByRole('heading', { name: 'Sign in' }).waitFor()
    t.pass('the other browser is signed out at its next step')

    const cookie = await sessionCookie(here.context)
    await here.page.getByRole('button', { name: 'Sign out everywhere' }).click()
    await here.page.getByRole('button', { name: 'Sign out of every browser' }).click()
    await here.page.getByRole('heading', { name: 'Sign in' }).waitFor()
    const replay = await fetch(`${cluster.url}/api/v1/cli/projects.list`, { method: 'POST', headers: { cookie: `svc_session=${cookie}` } })
    t.equal(replay.status, 401, 'this browser\'s session ended on the server too')
    await signIn(here.page, 'second@acme.test', 'a brand new password')
    await here.page.getByRole('heading', { level: 1, name: 'Account' }).waitFor()
    t.pass('the new password signs in again, back on the screen it left')
    t.same([...here.problems, ...there.problems].filter((p) => !/status of 401/.test(p)), [])
  })
})
