/**
 * The CLI's account and plumbing end to end: login, logout and whoami with the key
 * stored 0600 or taken from SVC_API_KEY, the address it talks to, usage errors
 * (exit 2) and API errors (exit 1, code and hint).
 * The file the server serves at /cli.mjs, saved and run as a process (under
 * Node 18 when one is installed) against a real cluster. No mocks.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { CLI_NODE, cliSetup } from '../helpers/cli.js'
import { clusterFor } from '../helpers/cluster.js'

const cluster = await clusterFor(t, { workers: 1 })
t.comment(`CLI runs under ${CLI_NODE}`)

t.test('login checks the key with the server, stores it 0600, and logout removes it; SVC_API_KEY overrides', async (t) => {
  const { seeded, home, svc } = await cliSetup(t, cluster)
  const config = join(home, '.config', 'svc', 'config.json')

  const wrong = await svc(['login', '--json'], { input: 'svc_sk_notavalidkey\n' })
  t.equal(wrong.code, 1, 'a key the server refuses fails')
  t.equal(wrong.error.code, 'unauthorized', 'with the server\'s code')
  t.ok(wrong.error.hint, 'and its hint')
  t.notOk(existsSync(config), 'and nothing is stored')

  const token = await svc(['login', '--json'], { input: 'svc_st_abc\n' })
  t.equal(token.code, 2, 'a setup token is a usage error')
  t.equal(token.error.code, 'usage')

  const login = await svc(['login', '--json'], { input: `${seeded.apiKey}\n` })
  t.equal(login.code, 0, login.stderr)
  t.equal(login.json.orgId, seeded.orgId)
  t.equal(statSync(config).mode & 0o777, 0o600, 'the config file is readable by its owner only')
  t.equal(statSync(join(home, '.config', 'svc')).mode & 0o777, 0o700, 'in a directory only its owner can enter')
  t.equal(JSON.parse(readFileSync(config, 'utf8')).apiKey, seeded.apiKey)

  const whoami = await svc(['whoami', '--json'])
  t.equal(whoami.code, 0, whoami.stderr)
  t.same([whoami.json.orgId, whoami.json.userId, whoami.json.keySource], [seeded.orgId, seeded.userId, 'config'])

  const human = await svc(['whoami'])
  t.match(human.stdout, /Organisation +org_/, 'human output by default')
  t.notMatch(human.stdout + human.stderr, /\x1b\[/, 'no colour when not on a terminal')

  const overridden = await svc(['whoami', '--json'], { env: { SVC_API_KEY: 'svc_sk_revokedorwrong' } })
  t.equal(overridden.code, 1, 'SVC_API_KEY replaces the stored key')
  t.equal(overridden.error.code, 'unauthorized')

  const logout = await svc(['logout'])
  t.equal(logout.code, 0)
  t.notOk(existsSync(config), 'logout deletes the stored key')
  const after = await svc(['whoami', '--json'])
  t.equal(after.code, 1)
  t.equal(after.error.code, 'not_logged_in')

  const fromEnv = await svc(['whoami', '--json'], { env: { SVC_API_KEY: seeded.apiKey } })
  t.equal(fromEnv.code, 0, 'SVC_API_KEY alone is enough')
  t.equal(fromEnv.json.keySource, 'SVC_API_KEY')

  mkdirSync(join(home, '.config', 'svc'), { recursive: true })
  writeFileSync(config, '{ half a file')
  const damaged = await svc(['whoami', '--json'])
  t.equal(damaged.code, 1, 'a damaged config file is reported')
  t.equal(damaged.error.code, 'config_unreadable')
  t.match(damaged.error.hint, /svc logout/)
  t.equal((await svc(['logout'])).code, 0, 'and logout still works, removing it')
  t.notOk(existsSync(config))

  const flagged = await svc(['login', '--key', seeded.apiKey, '--json'])
  t.equal(flagged.code, 0, 'login also takes the key as --key')
  t.equal(JSON.parse(readFileSync(config, 'utf8')).apiKey, seeded.apiKey)
})

t.test('usage errors exit 2, API errors exit 1 with the server\'s code and hint', async (t) => {
  const { seeded, svc } = await cliSetup(t, cluster)
  const env = { SVC_API_KEY: seeded.apiKey }
  for (const args of [['bogus'], ['projects', 'bogus'], ['rules', 'set', 'prj_x'], ['whoami', 'extra'], ['whoami', '--bogus'], ['sessions', 'count', 'p', '--timeout'], ['sessions', 'count', 'p', '--watch', '--timeout', 'soon']]) {
    const result = await svc([...args, '--json'], { env })
    t.equal(result.code, 2, `svc ${args.join(' ')} exits 2`)
    t.equal(result.error?.code, 'usage')
  }

  const missing = await svc(['sessions', 'count', 'prj_doesnotexist'], { env })
  t.equal(missing.code, 1)
  t.match(missing.stderr, /^Error: .+ \(not_found 404\)\nHint: .+\n$/, 'a person sees the code, the status and the hint')

  const help = await svc(['help'])
  t.equal(help.code, 0)
  for (const command of ['login', 'projects create', 'rules test', 'sessions count', 'export', 'update']) t.match(help.stdout, `\n  ${command}`, `help lists ${command}`)
  const commandHelp = await svc(['rules', 'test', '--help'])
  t.equal(commandHelp.code, 0, '--help on a command is not a usage error')
  t.match(commandHelp.stdout, /^Usage: svc rules test <projectId> <url\.\.\.> \[--rule <pattern>\]\.\.\./)
  const groupHelp = await svc(['sessions'])
  t.match(groupHelp.stdout, /sessions count/)

  const version = await svc(['version'])
  const versions = JSON.parse(readFileSync(new URL('../../src/public/versions.json', import.meta.url), 'utf8'))
  t.equal(version.stdout.trim(), `svc ${versions.cli}`)
  t.equal((await svc(['--version'])).stdout, version.stdout, '--version is version')
})

t.test('--url beats SVC_URL, which beats the address the server wrote into the file', async (t) => {
  const { seeded, svc } = await cliSetup(t, cluster)
  const version = await svc(['version', '--json'])
  t.equal(version.json.url, cluster.url, 'the served file defaults to the server it came from')

  const unreachable = 'http://127.0.0.1:9'
  const viaEnv = await svc(['whoami', '--json'], { env: { SVC_API_KEY: seeded.apiKey, SVC_URL: unreachable } })
  t.equal(viaEnv.code, 1, 'SVC_URL is used')
  t.equal(viaEnv.error.code, 'network_error')
  t.ok(viaEnv.error.hint)

  const viaFlag = await svc(['whoami', '--url', cluster.url, '--json'], { env: { SVC_API_KEY: seeded.apiKey, SVC_URL: unreachable } })
  t.equal(viaFlag.code, 0, '--url wins over SVC_URL')
  const versioned = await svc(['whoami', '--url', `${cluster.url}/api/v1`, '--json'], { env: { SVC_API_KEY: seeded.apiKey } })
  t.equal(versioned.code, 0, 'the branded, versioned base works as --url too')
})
