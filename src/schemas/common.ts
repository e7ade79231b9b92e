/** JSON Schemas of resources shared by several operations (API contract, section 2). */
import { captureSettingsSchema } from './capture.js'

export const errorBodySchema = {
  $id: 'ErrorBody',
  type: 'object',
  required: ['error', 'code'],
  properties: {
    error: { type: 'string', description: 'Human-readable message. Do not parse it.' },
    code: { type: 'string', enum: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'not_acceptable', 'payload_too_large', 'quota_exceeded', 'overloaded', 'internal_error'] },
    hint: { type: 'string', description: 'What to do next.' },
    documentation_url: { type: 'string', format: 'uri' },
    ok: { type: 'boolean', enum: [false], description: 'Present and false on ingest endpoints.' },
    invalid: { type: 'array', items: { type: 'string' }, description: 'Path-rule patterns that failed to compile.' },
  },
} as const

export const projectSchema = {
  $id: 'Project',
  type: 'object',
  required: ['id', 'name', 'publicKey', 'sessionCount'],
  properties: {
    id: { type: 'string', description: 'The handle every other call takes.' },
    name: { type: 'string' },
    domain: { type: 'string', nullable: true },
    publicKey: { type: 'string', pattern: '^svc_pk_[0-9a-f]+$', description: 'The key the tracker sends.' },
    sessionCount: { type: 'integer', minimum: 0, description: 'Sessions recorded so far.' },
    createdAt: { type: 'number', format: 'double', description: 'Creation time in epoch milliseconds.' },
    pathRules: { type: 'array', items: { type: 'string' }, description: 'URL patterns that group pages.' },
    capture: captureSettingsSchema,
    retentionDays: { type: 'integer', minimum: 1, nullable: true, description: 'Days this project\'s recordings are kept, when shorter than the deployment\'s RETENTION_DAYS (projects.retention); null: RETENTION_DAYS.' },
  },
} as const

export const setupProjectSchema = {
  $id: 'SetupProject',
  type: 'object',
  required: ['name', 'sessionCount'],
  properties: {
    name: { type: 'string' },
    domain: { type: 'string', nullable: true },
    pathRules: { type: 'array', items: { type: 'string' } },
    sessionCount: { type: 'integer', minimum: 0 },
  },
} as const

export const apiKeyIdentitySchema = {
  $id: 'ApiKeyIdentity',
  type: 'object',
  required: ['orgId', 'userId'],
  properties: {
    orgId: { type: 'string' },
    userId: { type: 'string' },
    label: { type: 'string' },
  },
} as const

export const healthSchema = {
  $id: 'Health',
  type: 'object',
  required: ['ok', 'service', 'version'],
  properties: {
    ok: { type: 'boolean' },
    service: { type: 'string' },
    version: { type: 'string', description: 'Version of the tracker bundle this deployment serves.' },
    http: { type: 'string', description: 'The HTTP engine of the front that answered: `uws-native 20.57`, `uws-native 20.30`, or `fallback` (pure Node, much slower).' },
    warnings: {
      type: 'array',
      items: { type: 'string' },
      description: 'Present when the front that answered has seen something its operator should fix: requests from a reverse proxy on this host carrying X-Forwarded-For or Forwarded while TRUST_PROXY does not name it (every client then looks local).',
    },
  },
} as const

const versioned = { type: 'object', properties: { version: { type: 'string' } } } as const
const versionedFile = { type: 'object', properties: { ...versioned.properties, sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' } } } as const

/** The statement `npm run release:sign` signs (src/install/cli-release.ts): the release of this version is the file with this sha256. */
const signedRelease = {
  type: 'object',
  required: ['version', 'sha256', 'signature'],
  description: 'Absent when the build was not signed; `svc update` then refuses it.',
  properties: {
    version: { type: 'string' },
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Hex sha256 of /release/cli.mjs (the CLI before this server wrote its address into it).' },
    signature: { type: 'string', description: 'Base64 Ed25519 signature, by the release key whose public half the CLI carries, of "svc-cli release\\nversion <version>\\nsha256 <sha256>\\n".' },
  },
} as const
const cliFile = { type: 'object', properties: { ...versionedFile.properties, signed: signedRelease } } as const

export const releaseSchema = {
  $id: 'Release',
  type: 'object',
  properties: { cli: cliFile, skill: versionedFile, tracker: versioned },
} as const
