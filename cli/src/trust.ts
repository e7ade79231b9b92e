/**
 * What `svc update` trusts. Not the server: a release counts only with a
 * signature by the release key whose public half is built into this file
 * (cli/release-key.json), so a compromised or impersonated server, which can
 * answer any manifest and any bytes, still cannot make the CLI install them.
 * Nothing at run time (no flag, no environment variable) changes the key.
 */
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto'
import releaseKey from '../release-key.json' with { type: 'json' }
import { signatureHolds, type SignedRelease } from '../../src/install/cli-release.js'
import { CliError } from './errors.js'

let trusted: KeyObject | undefined
const releaseKeyObject = () => (trusted ??= createPublicKey({ key: releaseKey as JsonWebKey, format: 'jwk' }))

/** The signed statement of the manifest, if the release key signed it; else the refusal. */
export function trustedRelease(signed: unknown, releaseUrl: string): SignedRelease {
  if (signatureHolds(signed, releaseKeyObject())) return signed
  throw new CliError('untrusted_release', `This server's release is not signed by a key this CLI trusts (${releaseUrl}). Nothing was changed.`, {
    hint: signed === undefined
      ? 'The server runs an unsigned build (its operator has not run `npm run release:sign`). Ask for a signed release; do not replace the CLI by hand from this server.'
      : 'Its signature does not verify with the release key built into this CLI: the server, or something between you and it, offers a CLI the project did not release. Do not install it.',
  })
}

/** 127.0.0.0/8, ::1 and localhost: traffic that never leaves this machine. */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
}

/**
 * Plain http is refused except to loopback, before any connection: the
 * signature already stops altered code, and https keeps an observer from
 * holding back updates unseen or learning which CLI you run.
 */
export function requireSecureTransport(url: string): void {
  const { protocol, hostname } = new URL(url)
  if (protocol === 'https:' || isLoopback(hostname)) return
  throw new CliError('insecure_transport', `svc update refuses plain http to ${hostname}: it downloads code you will run. Nothing was contacted or changed.`, {
    hint: 'Use the server\'s https address (--url https://…); plain http is allowed only to this machine (127.0.0.1, ::1, localhost).',
  })
}
