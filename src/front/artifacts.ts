/**
 * The public artifacts of section 4.1, read once at start-up and served from
 * memory. The release manifest's sha256 values are computed from the very
 * bytes served, so a client that verifies a download checks what it got.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { SERVICE_NAME } from '../config.js'
import { documentPlaceholders, fillPlaceholders, stampCli } from '../install/documents.js'

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

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

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
  // Stamped before hashing: /release describes the very bytes served.
  const cli = stampCli(read('cli.mjs'), options.directUrl)
  const placeholders = documentPlaceholders(options)
  const document = (name: string) => Buffer.from(fillPlaceholders(read(name).toString('utf8'), placeholders, name), 'utf8')
  const skill = document('skill.md')
  const install = document('install.md')
  const health = { ok: true, service: SERVICE_NAME, version: versions.tracker, http: options.http }
  const release = {
    cli: { version: versions.cli, sha256: sha256(cli) },
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
    ['/install.md', { body: install, contentType: MARKDOWN, cacheControl: SHORT_CACHE }],
    ['/skill.md', { body: skill, contentType: MARKDOWN, cacheControl: SHORT_CACHE }],
  ])
  return { byPath, trackerVersion: versions.tracker }
}
