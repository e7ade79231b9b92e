/**
 * `svc erase` and `svc erasures` against a real cluster (issue 34): usage
 * errors for anything but one subject, a dry run that counts and removes
 * nothing, an erasure followed to its end with progress on stderr, the
 * list, and the server's codes on failure. No compaction here
 * (COMPACTION_DELAY_MS a day): test/recordings/erasure-files.test.ts has it.
 */
import t from 'tap'
import { cliSetup } from '../helpers/cli.js'
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
  t.same(dry.json, { dryRun: true, wouldRemove: { sessions: 2, chunks: 2, bytes: 2 * body.byteLength, signalBatches: 0 } })
  const dryHuman = await svc(['erase', projectId, '--user', 'u-cli', '--dry-run'], { env })
  t.match(dryHuman.stdout, /Would erase 2 sessions, 2 chunks .* Nothing was removed\./)

  const erased = await svc(['erase', projectId, '--user', 'u-cli'], { env })
  t.equal(erased.code, 0, erased.stderr)
  t.match(erased.stdout, /Erased: 2 sessions, 2 chunks/)
  t.match(erased.stderr, /Erasure er_[0-9a-f]{24} (queued|running|done)/, 'progress goes to stderr')

  const listed = await svc(['erasures', projectId, '--json'], { env })
  t.equal(listed.code, 0, listed.stderr)
  t.match(listed.json.erasures, [{ subject: 'userId', state: 'done', removed: { sessions: 2 }, scrubbed: false }])
  const table = await svc(['erasures', projectId], { env })
  t.match(table.stdout, /ID +REQUESTED \(UTC\) +BY +STATE +EXAMINED +ERASED +BYTES +SCRUBBED/)
  t.match(table.stdout, /userId +done +\d+ +2 /)

  const left = await fetch(`${cluster.url}/api/v1/cli/sessions.list`, { method: 'POST', headers: { authorization: `Bearer ${seeded.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ projectId }) })
  t.same((await left.json()).sessions.map((s: any) => s.sessionKey), ['s3'])
})
