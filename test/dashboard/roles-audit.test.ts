/**
 * Roles and the audit log in the dashboard (issue 34), in two browsers: the
 * owner makes a member a viewer on the Members screen; the viewer's dashboard
 * then offers nothing a viewer cannot do (no invites, no new projects or
 * keys, no project settings, no audit log) and still opens a replay; the
 * owner's Audit log screen shows each of those actions, newest first.
 * Screenshots: 40-members-roles, 41-viewer-projects, 42-audit-log.
 */
import t from 'tap'
import { ingestChunk } from '../helpers/api.js'
import { launchBrowser, until } from '../helpers/browser.js'
import { clusterFor } from '../helpers/cluster.js'
import { openDashboard, OWNER, ownerSession, shoot } from '../helpers/dashboard.js'

const VIEWER = { email: 'viewer@acme.test', password: 'viewer long password' }

t.test('roles and the audit log in a browser', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const browser = await launchBrowser(t)
  const session = await ownerSession(cluster.url)
  const ownerApi = async (route: string, body: unknown = {}) => {
    const state = await (await fetch(`${cluster.url}/api/v1/auth/state`, { headers: { cookie: `svc_session=${session}` } })).json()
    const res = await fetch(`${cluster.url}/api/v1${route}`, { method: 'POST', headers: { cookie: `svc_session=${session}`, 'x-csrf-token': state.csrfToken, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return res.json()
  }
  const project = (await ownerApi('/cli/projects.create', { name: 'Shop' })).project
  t.equal(await ingestChunk(cluster.url, project.publicKey, 'sk-watched'), 200, 'a recording to watch')

  const invite = await ownerApi('/auth/invite')
  const viewer = await openDashboard(browser, cluster.url)
  t.teardown(viewer.close)
  await viewer.page.goto(invite.inviteUrl)
  await viewer.page.getByLabel('Your email').fill(VIEWER.email)
  await viewer.page.getByLabel('Password').fill(VIEWER.password)
  await viewer.page.getByRole('button', { name: 'Join' }).click()
  await viewer.page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()
  t.equal(await viewer.page.getByRole('button', { name: 'New project' }).count(), 1, 'a member joins as an admin, who creates projects')

  const owner = await openDashboard(browser, cluster.url, { session })
  t.teardown(owner.close)
  await owner.page.getByRole('link', { name: 'Members' }).click()
  const role = owner.page.getByLabel(`Role of ${VIEWER.email}`)
  await role.selectOption('viewer')
  await until('the role saved', async () => (await ownerApi('/auth/members.list')).members[1].role === 'viewer')
  await owner.page.reload()
  await until('the select shows it', async () => (await owner.page.getByLabel(`Role of ${VIEWER.email}`).inputValue()) === 'viewer')
  t.equal(await owner.page.getByRole('combobox').count(), 1, 'the owner\'s own role is not offered for change')
  await shoot(owner.page, '40-members-roles')

  // The viewer's open dashboard picks the role up at its next load.
  await viewer.page.reload()
  await viewer.page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()
  const nav = viewer.page.getByRole('navigation', { name: 'Main' })
  await nav.getByRole('link', { name: 'Members' }).waitFor()
  t.equal(await nav.getByRole('link', { name: 'Invite people' }).count(), 0, 'no invites offered to a viewer')
  t.equal(await nav.getByRole('link', { name: 'Audit log' }).count(), 0, 'nor the audit log')
  t.equal(await viewer.page.getByRole('button', { name: 'New project' }).count(), 0, 'nor a new project')
  await shoot(viewer.page, '41-viewer-projects')
  await nav.getByRole('link', { name: 'API keys' }).click()
  await viewer.page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor()
  t.equal(await viewer.page.getByRole('button', { name: 'Create key' }).count(), 0, 'nor a new API key')
  await viewer.page.goto(`${cluster.url}/app/#/p/${project.id}/sessions`)
  const tabs = viewer.page.getByRole('navigation', { name: 'Project' })
  await tabs.getByRole('link', { name: 'Heatmaps' }).waitFor()
  t.equal(await tabs.getByRole('link', { name: 'Settings' }).count(), 0, 'nor the project\'s settings')
  await viewer.page.goto(`${cluster.url}/app/#/p/${project.id}/replay/sk-watched`)
  await until('the replay was read', async () => (await ownerApi('/auth/audit.list')).entries.some((e: any) => e.action === 'session.replay'))

  // The owner changes a setting and creates a key in the dashboard, then reads the log.
  await owner.page.getByRole('link', { name: 'API keys' }).click()
  await owner.page.getByLabel('Label').fill('laptop')
  await owner.page.getByRole('button', { name: 'Create key' }).click()
  await owner.page.getByTestId('new-key').waitFor()
  await ownerApi('/cli/projects.path-rules', { projectId: project.id, rules: ['/{team}/*'] })
  await owner.page.getByRole('link', { name: 'Audit log' }).click()
  await owner.page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
  const rows = owner.page.getByTestId('audit').locator('tbody tr')
  await until('every entry shown', async () => (await rows.count()) === 8)
  const actions = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action')))
  t.same(actions, ['project.path_rules', 'key.create', 'session.replay', 'member.role', 'invite.accept', 'invite.create', 'project.create', 'org.setup'], 'newest first, each action once')
  t.match(await rows.nth(2).textContent(), new RegExp(`${VIEWER.email}.*Opened a replay.*${project.id}/sk-watched`), 'who opened which session\'s replay')
  t.match(await rows.nth(3).textContent(), new RegExp(`${OWNER.email}.*Set a member's role.*viewer`), 'who set which role')
  await shoot(owner.page, '42-audit-log')

  t.same(owner.problems, [], 'the owner\'s dashboard ran clean')
})
