/**
 * `npm run release:sign` and what the server makes of its signature: the real
 * script, built as the npm script builds it, run in a checkout laid out in a
 * temporary directory (its own cli/release-key.json and dist/public, copied
 * from this build), with a key pair it makes itself; then the front's
 * artifacts loaded from that directory, as the front loads dist/public.
 */
import { spawnSync } from 'node:child_process'
import { createPublicKey } from 'node:crypto'
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { loadArtifacts } from '../../src/front/artifacts.js'
import { sha256Hex as sha256, signatureHolds, stampCli, SIGNATURE_FILE } from '../../src/install/cli-release.js'
import { DIST, ROOT } from '../helpers/cluster.js'

const work = mkdtempSync(join(tmpdir(), 'svc-release-sign-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))

// The same tsup command line as the npm script, into this test's directory.
const built = spawnSync(join(ROOT, 'node_modules/.bin/tsup'), ['cli/scripts/release-sign.ts', '--no-config', '--format', 'esm', '--platform', 'node', '--target', 'node20', '--out-dir', join(work, 'bin'), '--silent'], { cwd: ROOT, encoding: 'utf8' })
if (built.status !== 0) throw new Error(`building release-sign failed: ${built.stderr}`)
const script = join(work, 'bin', 'release-sign.js')

/** A checkout with the built public artifacts and no release key yet. */
function checkout(name: string): string {
  const dir = join(work, name)
  mkdirSync(join(dir, 'cli'), { recursive: true })
  mkdirSync(join(dir, 'dist'))
  cpSync(join(DIST, 'public'), join(dir, 'dist', 'public'), { recursive: true, filter: (path) => !path.endsWith(SIGNATURE_FILE) })
  return dir
}

const run = (cwd: string, args: string[], keyFile?: string) =>
  spawnSync(process.execPath, [script, ...args], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, ...(keyFile ? { SVC_RELEASE_KEY_FILE: keyFile } : {}) } })

const load = (dir: string) => loadArtifacts(pathToFileURL(join(dir, 'dist', 'public') + '/'), { directUrl: 'http://127.0.0.1:9', publicUrl: 'http://127.0.0.1:9/api/v1', http: 'test' })
const manifest = (dir: string) => JSON.parse(load(dir).byPath.get('/release')!.body.toString('utf8'))

t.test('--new-key writes the private key 0600 and the public key as a JWK, and never overwrites a key', async (t) => {
  const dir = checkout('new-key')
  const made = run(dir, ['--new-key', join(dir, 'release.pem')])
  t.equal(made.status, 0, made.stderr)
  t.equal(statSync(join(dir, 'release.pem')).mode & 0o777, 0o600, 'the private key is readable by its owner only')
  const jwk = JSON.parse(readFileSync(join(dir, 'cli', 'release-key.json'), 'utf8'))
  t.match(jwk, { kty: 'OKP', crv: 'Ed25519', x: /^[\w-]{43}$/ })
  t.notOk('d' in jwk, 'the public file holds no private member')
  const before = readFileSync(join(dir, 'release.pem'))
  const again = run(dir, ['--new-key', join(dir, 'release.pem')])
  t.not(again.status, 0, 'an existing key file is refused')
  t.same(readFileSync(join(dir, 'release.pem')), before, 'and left as it was')
})

t.test('a signed build: /release carries a signature the public key verifies, over the bytes of /release/cli.mjs', async (t) => {
  const dir = checkout('signed')
  t.equal(run(dir, ['--new-key', join(dir, 'release.pem')]).status, 0)
  t.notOk(manifest(dir).cli.signed, 'before signing, the manifest has no signature')

  const signedRun = run(dir, [], join(dir, 'release.pem'))
  t.equal(signedRun.status, 0, signedRun.stderr)
  const artifacts = load(dir)
  const release = JSON.parse(artifacts.byPath.get('/release')!.body.toString('utf8'))
  const released = artifacts.byPath.get('/release/cli.mjs')!.body
  const key = createPublicKey({ key: JSON.parse(readFileSync(join(dir, 'cli', 'release-key.json'), 'utf8')), format: 'jwk' })
  t.ok(signatureHolds(release.cli.signed, key), 'the signature verifies with the committed public key')
  t.equal(release.cli.signed.version, release.cli.version)
  t.equal(release.cli.signed.sha256, sha256(released), 'it vouches for /release/cli.mjs')
  t.same(released, readFileSync(join(dir, 'dist', 'public', 'cli.mjs')), '/release/cli.mjs is the build as signed')
  t.same(artifacts.byPath.get('/cli.mjs')!.body, stampCli(released, 'http://127.0.0.1:9'), '/cli.mjs is the same release, stamped with this server')
  t.equal(release.cli.sha256, sha256(artifacts.byPath.get('/cli.mjs')!.body))

  // A build changed after signing: serving the old signature would only make every update fail.
  appendFileSync(join(dir, 'dist', 'public', 'cli.mjs'), '// rebuilt\n')
  t.throws(() => load(dir), /signs another build/, 'a stale signature stops the server at start-up')
})

t.test('signing with a key other than the committed release key is refused and writes nothing', async (t) => {
  const dir = checkout('wrong-key')
  t.equal(run(dir, ['--new-key', join(dir, 'release.pem')]).status, 0)
  // The checkout commits the project's public key; the signer holds another private key.
  writeFileSync(join(dir, 'cli', 'release-key.json'), readFileSync(join(ROOT, 'cli', 'release-key.json')))
  const refused = run(dir, [], join(dir, 'release.pem'))
  t.not(refused.status, 0)
  t.match(refused.stderr, /not the release key/)
  t.notOk(existsSync(join(dir, 'dist', 'public', SIGNATURE_FILE)), 'no signature file')
  const unset = run(dir, [])
  t.not(unset.status, 0, 'without SVC_RELEASE_KEY_FILE, nothing to sign with')
  t.match(unset.stderr, /SVC_RELEASE_KEY_FILE/)
})
