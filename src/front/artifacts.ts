/**
 * The public artifacts of section 4.1, read once at start-up and served from
 * memory. The release manifest's sha256 values are computed from the very
 * bytes served, so a client that verifies a download checks what it got.
 * The CLI is served twice: stamped with this server's address (/cli.mjs, for
 * a first install) and as released (/release/cli.mjs, the bytes the release
 * signature covers, which `svc update` verifies and stamps itself).
 */
import { existsSync, readFileSync } from 'node:fs'
import { SERVICE_NAME } from '../config.js'
import { isSignedRelease, sha256Hex as sha256, SIGNATURE_FILE, stampCli, type SignedRelease } from '../install/cli-release.js'
import { documentPlaceholders, fillPlaceholders } from '../install/documents.js'

export interface Artifact {
  body: Buffer
  contentType: string
  cacheControl: string
}

export interface Artifacts {
  /** Keyed by route path without prefix: `/health`, `/tracker.js`, … */
  byPath: Map<string, Artifact>
  trackerVersion: string
}

interface Versions {
  tracker: string
  cli: string
  skill: string
}

const JS = 'text/javascript; charset=utf-8'
const MARKDOWN = 'text/markdown; charset=utf-8'
const JSON_TYPE = 'application/json'
// Short: a deploy changes these, and clients (and the CLI's update) should see it within minutes.
const SHORT_CACHE = 'public, max-age=300'

export interface ArtifactOptions {
  /** Written into cli.mjs (its default server) and the documents: this deployment's direct address. */
  directUrl: string
  publicUrl: string
  /** The HTTP engine serving, named in /health (src/front/uws.ts). */
  http: string
}

export function loadArtifacts(dir: URL, options: ArtifactOptions): Artifacts {
  const read = (name: string) => readFileSync(new URL(name, dir))
  const versions = JSON.parse(read('versions.json').toString('utf8')) as Versions
  const tracker = read('tracker.js')
  const released = read('cli.mjs')
  const signed = signatureOf(dir, released, versions.cli)
  // Stamped before hashing: /release describes the very bytes served.
  const cli = stampCli(released, options.directUrl)
  const placeholders = documentPlaceholders(options)
  const document = (name: string) => Buffer.from(fillPlaceholders(read(name).toString('utf8'), placeholders, name), 'utf8')
  const skill = document('skill.md')
  const install = document('install.md')
  const health = { ok: true, service: SERVICE_NAME, version: versions.tracker, http: options.http }
  const release = {
    cli: { version: versions.cli, sha256: sha256(cli), ...(signed ? { signed } : {}) },
    skill: { version: versions.skill, sha256: sha256(skill) },
    tracker: { version: versions.tracker },
  }
  const json = (value: unknown): Artifact => ({ body: Buffer.from(JSON.stringify(value)), contentType: JSON_TYPE, cacheControl: 'no-store' })
  const byPath = new Map<string, Artifact>([
    ['/health', json(health)],
    ['/release', json(release)],
    ['/tracker.js', { body: tracker, contentType: JS, cacheControl: SHORT_CACHE }],
    ['/capture.js', { body: read('capture.js'), contentType: JS, cacheControl: SHORT_CACHE }],
    ['/cli.mjs', { body: cli, contentType: JS, cacheControl: SHORT_CACHE }],
    ['/release/cli.mjs', { body: released, contentType: JS, cacheControl: SHORT_CACHE }],
    ['/install.md', { body: install, contentType: MARKDOWN, cacheControl: SHORT_CACHE }],
    ['/skill.md', { body: skill, contentType: MARKDOWN, cacheControl: SHORT_CACHE }],
  ])
  return { byPath, trackerVersion: versions.tracker }
}

/**
 * The release signature of this build, if it was signed (npm run release:sign).
 * One that names other bytes or another version is a start-up error: served,
 * it would only make every `svc update` fail.
 */
function signatureOf(dir: URL, released: Buffer, version: string): SignedRelease | undefined {
  const file = new URL(SIGNATURE_FILE, dir)
  if (!existsSync(file)) return undefined
  const signed: unknown = JSON.parse(readFileSync(file, 'utf8'))
  if (!isSignedRelease(signed)) throw new Error(`${SIGNATURE_FILE}: not a signed release ({version, sha256, signature})`)
  if (signed.sha256 !== sha256(released) || signed.version !== version) {
    throw new Error(`${SIGNATURE_FILE} signs another build (${signed.version}, ${signed.sha256.slice(0, 12)}…): run npm run release:sign after the build, or delete it`)
  }
  // Only the members the manifest documents, whatever else the file holds.
  return { version: signed.version, sha256: signed.sha256, signature: signed.signature }
}
