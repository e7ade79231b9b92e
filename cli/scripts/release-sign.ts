/**
 * `npm run release:sign`: signs the built CLI (dist/public/cli.mjs, before any
 * server stamps it) with the release key, into dist/public/cli.sig.json, which
 * the server then serves in /release. The private key is read from the file
 * SVC_RELEASE_KEY_FILE names (PEM, PKCS#8) and never leaves the signing
 * machine. `npm run release:sign -- --new-key FILE` makes a new key pair: the
 * private half into FILE (mode 0600, refused if it exists), the public half
 * into cli/release-key.json, which the next CLI build carries; commit that.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { SIGNATURE_FILE, signatureHolds, signRelease } from '../../src/install/cli-release.js'

const PUBLIC_DIR = 'dist/public'
const PUBLIC_KEY_FILE = 'cli/release-key.json'

function fail(message: string): never {
  process.stderr.write(`release:sign: ${message}\n`)
  process.exit(1)
}

function newKey(privatePath: string): void {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  // 'wx': an existing key is never overwritten by a slip of the command line.
  writeFileSync(privatePath, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' })
  writeFileSync(PUBLIC_KEY_FILE, JSON.stringify(publicKey.export({ format: 'jwk' }), null, 2) + '\n')
  process.stdout.write(`Private key: ${privatePath} (keep it off servers and out of the repository)\nPublic key: ${PUBLIC_KEY_FILE} (commit it; CLIs built from now on trust it)\n`)
}

function signBuild(privatePath: string | undefined): void {
  if (!privatePath) fail('set SVC_RELEASE_KEY_FILE to the path of the release private key (PEM)')
  const privateKey = createPrivateKey(readFileSync(privatePath))
  const trusted = createPublicKey({ key: JSON.parse(readFileSync(PUBLIC_KEY_FILE, 'utf8')), format: 'jwk' })
  const bytes = readFileSync(`${PUBLIC_DIR}/cli.mjs`)
  const version: string = JSON.parse(readFileSync(`${PUBLIC_DIR}/versions.json`, 'utf8')).cli
  const signed = signRelease(bytes, version, privateKey)
  // A signature the CLIs would refuse is worse than none: it looks like a release.
  if (!signatureHolds(signed, trusted)) fail(`the key in ${privatePath} is not the release key of ${PUBLIC_KEY_FILE}`)
  writeFileSync(`${PUBLIC_DIR}/${SIGNATURE_FILE}`, JSON.stringify(signed, null, 2) + '\n')
  process.stdout.write(`Signed svc ${version} (sha256 ${signed.sha256}) into ${PUBLIC_DIR}/${SIGNATURE_FILE}.\n`)
}

const args = process.argv.slice(2)
if (args[0] === '--new-key') {
  if (!args[1]) fail('usage: npm run release:sign -- --new-key FILE')
  newKey(args[1])
} else if (args.length === 0) {
  signBuild(process.env.SVC_RELEASE_KEY_FILE)
} else {
  fail('usage: npm run release:sign [-- --new-key FILE]')
}
