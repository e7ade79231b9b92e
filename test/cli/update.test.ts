/**
 * `svc update` against a small server on loopback that serves /release and
 * /cli.mjs the way a deployment does, and then the ways a network or a
 * tampering proxy can go wrong. The installed CLI is the real built file,
 * stamped with that server's address as the front stamps it.
 */
import { createHash } from 'node:crypto'
import { chmodSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import t from 'tap'
import { stampCli } from '../../src/install/documents.js'
import { runCli, tempHome } from '../helpers/cli.js'
import { DIST } from '../helpers/cluster.js'

/** The version this build of the CLI reports (src/public/versions.json). */
const CLI_VERSION: string = JSON.parse(readFileSync(new URL('../../src/public/versions.json', import.meta.url), 'utf8')).cli

type Mode = 'good' | 'cut-with-length' | 'cut-cleanly' | 'tampered' | 'no-checksum' | 'release-missing'

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

interface Fake {
  url: string
  mode: Mode
  /** What /cli.mjs serves when all goes well: the next version of the CLI. */
  next: Buffer
  requests: string[]
}

async function fakeServer(t: { teardown(fn: () => unknown): void }): Promise<Fake> {
  const fake: Fake = { url: '', mode: 'good', next: Buffer.alloc(0), requests: [] }
  const server: Server = createServer((req, res) => {
    fake.requests.push(req.url ?? '')
    if (req.url === '/api/release') {
      if (fake.mode === 'release-missing') return res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"No such endpoint.","code":"not_found","hint":"Check the path."}')
      const cli = fake.mode === 'no-checksum' ? { version: '9.9.9' } : { version: '9.9.9', sha256: sha256(fake.next) }
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ cli, skill: { version: '1.0.0' }, tracker: { version: '1.0.0' } }))
    }
    if (req.url === '/api/cli.mjs') {
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
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"No such endpoint.","code":"not_found","hint":"Check the path."}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  fake.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return fake
}

/** The built CLI as the fake server would serve it, and its next version (one more line). */
function builds(url: string): { current: Buffer; next: Buffer } {
  const current = stampCli(readFileSync(join(DIST, 'public', 'cli.mjs')), url)
  return { current, next: Buffer.concat([current, Buffer.from('// the next release\n')]) }
}

function install(dir: string, bytes: Buffer): string {
  const path = join(dir, 'cli.mjs')
  writeFileSync(path, bytes)
  chmodSync(path, 0o755)
  return path
}

t.test('a verified download replaces the CLI in place, keeping its mode; a second update finds nothing to do', async (t) => {
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
  t.same(readFileSync(cli), next, 'the file is the new release, byte for byte')
  t.equal(statSync(cli).mode & 0o777, 0o755, 'still executable')
  t.same(readdirSync(dir), ['cli.mjs'], 'no temporary file left beside it')
  t.ok(fake.requests.indexOf('/api/release') < fake.requests.indexOf('/api/cli.mjs'), 'the manifest is read before the download')

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
  t.match(updated.stdout, new RegExp(`^Updated .*svc ${CLI_VERSION.replace(/\./g, '\\.')} → 9\\.9\\.9`))
  t.ok(lstatSync(link).isSymbolicLink(), 'the link is still a link')
  t.equal(readlinkSync(link), target)
  t.same(readFileSync(target), next)
})

for (const [mode, code] of [
  ['cut-with-length', 'download_incomplete'],
  ['cut-cleanly', 'checksum_mismatch'],
  ['tampered', 'checksum_mismatch'],
  ['no-checksum', 'bad_release'],
  ['release-missing', 'not_found'],
] as const) {
  t.test(`a ${mode} download is refused with ${code} and leaves the installed CLI untouched`, async (t) => {
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

    const human = await runCli(cli, ['update'], { home })
    t.match(human.stderr, new RegExp(`^Error: .+\\(${code}`), 'a person sees the error and its code')
    const stillWorks = await runCli(cli, ['version'], { home })
    t.equal(stillWorks.code, 0, 'and the old CLI still runs')
  })
}
