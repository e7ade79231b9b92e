/**
 * A project's storage over the API and the CLI (issue 32): projects.storage
 * says what the project holds and what a recorded minute costs;
 * projects.retention sets a retention shorter than RETENTION_DAYS, refuses a
 * longer one, and clears it with null; `svc projects storage` and
 * `svc projects retention` print and set the same.
 */
import t from 'tap'
import { call } from '../helpers/api.js'
import { cliSetup } from '../helpers/cli.js'
import { clusterFor } from '../helpers/cluster.js'
import { seedProject } from '../helpers/seed.js'
import { writeRecordings } from '../helpers/storage-load.js'

const cluster = await clusterFor(t, { workers: 1, env: { RETENTION_DAYS: '30' } })

t.test('projects.storage: recording bytes exactly, recorded minutes, bytes per recorded minute', async (t) => {
  const { seeded, svc } = await cliSetup(t, cluster)
  const projectId = seeded.project.id
  const empty = await call(cluster.url, '/cli/projects.storage', { token: seeded.apiKey, body: { projectId } })
  t.equal(empty.status, 200)
  t.match(empty.body, { projectId, chunkBytes: 0, recordedMinutes: 0, bytesPerRecordedMinute: null, retentionDays: 30 })

  // 3 sessions of 2 chunks of 10 KB, each chunk 10 s of recording: 60 KB over 1 minute.
  await writeRecordings({ url: cluster.url, projects: [{ pk: seeded.project.publicKey, weight: 1 }], totalBytes: 60 * 1024, chunkBytes: 10 * 1024, chunksPerSession: 2, writers: 1 })
  const held = await call(cluster.url, '/cli/projects.storage', { token: seeded.apiKey, body: { projectId } })
  t.match(held.body, { chunkBytes: 60 * 1024, recordedMinutes: 1, bytesPerRecordedMinute: 60 * 1024 })

  const printed = await svc(['projects', 'storage', projectId], { env: { SVC_API_KEY: seeded.apiKey } })
  t.equal(printed.code, 0, printed.stderr)
  t.match(printed.stdout, /Recordings +60 KB/)
  t.match(printed.stdout, /Per recorded minute +60 KB/)
  const json = await svc(['projects', 'storage', projectId, '--json'], { env: { SVC_API_KEY: seeded.apiKey } })
  t.same(json.json, held.body, '--json prints the API\'s answer')

  const other = await seedProject(cluster.dataDir, 'Other', 'owner@other.test')
  const foreign = await call(cluster.url, '/cli/projects.storage', { token: other.apiKey, body: { projectId } })
  t.equal(foreign.status, 404)
  t.equal(foreign.body.code, 'not_found', 'another organisation\'s project is not found')
})

t.test('projects.retention: at most RETENTION_DAYS, null for the deployment\'s again', async (t) => {
  const { seeded, svc } = await cliSetup(t, cluster)
  const projectId = seeded.project.id
  const set = await call(cluster.url, '/cli/projects.retention', { token: seeded.apiKey, body: { projectId, retentionDays: 7 } })
  t.equal(set.status, 200)
  t.equal(set.body.project.retentionDays, 7)
  const listed = await call(cluster.url, '/cli/projects.list', { token: seeded.apiKey })
  t.equal(listed.body.projects[0].retentionDays, 7, 'the project says so')
  t.equal((await call(cluster.url, '/cli/projects.storage', { token: seeded.apiKey, body: { projectId } })).body.retentionDays, 7)

  for (const [what, retentionDays] of [['longer than RETENTION_DAYS', 31], ['zero', 0], ['a fraction', 1.5], ['a string', '7']] as const) {
    const refused = await call(cluster.url, '/cli/projects.retention', { token: seeded.apiKey, body: { projectId, retentionDays } })
    t.equal(refused.status, 400, `${what}: 400`)
    t.equal(refused.body.code, 'invalid_request', `${what}: invalid_request`)
  }
  const missing = await call(cluster.url, '/cli/projects.retention', { token: seeded.apiKey, body: { projectId } })
  t.equal(missing.status, 400)
  t.equal(missing.body.code, 'invalid_request', 'retentionDays is required (null clears it)')
  const nobody = await call(cluster.url, '/cli/projects.retention', { body: { projectId, retentionDays: 7 } })
  t.equal(nobody.status, 401)
  t.equal(nobody.body.code, 'unauthorized')
  const unknown = await call(cluster.url, '/cli/projects.retention', { token: seeded.apiKey, body: { projectId: 'prj_nope', retentionDays: 7 } })
  t.equal(unknown.status, 404)
  t.equal(unknown.body.code, 'not_found')
  t.equal((await call(cluster.url, '/cli/projects.list', { token: seeded.apiKey })).body.projects[0].retentionDays, 7, 'nothing refused changed it')

  const cleared = await call(cluster.url, '/cli/projects.retention', { token: seeded.apiKey, body: { projectId, retentionDays: null } })
  t.equal(cleared.status, 200)
  t.equal(cleared.body.project.retentionDays, null)

  const env = { SVC_API_KEY: seeded.apiKey }
  const saved = await svc(['projects', 'retention', projectId, '5'], { env })
  t.equal(saved.code, 0, saved.stderr)
  t.equal((await svc(['projects', 'retention', projectId, '--json'], { env })).json.retentionDays, 5)
  t.equal((await svc(['projects', 'retention', projectId], { env })).stdout.trim(), '5 days')
  const tooLong = await svc(['projects', 'retention', projectId, '90', '--json'], { env })
  t.equal(tooLong.code, 1)
  t.equal(tooLong.error.code, 'invalid_request', 'the server\'s refusal, as the CLI reports errors')
  const notANumber = await svc(['projects', 'retention', projectId, 'soon'], { env })
  t.equal(notANumber.code, 2, 'not a number: a usage error')
  t.equal((await svc(['projects', 'retention', projectId, 'default', '--json'], { env })).json.retentionDays, null)
})
