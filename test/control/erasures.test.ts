/**
 * erasures.create, erasures.get and erasures.list through the real cluster
 * (issue 34): every bound of the request refused with its status and code, a
 * dry run that removes nothing, an erasure in the background that removes a
 * user's sessions and nothing else, the same request answering the same id,
 * and the audit entry holding the erasure's id, not whom it named; a user
 * id is in no answer, no stored erasure record and no audit entry, the
 * request recording it by keyed hash (issue 42). Then
 * projects.rename and projects.delete: each refusal with its status and code;
 * a rename that keeps everything else; a deletion after which the project is
 * in no list, every operation naming it answers 404, its public key records
 * nothing and its setup token authorises nothing, and whose erasure removes
 * what it recorded; both audited by the project's id. An erasure that names
 * nobody asks for no compaction, dry runs are audited, and an organisation's
 * erasure starts are bounded per hour. One cluster for both
 * (a start costs seconds); no compaction here (COMPACTION_DELAY_MS a day):
 * test/recordings/erasure-files.test.ts has it.
 */
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { call } from '../helpers/api.js'
import { clusterFor } from '../helpers/cluster.js'
import { seedProject, storeAt } from '../helpers/seed.js'
import { postChunk, postSignals } from '../helpers/read.js'
import { ERASURES_PER_HOUR } from '../../src/control/operations/erasures.js'
import { compactionWanted } from '../../src/store/lmdb/compaction.js'

const NOW = Date.now()
const USER = 'user-to-forget@shop.test'

async function until<T>(what: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await what()
    if (done(value) || Date.now() > deadline) return value
    await new Promise((r) => setTimeout(r, 50))
  }
}

const cluster = await clusterFor(t, { workers: 1, env: { COMPACTION_DELAY_MS: String(24 * 60 * 60 * 1000) } })

t.test('erasure requests: bounds, dry run, background erasure by user id, idempotence, audit', async (t) => {
  const { apiKey, project } = await seedProject(cluster.dataDir)
  const other = await seedProject(cluster.dataDir, 'Elsewhere', 'owner@elsewhere.test')
  const body = Buffer.from(JSON.stringify([{ type: 3, timestamp: NOW, data: { source: 1 } }]))
  for (const [sk, userId] of [['s-gone-1', USER], ['s-gone-2', USER], ['s-kept', 'someone-else']]) {
    t.equal(await postChunk(cluster.url, project.publicKey, { sk, seq: 0, startedAt: NOW - 60_000, firstTs: NOW - 60_000, lastTs: NOW - 1_000, identity: { userId } }, body), 200)
    t.equal(await postSignals(cluster.url, project.publicKey, { sk, vid: `v-${sk}`, clicks: [{ url: 'https://shop.test/', ts: NOW - 30_000, xRatio: 0.5, yDoc: 10, kind: 'rage', n: 3 }] }), 200)
  }
  const post = (route: string, payload: unknown, token = apiKey) => call(cluster.url, route, { token, body: payload })
  // Folded before any erasure, so that there are aggregate entries to erase.
  const folded = await until(() => post('/cli/friction.list', { projectId: project.id, since: NOW - 3_600_000, until: NOW + 60_000 }), (a) => a.body.items?.length === 3)
  t.equal(folded.body.items.length, 3, 'the fold counted every session')

  t.test('refuses what is not an erasure request, with status and code', async (t) => {
    const refusals: [string, unknown, number, string][] = [
      ['no subject', { projectId: project.id }, 400, 'invalid_request'],
      ['two subjects', { projectId: project.id, by: { sessionKey: 's', userId: 'u' } }, 400, 'invalid_request'],
      ['an empty session key', { projectId: project.id, by: { sessionKey: '' } }, 400, 'invalid_request'],
      ['a user id past 256 characters', { projectId: project.id, by: { userId: 'u'.repeat(257) } }, 400, 'invalid_request'],
      ['an unknown subject', { projectId: project.id, by: { email: 'a@b.c' } }, 400, 'invalid_request'],
      ['a query without until', { projectId: project.id, by: { query: { from: NOW } } }, 400, 'invalid_request'],
      ['a query ending before it starts', { projectId: project.id, by: { query: { from: NOW, until: NOW - 1 } } }, 400, 'invalid_request'],
      ['a time before 2000', { projectId: project.id, by: { query: { from: 0, until: NOW } } }, 400, 'invalid_request'],
      ['a page past 2,000 characters', { projectId: project.id, by: { query: { from: NOW - 1, until: NOW, page: 'p'.repeat(2001) } } }, 400, 'invalid_request'],
      ['dryRun not a boolean', { projectId: project.id, by: { userId: USER }, dryRun: 'yes' }, 400, 'invalid_request'],
      ['a member past the documented ones', { projectId: project.id, by: { userId: USER }, force: true }, 400, 'invalid_request'],
      ['an unknown project', { projectId: 'prj_nothere', by: { userId: USER } }, 404, 'not_found'],
      ['another organisation\'s project', { projectId: other.project.id, by: { userId: USER } }, 404, 'not_found'],
    ]
    for (const [what, payload, status, code] of refusals) {
      const answer = await post('/cli/erasures.create', payload)
      t.same([answer.status, answer.body.code], [status, code], what)
    }
    const gets: [string, unknown, number, string][] = [
      ['no id', {}, 400, 'invalid_request'],
      ['an id of another shape', { erasureId: 'prj_123' }, 400, 'invalid_request'],
      ['an unknown id', { erasureId: 'er_0123456789abcdef01234567' }, 404, 'not_found'],
    ]
    for (const [what, payload, status, code] of gets) {
      const answer = await post('/cli/erasures.get', payload)
      t.same([answer.status, answer.body.code], [status, code], `erasures.get: ${what}`)
    }
    const list = await post('/cli/erasures.list', { projectId: other.project.id })
    t.same([list.status, list.body.code], [404, 'not_found'], 'erasures.list of another organisation\'s project')
    const unauthenticated = await call(cluster.url, '/cli/erasures.create', { body: { projectId: project.id, by: { userId: USER } } })
    t.same([unauthenticated.status, unauthenticated.body.code], [401, 'unauthorized'])
  })

  t.test('a dry run counts the user\'s sessions and removes nothing', async (t) => {
    const answer = await post('/cli/erasures.create', { projectId: project.id, by: { userId: USER }, dryRun: true })
    t.equal(answer.status, 200)
    t.same(answer.body, { dryRun: true, wouldRemove: { sessions: 2, chunks: 2, bytes: 2 * body.byteLength, signalBatches: 2 }, confirmation: answer.body.confirmation })
    t.match(answer.body.confirmation, /^[0-9a-z]+\.[A-Za-z0-9_-]{22}$/, 'with the confirmation a large erasure needs (test/control/erasure-confirmation.test.ts)')
    const sessions = await post('/cli/sessions.list', { projectId: project.id })
    t.equal(sessions.body.sessions.length, 3)
  })

  t.test('an erasure that names nobody finishes without asking for a compaction (which stops the service)', async (t) => {
    const created = await post('/cli/erasures.create', { projectId: project.id, by: { userId: 'nobody-at-all' } })
    t.equal(created.status, 200)
    const done = await until(() => post('/cli/erasures.get', { erasureId: created.body.erasure.id }), (a) => a.body.erasure?.state === 'done')
    t.match(done.body.erasure.removed, { sessions: 0, chunks: 0, signalBatches: 0, aggregateEntries: 0 })
    t.notOk(compactionWanted(cluster.dataDir), 'no compaction asked for')
  })

  t.test('an erasure by user id runs in the background and removes exactly that user\'s sessions', async (t) => {
    const created = await post('/cli/erasures.create', { projectId: project.id, by: { userId: USER } })
    t.equal(created.status, 200)
    t.equal(created.body.dryRun, false)
    const id = created.body.erasure.id as string
    t.match(id, /^er_[0-9a-f]{24}$/)
    const done = await until(() => post('/cli/erasures.get', { erasureId: id }), (a) => a.body.erasure?.state === 'done')
    t.match(done.body.erasure, { id, projectId: project.id, subject: 'userId', state: 'done', runs: 1, removed: { sessions: 2, chunks: 2, bytes: 2 * body.byteLength, signalBatches: 2 }, scrubbed: false })
    t.ok(done.body.erasure.removed.aggregateEntries > 0, 'aggregate entries naming the sessions went too')
    t.ok(done.body.erasure.sessionsExamined >= 3)
    t.notOk('by' in done.body.erasure, 'once done, the erasure no longer names the user')
    t.ok(compactionWanted(cluster.dataDir), 'one that removed something asks for its compaction')

    const sessions = await post('/cli/sessions.list', { projectId: project.id })
    t.same(sessions.body.sessions.map((s: any) => s.sessionKey), ['s-kept'])
    const chunks = await post('/cli/sessions.chunks', { projectId: project.id, sessionKey: 's-gone-1' })
    t.same([chunks.status, chunks.body.code], [404, 'not_found'], 'sessions.chunks of an erased session')
    const friction = await post('/cli/friction.list', { projectId: project.id, since: NOW - 3_600_000, until: NOW + 60_000 })
    t.same(friction.body.items.map((i: any) => i.sessionKey), ['s-kept'], 'friction items name only the session left')

    const again = await post('/cli/erasures.create', { projectId: project.id, by: { userId: USER } })
    t.equal(again.body.erasure.id, id, 'the same request answers the same id')
    const rerun = await until(() => post('/cli/erasures.get', { erasureId: id }), (a) => a.body.erasure?.state === 'done' && a.body.erasure.runs === 2)
    t.match(rerun.body.erasure.removed, { sessions: 0, chunks: 0, bytes: 0, signalBatches: 0, aggregateEntries: 0 }, 'and removes nothing more')
    const listed = (await post('/cli/erasures.list', { projectId: project.id })).body.erasures.map((e: any) => e.id)
    t.ok(listed.length === 2 && listed.includes(id), 'listed with the one that named nobody')

    const audit = await post('/auth/audit.list', {})
    const entries = audit.body.entries.filter((e: any) => e.action === 'erasure.create' && e.target === id)
    t.same(entries.map((e: any) => e.target), [id, id], 'each request audited by its id')
    const dryRuns = audit.body.entries.filter((e: any) => e.action === 'erasure.dry_run')
    t.same(dryRuns.map((e: any) => [e.target, e.detail]), [[project.id, 'userId']], 'the dry run too, by project and kind of subject (it tells whether a user has data)')
    t.notOk(JSON.stringify(audit.body).includes(USER), 'the audit log never holds the user id it named')
  })
})

t.test('an erasure by user id records the user by keyed hash only: no answer, no stored erasure record and no audit entry holds the id', async (t) => {
  const { apiKey, project } = await seedProject(cluster.dataDir, 'Hashed', 'owner@hashed.test')
  const marker = `MARKUSER-${randomBytes(8).toString('hex')}`
  const post = (route: string, payload: unknown) => call(cluster.url, route, { token: apiKey, body: payload })
  const body = Buffer.from(JSON.stringify([{ type: 3, timestamp: NOW, data: { source: 1 } }]))
  for (const [sk, userId] of [['s-marked', marker], ['s-other', 'someone-else']]) {
    t.equal(await postChunk(cluster.url, project.publicKey, { sk, seq: 0, startedAt: NOW - 60_000, firstTs: NOW - 60_000, lastTs: NOW - 1_000, identity: { userId } }, body), 200)
    t.equal(await postSignals(cluster.url, project.publicKey, { sk, vid: `v-${sk}`, clicks: [{ url: 'https://shop.test/', ts: NOW - 30_000, xRatio: 0.5, yDoc: 10 }] }), 200)
  }
  const dryRun = await post('/cli/erasures.create', { projectId: project.id, by: { userId: marker }, dryRun: true })
  t.same([dryRun.status, dryRun.body.wouldRemove], [200, { sessions: 1, chunks: 1, bytes: body.byteLength, signalBatches: 1 }], 'a dry run reads by the id itself')

  const created = await post('/cli/erasures.create', { projectId: project.id, by: { userId: marker } })
  t.equal(created.status, 200)
  t.match(created.body.erasure, { subject: 'userId', projectId: project.id })
  t.notOk('by' in created.body.erasure, 'the first answer names the kind of subject, not the user')
  const id = created.body.erasure.id as string
  const stored = storeAt(cluster.dataDir)
  const recorded = stored.getErasure(id)
  t.ok(recorded, 'the stored record')
  t.notOk(JSON.stringify(recorded).includes(marker), `the stored record holds no user id (${recorded?.state})`)
  // Caught while it runs it still names its subject, by keyed hash; once done, not at all.
  t.same(recorded?.by && Object.keys(recorded.by).sort(), recorded?.state === 'done' ? undefined : ['hash', 'hashOf'])

  const done = await until(() => post('/cli/erasures.get', { erasureId: id }), (a) => a.body.erasure?.state === 'done')
  t.equal(done.status, 200)
  t.match(done.body.erasure, { id, subject: 'userId', state: 'done', removed: { sessions: 1, chunks: 1, signalBatches: 1 } })
  const listed = await post('/cli/erasures.list', { projectId: project.id })
  t.equal(listed.status, 200)
  t.same(listed.body.erasures.map((e: { id: string }) => e.id), [id])
  const audit = await post('/auth/audit.list', {})
  t.equal(audit.status, 200)
  t.ok(audit.body.entries.some((e: { action: string; target: string }) => e.action === 'erasure.create' && e.target === id), 'the request is audited by its id')
  for (const [what, answer] of [['erasures.create', created.body], ['erasures.get', done.body], ['erasures.list', listed.body], ['audit.list', audit.body], ['the stored record, done', stored.getErasure(id)], ['every stored erasure of the project', stored.listErasures(project.id)]] as const) {
    t.notOk(JSON.stringify(answer).includes(marker), `${what}: no user id`)
  }
  t.same((await post('/cli/sessions.list', { projectId: project.id })).body.sessions.map((s: { sessionKey: string }) => s.sessionKey), ['s-other'], 'the user\'s session went, the other stayed')
})

t.test('an organisation starts at most ERASURES_PER_HOUR erasures an hour; the same request again while it runs is no new start', async (t) => {
  const { apiKey, project } = await seedProject(cluster.dataDir, 'Eraser', 'owner@eraser.test')
  const post = (body: unknown) => call(cluster.url, '/cli/erasures.create', { token: apiKey, body })
  const answers = []
  for (let i = 0; i < ERASURES_PER_HOUR; i++) answers.push((await post({ projectId: project.id, by: { userId: `nobody-${i}` } })).status)
  t.same(answers, Array(ERASURES_PER_HOUR).fill(200), `${ERASURES_PER_HOUR} started`)
  const refused = await post({ projectId: project.id, by: { userId: 'one-more' } })
  t.same([refused.status, (refused.body as { code?: string }).code], [429, 'overloaded'], 'the next is refused')
  t.ok(Number(refused.headers.get('retry-after')) > 3000, `with Retry-After near an hour (${refused.headers.get('retry-after')} s)`)
  const dryRun = await post({ projectId: project.id, by: { userId: 'one-more' }, dryRun: true })
  t.equal(dryRun.status, 200, 'a dry run is not an erasure')
})

t.test('projects are renamed, and deleted with everything recorded in them', async (t) => {
  const { apiKey, project } = await seedProject(cluster.dataDir, 'Lifecycle', 'owner@lifecycle.test')
  const other = await seedProject(cluster.dataDir, 'Lifecycle elsewhere', 'owner@lifecycle-elsewhere.test')
  const post = (route: string, body: unknown) => call(cluster.url, route, { token: apiKey, body })
  const body = Buffer.from(JSON.stringify([{ type: 3, timestamp: NOW, data: { source: 1 } }]))
  for (const sk of ['s1', 's2']) {
    t.equal(await postChunk(cluster.url, project.publicKey, { sk, seq: 0, startedAt: NOW - 60_000, firstTs: NOW - 60_000, lastTs: NOW - 1_000 }, body), 200)
    t.equal(await postSignals(cluster.url, project.publicKey, { sk, vid: `v-${sk}`, clicks: [{ url: 'https://shop.test/', ts: NOW - 30_000, xRatio: 0.5, yDoc: 10, kind: 'rage', n: 3 }] }), 200)
  }
  const token = (await post('/cli/projects.setup-token', { projectId: project.id })).body.token as string
  // Folded before the deletion, so that it has aggregate entries to erase.
  const folded = await until(() => post('/cli/friction.list', { projectId: project.id, since: NOW - 3_600_000, until: NOW + 60_000 }), (a) => a.body.items?.length === 2)
  t.equal(folded.body.items.length, 2, 'the fold counted both sessions')

  t.test('rename: refusals with status and code, then the new name and nothing else changed', async (t) => {
    const refusals: [string, unknown, number, string][] = [
      ['no name', { projectId: project.id }, 400, 'invalid_request'],
      ['a blank name', { projectId: project.id, name: '   ' }, 400, 'invalid_request'],
      ['a name past 200 characters', { projectId: project.id, name: 'n'.repeat(201) }, 400, 'invalid_request'],
      ['a member past the documented ones', { projectId: project.id, name: 'New', domain: 'x.test' }, 400, 'invalid_request'],
      ['no project', { name: 'New' }, 400, 'invalid_request'],
      ['an unknown project', { projectId: 'prj_nothere', name: 'New' }, 404, 'not_found'],
      ['another organisation\'s project', { projectId: other.project.id, name: 'New' }, 404, 'not_found'],
    ]
    for (const [what, payload, status, code] of refusals) {
      const answer = await post('/cli/projects.rename', payload)
      t.same([answer.status, answer.body.code], [status, code], what)
    }
    const renamed = await post('/cli/projects.rename', { projectId: project.id, name: '  Acme renamed ' })
    t.equal(renamed.status, 200)
    t.match(renamed.body.project, { id: project.id, name: 'Acme renamed', publicKey: project.publicKey, sessionCount: 2 })
    t.equal((await call(cluster.url, '/cli/projects.list', { token: other.apiKey })).body.projects[0].name, 'Lifecycle elsewhere site', 'another organisation\'s project keeps its name')
  })

  t.test('delete: refusals, then gone at once, its recordings erased in the background', async (t) => {
    const refusals: [string, unknown, number, string][] = [
      ['no project', {}, 400, 'invalid_request'],
      ['a member past the documented ones', { projectId: project.id, force: true }, 400, 'invalid_request'],
      ['an unknown project', { projectId: 'prj_nothere' }, 404, 'not_found'],
      ['another organisation\'s project', { projectId: other.project.id }, 404, 'not_found'],
    ]
    for (const [what, payload, status, code] of refusals) {
      const answer = await post('/cli/projects.delete', payload)
      t.same([answer.status, answer.body.code], [status, code], what)
    }

    const deleted = await post('/cli/projects.delete', { projectId: project.id })
    t.equal(deleted.status, 200)
    t.match(deleted.body, { ok: true, erasure: { subject: 'project', projectId: project.id } })
    t.notOk('by' in deleted.body.erasure)
    t.same((await post('/cli/projects.list', {})).body.projects, [], 'in no list at once')
    for (const [route, payload] of [
      ['/cli/sessions.list', { projectId: project.id }],
      ['/cli/projects.rename', { projectId: project.id, name: 'Again' }],
      ['/cli/projects.delete', { projectId: project.id }],
      ['/cli/erasures.list', { projectId: project.id }],
    ] as const) {
      const answer = await post(route, payload)
      t.same([answer.status, answer.body.code], [404, 'not_found'], `${route} answers 404 for a deleted project`)
    }
    const ingest = await fetch(`${cluster.url}/api/v1/ingest?pk=${project.publicKey}`, { method: 'POST', headers: { 'x-svc-meta': JSON.stringify({ sk: 's3', vid: 'v', seq: 0, encoding: 'json' }), 'content-type': 'application/octet-stream' }, body })
    t.same([ingest.status, (await ingest.json()).code], [404, 'not_found'], 'its public key records nothing more')
    const setup = await call(cluster.url, '/setup/whoami', { token })
    t.same([setup.status, setup.body.code], [401, 'unauthorized'], 'its setup token authorises nothing')

    const id = deleted.body.erasure.id as string
    const done = await until(() => post('/cli/erasures.get', { erasureId: id }), (a) => a.body.erasure?.state === 'done')
    t.match(done.body.erasure, { state: 'done', subject: 'project', removed: { sessions: 2, chunks: 2, signalBatches: 2 } })
    t.ok(done.body.erasure.removed.aggregateEntries > 0, 'the aggregates went too')
    const foreign = await call(cluster.url, '/cli/erasures.get', { token: other.apiKey, body: { erasureId: id } })
    t.same([foreign.status, foreign.body.code], [404, 'not_found'], 'another organisation does not see the deletion')
    t.equal((await call(cluster.url, '/cli/sessions.list', { token: other.apiKey, body: { projectId: other.project.id } })).status, 200, 'another organisation\'s project is untouched')

    const audit = await post('/auth/audit.list', {})
    t.same(audit.body.entries.filter((e: any) => e.action.startsWith('project.') && e.action !== 'project.create').map((e: any) => [e.action, e.target]), [['project.delete', project.id], ['project.rename', project.id]])
  })
})
