/**
 * Roles and the audit log in the dashboard (issue 34), in two browsers: the
 * owner makes a member a viewer on the Members screen; the viewer's dashboard
 * then offers nothing a viewer cannot do (no invites, no new projects or
 * keys, no project settings, no audit log) and still opens a replay; the
 * owner's Audit log screen shows each of those actions, newest first.
 * The owner then erases a user's sessions on the Privacy tab (a dry run
 * first) and one session from its replay, renames the project and deletes
 * it; the audit log shows the erasures and the rename.
 * Screenshots: 40-members-roles, 41-viewer-projects, 42-audit-log, 43-audit-erasure, 44-privacy.
 */
import t from 'tap'
import { postChunk } from '../helpers/read.js'
import { launchBrowser, until } from '../helpers/browser.js'
import { clusterFor } from '../helpers/cluster.js'
import { openDashboard, OWNER, ownerSession, shoot } from '../helpers/dashboard.js'

const VIEWER = { email: 'viewer@acme.test', password: 'viewer long password' }
/** A recording the replay screen plays: a page load and its (empty) page. */
const page = { type: 0, id: 1, childNodes: [{ type: 2, id: 2, tagName: 'html', attributes: {}, childNodes: [{ type: 2, id: 3, tagName: 'body', attributes: {}, childNodes: [] }] }] }
const PLAYABLE = new TextEncoder().encode(
  JSON.stringify([
    { type: 4, timestamp: 1_700_000_000_000, data: { href: 'https://shop.test/', width: 800, height: 600 } },
    { type: 2, timestamp: 1_700_000_000_001, data: { node: page, initialOffset: { top: 0, left: 0 } } },
  ]),
)

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
  t.equal(await postChunk(cluster.url, project.publicKey, { sk: 'sk-watched', seq: 0 }, PLAYABLE), 200, 'a recording to watch')

  const invite = await ownerApi('/auth/invite')
  const viewer = await openDashboard(browser, cluster.url)
  t.teardown(viewer.close)
  await viewer.page.goto(invite.inviteUrl)
  await viewer.page.getByLabel('Your email').fill(VIEWER.email)
  await viewer.page.getByLabel('Password').fill(VIEWER.password)
  await viewer.page.getByRole('button', { name: 'Join' }).click()
  await viewer.page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()
  // The button comes with the project list, a moment after the heading.
  await viewer.page.getByRole('button', { name: 'New project' }).waitFor()
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
  t.equal(await tabs.getByRole('link', { name: 'Privacy' }).count(), 0, 'nor erasure requests')
  await viewer.page.goto(`${cluster.url}/app/#/p/${project.id}/replay/sk-watched`)
  await until('the replay was read', async () => (await ownerApi('/auth/audit.list')).entries.some((e: any) => e.action === 'session.replay'))
  await viewer.page.getByTestId('player').waitFor()
  t.equal(await viewer.page.getByRole('button', { name: 'Erase this session' }).count(), 0, 'nor erasing the session watched')

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

  // Erasure in the dashboard: a user's sessions from the Privacy tab, one session from its replay.
  for (const [sk, userId] of [['sk-ada-1', 'usr_ada'], ['sk-ada-2', 'usr_ada'], ['sk-bob', 'usr_bob']]) {
    t.equal(await postChunk(cluster.url, project.publicKey, { sk, seq: 0, identity: { userId } }, PLAYABLE), 200)
  }
  const sessionKeys = async () => ((await ownerApi('/cli/sessions.list', { projectId: project.id })).sessions as { sessionKey: string }[]).map((s) => s.sessionKey).sort()
  await until('the sessions listed', async () => (await sessionKeys()).length === 4)
  await owner.page.goto(`${cluster.url}/app/#/p/${project.id}/privacy`)
  const form = owner.page.getByTestId('erase-form')
  await form.getByRole('textbox', { name: 'User id' }).fill('usr_ada')
  await form.getByRole('button', { name: 'Count what would go' }).click()
  t.match(await owner.page.getByTestId('erase-preview').textContent(), /would erase 2 sessions \(2 recording chunks/, 'the dry run counts the user\'s two sessions')
  t.same(await sessionKeys(), ['sk-ada-1', 'sk-ada-2', 'sk-bob', 'sk-watched'], 'and removes nothing')
  await form.getByRole('button', { name: 'Erase', exact: true }).click()
  await form.getByRole('button', { name: 'Erase 2 sessions for good' }).click()
  const erasures = owner.page.getByTestId('erasures').locator('tbody tr')
  await until('the erasure done', async () => /done/.test((await erasures.first().textContent()) ?? ''))
  t.match(await erasures.first().textContent(), /a user.*done.*2 sessions/, 'the request listed, done, with what it removed')
  await shoot(owner.page, '44-privacy')
  t.same(await sessionKeys(), ['sk-bob', 'sk-watched'], 'the user\'s sessions are gone, the others stay')
  await owner.page.goto(`${cluster.url}/app/#/p/${project.id}/replay/sk-bob`)
  await owner.page.getByRole('button', { name: 'Erase this session' }).click()
  await owner.page.getByRole('button', { name: 'Erase its recording and signals for good' }).click()
  await owner.page.getByText('Erasure started').waitFor()
  await until('the session gone', async () => (await sessionKeys()).join() === 'sk-watched')
  t.pass('erased from its replay screen')

  // The project renamed, then deleted, from its Settings.
  await owner.page.goto(`${cluster.url}/app/#/p/${project.id}/settings`)
  const card = owner.page.getByTestId('project-card')
  await card.getByLabel('Name').fill('Shop EU')
  await card.getByRole('button', { name: 'Rename' }).click()
  await owner.page.getByRole('heading', { level: 1, name: 'Shop EU' }).waitFor()
  t.pass('renamed')
  await owner.page.getByRole('link', { name: 'Audit log' }).click()
  // Since the first look: the Privacy tab's dry run and erasure, the owner opening sk-bob's replay, its erasure, the rename.
  await until('the new entries shown', async () => (await rows.count()) === 13)
  t.same((await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action')))).slice(0, 5), ['project.rename', 'erasure.create', 'session.replay', 'erasure.create', 'erasure.dry_run'], 'the dry run, erasures and the rename in the audit log')
  await shoot(owner.page, '43-audit-erasure')
  await owner.page.goto(`${cluster.url}/app/#/p/${project.id}/settings`)
  await card.getByRole('button', { name: 'Delete project' }).click()
  await card.getByRole('button', { name: 'Delete Shop EU and everything recorded in it' }).click()
  await owner.page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor()
  t.equal((await ownerApi('/cli/projects.list')).projects.length, 0, 'deleted: no longer listed')

  t.same(owner.problems, [], 'the owner\'s dashboard ran clean')
})
