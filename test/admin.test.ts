/** `npm run admin -- create-key`: one JSON line, usage errors exit 2, and it works beside a running cluster. */
import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { DIST, tempDataDir } from './helpers/cluster.js'
import { ingestCluster } from './helpers/ingest.js'

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function admin(dataDir: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(DIST, 'admin.js'), ...args], { env: { ...process.env, DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout, stderr }))
  })
}

function dataDirFor(t: { teardown(fn: () => unknown): void }): string {
  const dir = tempDataDir('svc-admin-')
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

t.test('create-key prints one JSON line with orgId, userId and an svc_sk_ key', async (t) => {
  const dir = dataDirFor(t)
  const run = await admin(dir, ['create-key', '--org', 'Acme', '--email', 'ada@acme.test', '--label', 'laptop'])
  t.equal(run.code, 0, run.stderr)
  t.match(run.stdout, /^[^\n]+\n$/, 'exactly one line')
  const printed = JSON.parse(run.stdout)
  t.match(printed, { orgId: /\S/, userId: /\S/, apiKey: /^svc_sk_/, signInUrl: /\/app\/#\/invite\/svc_iv_/ })
  t.same(Object.keys(printed).sort(), ['apiKey', 'orgId', 'signInExpiresAt', 'signInUrl', 'userId'], 'a user without a password also gets a sign-in link')
})

t.test('create-key reuses the organisation and the user, and mints a new key each time', async (t) => {
  const dir = dataDirFor(t)
  const first = JSON.parse((await admin(dir, ['create-key', '--org', 'Acme', '--email', 'ada@acme.test'])).stdout)
  const second = JSON.parse((await admin(dir, ['create-key', '--org', 'Acme', '--email', 'ADA@acme.test'])).stdout)
  t.equal(second.orgId, first.orgId)
  t.equal(second.userId, first.userId)
  t.not(second.apiKey, first.apiKey)
})

t.test('usage errors exit 2 with the usage on stderr and nothing on stdout', async (t) => {
  const dir = dataDirFor(t)
  const cases = [
    ['no-such-command'],
    ['create-key'],
    ['create-key', '--org', 'Acme'],
    ['create-key', '--email', 'ada@acme.test'],
    ['create-key', '--org', 'Acme', '--email', 'not-an-email'],
    ['create-key', '--org', 'Acme', '--email', 'ada@acme.test', '--colour', 'red'],
    ['create-key', '--org'],
  ]
  for (const args of cases) {
    const run = await admin(dir, args)
    t.equal(run.code, 2, args.join(' '))
    t.equal(run.stdout, '', `${args.join(' ')}: nothing on stdout`)
    t.match(run.stderr, /usage:/, `${args.join(' ')}: usage on stderr`)
  }
})

t.test('create-key works while the cluster runs, and the server accepts the key at once', async (t) => {
  const { cluster } = await ingestCluster(t)
  const run = await admin(cluster.dataDir, ['create-key', '--org', 'Live Org', '--email', 'ops@live.test'])
  t.equal(run.code, 0, run.stderr)
  const { orgId, userId, apiKey } = JSON.parse(run.stdout)
  const res = await fetch(`${cluster.url}/api/v1/cli/whoami`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` } })
  t.equal(res.status, 200)
  t.match(await res.json(), { orgId, userId })
  // The cluster still serves its own traffic.
  t.equal((await fetch(`${cluster.url}/health`)).status, 200)
})
