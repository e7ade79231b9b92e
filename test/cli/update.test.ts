/**
 * `svc update` against a small server on loopback that serves /release and
 * the CLI the way a deployment does, and then the ways a network, a tampering
 * proxy or an impersonating server can go wrong. The installed CLI is the real
 * built file with one change made on disk, where no server can make it: the
 * release key built into it is this test's (a key pair generated here), since
 * the project's private key is nowhere near a test. It is stamped with the
 * fake server's address, as the front stamps it.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import { chmodSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import t from 'tap'
import { sha256Hex as sha256, signRelease, stampCli, type SignedRelease } from '../../src/install/cli-release.js'
import { runCli, tempHome } from '../helpers/cli.js'
import { DIST, ROOT } from '../helpers/cluster.js'

/** The version this build of the CLI reports (src/public/versions.json). */
const CLI_VERSION: string = JSON.parse(readFileSync(new URL('../../src/public/versions.json', import.meta.url), 'utf8')).cli

type Mode = 'good' | 'cut-with-length' | 'cut-cleanly' | 'tampered' | 'unsigned' | 'other-key' | 'version-altered' | 'older' | 'release-missing'

const releaseKey = generateKeyPairSync('ed25519')
const attackerKey = generateKeyPairSync('ed25519')

interface Fake {
  url: string
  mode: Mode
  /** The next release as signed: the CLI before any server stamps it. */
  next: Buffer
  requests: string[]
}

const notFound = '{"error":"No such endpoint.","code":"not_found","hint":"Check the path."}'

async function fakeServer(t: { teardown(fn: () => unknown): void }): Promise<Fake> {
  const fake: Fake = { url: '', mode: 'good', next: Buffer.alloc(0), requests: [] }
  const server: Server = createServer((req, res) => {
    fake.requests.push(req.url ?? '')
    if (req.url === '/api/release') {
      if (fake.mode === 'release-missing') return res.writeHead(404, { 'content-type': 'application/json' }).end(notFound)
      // What the server would serve at /cli.mjs, and its true sha256: an old CLI's whole check, which an impersonator passes.
      const cli: { version: string; sha256: string; signed?: SignedRelease } = { version: '9.9.9', sha256: sha256(stampCli(fake.next, fake.url)) }
      if (fake.mode === 'other-key') cli.signed = signRelease(fake.next, '9.9.9', attackerKey.privateKey)
      else if (fake.mode === 'older') cli.signed = signRelease(fake.next, '0.0.1', releaseKey.privateKey)
      else if (fake.mode === 'version-altered') cli.signed = { ...signRelease(fake.next, '9.9.9', releaseKey.privateKey), version: '10.0.0' }
      else if (fake.mode !== 'unsigned') cli.signed = signRelease(fake.next, '9.9.9', releaseKey.privateKey)
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ cli, skill: { version: '1.0.0' }, tracker: { version: '1.0.0' } }))
    }
    if (req.url === '/api/cli.mjs') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(stampCli(fake.next, fake.url))
    if (req.url === '/api/release/cli.mjs') {
      const half = fake.next.subarray(0, fake.next.length >> 1)
      switch (fake.mode) {
        case 'cut-with-length':
          // Declares the whole file, sends half, and drops the connection.
          res.writeHead(200, { 'content-type': 'text/javascript', 'content-length': fake.next.length })
          res.write(half, () => res.socket?.destroy())
          return
        case 'cut-cleanly':
          // No length declared; half the file, then a clean end: only the checksum can tell.
          res.writeHead(200, { 'content-type': 'text/javascript' })
          return res.end(half)
        case 'tampered': {
          const altered = Buffer.from(fake.next)
          altered[altered.length - 2] ^= 0x01
          return res.writeHead(200, { 'content-type': 'text/javascript' }).end(altered)
        }
        default:
          return res.writeHead(200, { 'content-type': 'text/javascript' }).end(fake.next)
      }
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end(notFound)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  fake.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return fake
}

/** The built CLI with `key` as its release key in place of the project's (cli/release-key.json): exactly one literal to change. */
function trusting(bundle: Buffer, key: KeyObject): Buffer {
  const project = JSON.parse(readFileSync(join(ROOT, 'cli', 'release-key.json'), 'utf8')).x as string
  const text = bundle.toString('utf8')
  const literal = JSON.stringify(project)
  if (text.split(literal).length !== 2) throw new Error(`expected the release key ${literal} once in the built CLI`)
  return Buffer.from(text.replace(literal, JSON.stringify(key.export({ format: 'jwk' }).x)), 'utf8')
}

/** The installed CLI (trusting this test's release key, stamped for `url`) and the next release (one more line, unstamped). */
function builds(url: string): { current: Buffer; next: Buffer } {
  const released = trusting(readFileSync(join(DIST, 'public', 'cli.mjs')), releaseKey.publicKey)
  return { current: stampCli(released, url), next: Buffer.concat([released, Buffer.from('// the next release\n')]) }
}

function install(dir: string, bytes: Buffer): string {
  const path = join(dir, 'cli.mjs')
  writeFileSync(path, bytes)
  chmodSync(path, 0o755)
  return path
}

t.test('a release signed by the release key replaces the CLI in place, stamped with its server, keeping its mode; a second update finds nothing to do', async (t) => {
  const fake = await fakeServer(t)
  const { current, next } = builds(fake.url)
  fake.next = next
  const home = tempHome(t)
  const dir = join(home, 'lib')
  mkdirSync(dir)
  const cli = install(dir, current)

  const updated = await runCli(cli, ['update', '--json'], { home })
  t.equal(updated.code, 0, updated.stderr)
  t.match(updated.json, { updated: true, version: '9.9.9', sha256: sha256(next) })
  t.same(readFileSync(cli), stampCli(next, fake.url), 'the file is the signed release, stamped with the server this CLI defaults to')
  t.equal(statSync(cli).mode & 0o777, 0o755, 'still executable')
  t.same(readdirSync(dir), ['cli.mjs'], 'no temporary file left beside it')
  t.ok(fake.requests.indexOf('/api/release') < fake.requests.indexOf('/api/release/cli.mjs'), 'the manifest is read before the download')
  t.notOk(fake.requests.includes('/api/cli.mjs'), 'the server-stamped copy, which no signature covers, is not used')

  const again = await runCli(cli, ['update'], { home })
  t.equal(again.code, 0, 'the new file runs')
  t.match(again.stdout, /^Already up to date/)
})

t.test('through a symlink (~/.local/bin/svc), update replaces the file the link points to and keeps the link', async (t) => {
  const fake = await fakeServer(t)
  const { current, next } = builds(fake.url)
  fake.next = next
  const home = tempHome(t)
  mkdirSync(join(home, 'lib'))
  mkdirSync(join(home, 'bin'))
  const target = install(join(home, 'lib'), current)
  const link = join(home, 'bin', 'svc')
  symlinkSync(target, link)

  const updated = await runCli(link, ['update'], { home })
  t.equal(updated.code, 0, updated.stderr)
  t.match(updated.stdout, new RegExp(`^Updated .*svc ${CLI_VERSION.replace(/\./g, '\\.')} → 9\\.9\\.9 .*signed by the release key`))
  t.ok(lstatSync(link).isSymbolicLink(), 'the link is still a link')
  t.equal(readlinkSync(link), target)
  t.same(readFileSync(target), stampCli(next, fake.url))
})

for (const [mode, code, downloads] of [
  // The impersonator of issue 28: the sha256 of what it serves is right, and nothing vouches for it.
  ['unsigned', 'untrusted_release', false],
  ['other-key', 'untrusted_release', false],
  ['version-altered', 'untrusted_release', false],
  ['older', 'downgrade_refused', false],
  ['cut-with-length', 'download_incomplete', true],
  ['cut-cleanly', 'checksum_mismatch', true],
  ['tampered', 'checksum_mismatch', true],
  ['release-missing', 'not_found', false],
] as const) {
  t.test(`a ${mode} release is refused with ${code} and leaves the installed CLI untouched`, async (t) => {
    const fake = await fakeServer(t)
    const { current, next } = builds(fake.url)
    fake.next = next
    fake.mode = mode
    const home = tempHome(t)
    const dir = join(home, 'lib')
    mkdirSync(dir)
    const cli = install(dir, current)
    const before = statSync(cli)

    const refused = await runCli(cli, ['update', '--json'], { home })
    t.equal(refused.code, 1, 'the update fails')
    t.equal(refused.error?.code, code)
    t.ok(refused.error?.hint, 'with a hint')
    t.same(readFileSync(cli), current, 'the installed file is unchanged')
    t.equal(statSync(cli).mtimeMs, before.mtimeMs, 'not even rewritten')
    t.same(readdirSync(dir), ['cli.mjs'], 'and nothing was written beside it')
    t.equal(fake.requests.some((r) => r.endsWith('cli.mjs')), downloads, downloads ? 'the download was checked and dropped' : 'nothing was even downloaded')

    const human = await runCli(cli, ['update'], { home })
    t.match(human.stderr, new RegExp(`^Error: .+\\(${code}`), 'a person sees the error and its code')
    if (code === 'untrusted_release') t.match(human.stderr, /not signed by a key this CLI trusts/)
    const stillWorks = await runCli(cli, ['version'], { home })
    t.equal(stillWorks.code, 0, 'and the old CLI still runs')
  })
}

t.test('plain http to a host other than this machine is refused before any connection', async (t) => {
  // A server that would see the request if one were made: 0.0.0.0 is not loopback by name, yet Linux delivers a connection to it here.
  const fake = await fakeServer(t)
  const home = tempHome(t)
  const dir = join(home, 'lib')
  mkdirSync(dir)
  // Stamped with a name under .invalid (RFC 6761), which no resolver answers.
  const current = builds('http://svc-update.invalid').current
  const cli = install(dir, current)
  for (const url of [undefined, fake.url.replace('127.0.0.1', '0.0.0.0')]) {
    const refused = await runCli(cli, ['update', '--json', ...(url ? ['--url', url] : [])], { home })
    t.equal(refused.code, 1, `${url ?? 'the stamped server'}: the update fails`)
    t.equal(refused.error?.code, 'insecure_transport', 'refused for its transport, not for a failed connection')
    t.ok(refused.error?.hint)
  }
  t.same(fake.requests, [], 'no request reached the server')
  const human = await runCli(cli, ['update'], { home })
  t.match(human.stderr, /refuses plain http to svc-update\.invalid/)
  t.same(readFileSync(cli), current, 'the installed file is unchanged')
  t.same(readdirSync(dir), ['cli.mjs'])
})
