/**
 * The CLI as released and as served. A release is the built cli.mjs with its
 * `'@@SVC_DIRECT_URL@@'` literal unfilled; `npm run release:sign` signs a
 * statement of its version and sha256 with the release key (Ed25519), whose
 * public half every CLI carries (cli/release-key.json). Each server writes its
 * own address into its copy (stampCli) after the signature was made, so the
 * private key never has to be on a server: `svc update` downloads the release
 * bytes, checks them against the signed statement, and stamps them itself.
 * Imported by the server, the signing script and the CLI bundle alike, so it
 * imports nothing but node: built-ins.
 */
import { createHash, sign, verify, type KeyObject } from 'node:crypto'

/** Beside cli.mjs in dist/public: what the signing script writes and the server reads. */
export const SIGNATURE_FILE = 'cli.sig.json'

/** What a signature vouches for: the release of this version is the file with this sha256. */
export interface SignedRelease {
  version: string
  /** Hex sha256 of the release bytes (cli.mjs before a server stamps it). */
  sha256: string
  /** Base64 Ed25519 signature of releaseStatement(version, sha256). */
  signature: string
}

export const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

/**
 * The signed message. Version and hash both: a signature over the bytes alone
 * would let a server pass an old, signed release off as the current one.
 */
export function releaseStatement(version: string, sha256: string): Buffer {
  return Buffer.from(`svc-cli release\nversion ${version}\nsha256 ${sha256}\n`, 'utf8')
}

export function signRelease(bytes: Uint8Array, version: string, privateKey: KeyObject): SignedRelease {
  const sha256 = sha256Hex(bytes)
  return { version, sha256, signature: sign(null, releaseStatement(version, sha256), privateKey).toString('base64') }
}

/** True when `signed` is well formed and its signature is `key`'s over its statement. */
export function signatureHolds(signed: unknown, key: KeyObject): signed is SignedRelease {
  if (!isSignedRelease(signed)) return false
  try {
    return verify(null, releaseStatement(signed.version, signed.sha256), key, Buffer.from(signed.signature, 'base64'))
  } catch {
    // A key of another type, say: not a signature this key made.
    return false
  }
}

export function isSignedRelease(value: unknown): value is SignedRelease {
  const v = value as Partial<SignedRelease> | null
  return (
    typeof v === 'object' && v !== null &&
    typeof v.version === 'string' && /^\d+(\.\d+)*$/.test(v.version) &&
    typeof v.sha256 === 'string' && /^[0-9a-f]{64}$/.test(v.sha256) &&
    typeof v.signature === 'string' && /^[A-Za-z0-9+/]+={0,2}$/.test(v.signature)
  )
}

/**
 * Writes a server address into the CLI, where its source has the string
 * literal `'@@SVC_DIRECT_URL@@'` (cli/src/config.ts), as a JSON string literal.
 * Exactly one such literal must be there: anything else means the build and
 * this code disagree, and the CLI would talk to the wrong server.
 */
export function stampCli(source: Uint8Array, directUrl: string): Buffer {
  const text = Buffer.from(source).toString('utf8')
  // This pattern's own text, bundled into the CLI, is no such literal: no quote stands right before its @@.
  const literal = /(["'`])@@SVC_DIRECT_URL@@\1/g
  const found = text.match(literal)?.length ?? 0
  // The message names the literal without its quotes: quoted, it would be a second one in the CLI bundle.
  if (found !== 1) throw new Error(`cli.mjs: expected one quoted @@SVC_DIRECT_URL@@ literal, found ${found}`)
  return Buffer.from(text.replace(literal, () => JSON.stringify(directUrl)), 'utf8')
}

/** -1, 0 or 1 as dotted version `a` is older, the same as, or newer than `b`. */
export function compareVersions(a: string, b: string): number {
  const x = a.split('.').map(Number)
  const y = b.split('.').map(Number)
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0)
    if (d !== 0) return Math.sign(d)
  }
  return 0
}
