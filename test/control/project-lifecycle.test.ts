/**
 * projects.rename and projects.delete through the real cluster (issue 34):
 * each refusal with its status and code; a rename that keeps everything
 * else; a deletion after which the project is in no list, every operation
 * naming it answers 404, its public key records nothing and its setup token
 * authorises nothing, and whose erasure removes what it recorded; both
 * audited by the project's id. No compaction here (COMPACTION_DELAY_MS a day).
 */
import t from 'tap'
import { call } from '../helpers/api.js'
import { clusterFor } from '../helpers/cluster.js'
import { seedProject } from '../helpers/seed.js'
import { postChunk, postSignals } from '../helpers/read.js'

const NOW = Date.now()

async function until<T>(what: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await what()
    if (done(value) || Date.now() > deadline) return value
    await new Promise((r) => setTimeout(r, 50))
  }
}

t.test('projects are renamed, and deleted with everything recorded in them', async (t) => {
  const cluster = await clusterFor(t, { workers: 1, env: { COMPACTION_DELAY_MS: String(24 * 60 * 60 * 1000) } })
  const { apiKey, project } = await seedProject(cluster.dataDir)
  const other = await seedProject(cluster.dataDir, 'Elsewhere', 'owner@elsewhere.test')
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
    t.equal((await call(cluster.url, '/cli/projects.list', { token: other.apiKey })).body.projects[0].name, 'Elsewhere site', 'another organisation\'s project keeps its name')
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
