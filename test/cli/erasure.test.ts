/**
 * `svc erase` and `svc erasures` against a real cluster (issue 34): usage
 * errors for anything but one subject, a dry run that counts and removes
 * nothing, an erasure followed to its end with progress on stderr, the
 * list, and the server's codes on failure. No compaction here
 * (COMPACTION_DELAY_MS a day): test/recordings/erasure-files.test.ts has it.
 */
import t from 'tap'
import { cliSetup, runCliInProcess } from '../helpers/cli.js'
import { clusterFor } from '../helpers/cluster.js'
import { postChunk } from '../helpers/read.js'

const cluster = await clusterFor(t, { workers: 1, env: { COMPACTION_DELAY_MS: String(24 * 60 * 60 * 1000) } })
const NOW = Date.now()

t.test('erase: one subject, a dry run, an erasure followed to its end, and erasures lists it', async (t) => {
  const { seeded, svc } = await cliSetup(t, cluster)
  const env = { SVC_API_KEY: seeded.apiKey }
  const projectId = seeded.project.id
  const body = Buffer.from(JSON.stringify([{ type: 3, timestamp: NOW, data: { source: 1 } }]))
  for (const [sk, userId] of [['s1', 'u-cli'], ['s2', 'u-cli'], ['s3', 'u-other']]) {
    t.equal(await postChunk(cluster.url, seeded.project.publicKey, { sk, seq: 0, startedAt: NOW - 60_000, firstTs: NOW - 60_000, lastTs: NOW - 1_000, identity: { userId } }, body), 200)
  }

  for (const args of [[], ['--user', 'u', '--session', 's'], ['--from', '2026-01-01'], ['--from', 'yesterday', '--until', 'today'], ['--page', 'shop.test/']]) {
    const answer = await svc(['erase', projectId, ...args, '--json'], { env })
    t.same([answer.code, answer.error?.code], [2, 'usage'], `svc erase ${args.join(' ')}`)
  }
  const unknown = await svc(['erase', 'prj_nothere', '--user', 'u-cli', '--json'], { env })
  t.same([unknown.code, unknown.error?.code], [1, 'not_found'], 'an unknown project: the server\'s code')

  const dry = await svc(['erase', projectId, '--user', 'u-cli', '--dry-run', '--json'], { env })
  t.equal(dry.code, 0, dry.stderr)
  t.same(dry.json, { dryRun: true, wouldRemove: { sessions: 2, chunks: 2, bytes: 2 * body.byteLength, signalBatches: 0 }, confirmation: dry.json.confirmation })
  const dryHuman = await svc(['erase', projectId, '--user', 'u-cli', '--dry-run'], { env })
  t.match(dryHuman.stdout, /Would erase 2 sessions, 2 chunks .* Nothing was removed\./)

  const erased = await svc(['erase', projectId, '--user', 'u-cli'], { env })
  t.equal(erased.code, 0, erased.stderr)
  t.match(erased.stdout, /Erased: 2 sessions, 2 chunks/)
  t.match(erased.stderr, /Erasure er_[0-9a-f]{24} (queued|running|done)/, 'progress goes to stderr')
  t.match(erased.stderr, /Erasing 2 sessions, 2 chunks/, 'after what its dry run counted, whose confirmation it sends')

  const listed = await svc(['erasures', projectId, '--json'], { env })
  t.equal(listed.code, 0, listed.stderr)
  t.match(listed.json.erasures, [{ subject: 'userId', state: 'done', removed: { sessions: 2 }, scrubbed: false }])
  const table = await svc(['erasures', projectId], { env })
  t.match(table.stdout, /ID +REQUESTED \(UTC\) +BY +STATE +EXAMINED +ERASED +BYTES +SCRUBBED/)
  t.match(table.stdout, /userId +done +\d+ +2 /)

  const left = await fetch(`${cluster.url}/api/v1/cli/sessions.list`, { method: 'POST', headers: { authorization: `Bearer ${seeded.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ projectId }) })
  t.same((await left.json()).sessions.map((s: any) => s.sessionKey), ['s3'])
})

t.test('projects rename, and projects delete only with --yes', async (t) => {
  const { seeded, svc } = await cliSetup(t, cluster)
  const env = { SVC_API_KEY: seeded.apiKey }
  const projectId = seeded.project.id
  const body = Buffer.from(JSON.stringify([{ type: 3, timestamp: NOW, data: { source: 1 } }]))
  t.equal(await postChunk(cluster.url, seeded.project.publicKey, { sk: 's1', seq: 0, startedAt: NOW - 60_000, firstTs: NOW - 60_000, lastTs: NOW - 1_000 }, body), 200)

  const renamed = await svc(['projects', 'rename', projectId, 'Shop (EU)'], { env })
  t.equal(renamed.code, 0, renamed.stderr)
  t.match(renamed.stdout, /Renamed: prj_\w+ is now Shop \(EU\)\./)
  const blank = await svc(['projects', 'rename', projectId, '  ', '--json'], { env })
  t.same([blank.code, blank.error?.code], [1, 'invalid_request'], 'a blank name: the server\'s code')
  const missing = await svc(['projects', 'rename', 'prj_nothere', 'X', '--json'], { env })
  t.same([missing.code, missing.error?.code], [1, 'not_found'])

  const unconfirmed = await svc(['projects', 'delete', projectId, '--json'], { env })
  t.same([unconfirmed.code, unconfirmed.error?.code], [2, 'usage'], 'no deletion without --yes')
  t.equal((await svc(['projects', 'list', '--json'], { env })).json.projects.length, 1, 'and the project is still there')
  const deleted = await svc(['projects', 'delete', projectId, '--yes', '--json'], { env })
  t.equal(deleted.code, 0, deleted.stderr)
  t.match(deleted.json, { ok: true, erasure: { state: 'done', subject: 'project', removed: { sessions: 1, chunks: 1 } } })
  t.same((await svc(['projects', 'list', '--json'], { env })).json.projects, [])
  const again = await svc(['projects', 'delete', projectId, '--yes', '--json'], { env })
  t.same([again.code, again.error?.code], [1, 'not_found'], 'a deleted project is not found')
})

t.test('the CLI\'s run(), called in this process from its sources, answers as the downloaded file does', async (t) => {
  const { seeded, svc, home } = await cliSetup(t, cluster)
  const env = { SVC_API_KEY: seeded.apiKey }
  const projectId = seeded.project.id
  const body = Buffer.from(JSON.stringify([{ type: 3, timestamp: NOW, data: { source: 1 } }]))
  t.equal(await postChunk(cluster.url, seeded.project.publicKey, { sk: 'in-process', seq: 0, startedAt: NOW - 60_000, firstTs: NOW - 60_000, lastTs: NOW - 1_000, identity: { userId: 'u-here' } }, body), 200)
  const inProcess = (args: string[]) => runCliInProcess(cluster.url, args, { home, env })

  const args = ['erase', projectId, '--user', 'u-here', '--dry-run', '--json']
  const [started, here] = [await svc(args, { env }), await inProcess(args)]
  t.same([here.code, here.json.wouldRemove], [started.code, started.json.wouldRemove], 'the same dry run')
  t.match((await inProcess(['erase', projectId, '--user', 'u-here', '--dry-run'])).stdout, /Would erase 1 sessions, 1 chunks .* Nothing was removed\./)
  const usage = await inProcess(['erase', projectId, '--json'])
  t.same([usage.code, usage.error?.code], [2, 'usage'], 'no subject: a usage error, exit 2')
  // The entry's own branches: the conventional --version, a group's help, no command at all, a command's --help.
  t.match((await inProcess(['--version'])).stdout, /\d+\.\d+/)
  t.match((await inProcess(['projects'])).stdout, /projects create/)
  const bare = await inProcess([])
  t.same([bare.code, /svc <command>|Commands/i.test(bare.stdout)], [0, true], 'no command: the overview')
  t.match((await inProcess(['erase', '--help'])).stdout, /--dry-run/)
  const none = await inProcess(['--json'])
  t.same([none.code, none.error?.code], [2, 'usage'], 'flags and no command: a usage error')
  const erased = await inProcess(['erase', projectId, '--user', 'u-here'])
  t.equal(erased.code, 0, erased.stderr)
  t.match(erased.stdout, /Erased: 1 sessions, 1 chunks/)
  t.match(erased.stderr, /Erasing 1 sessions, 1 chunks/)
})
