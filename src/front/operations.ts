/**
 * The operations the front process serves itself: public artifacts and
 * ingest. The front registers its routes from this list and the OpenAPI
 * document describes them from it, so the two cannot drift apart.
 */
import type { ErrorCode } from '../errors.js'
import { chunkMetaSchema, okSchema, signalsBatchSchema } from '../schemas/tracker-payloads.js'
import { healthSchema, releaseSchema } from '../schemas/common.js'
import { captureSettingsSchema } from '../schemas/capture.js'

export interface FrontOperation {
  operationId: string
  method: 'GET' | 'POST'
  route: string
  summary: string
  /** Answer media type and schema (absent schema: opaque text). */
  responseType: string
  response?: Record<string, unknown>
  credential: 'none' | 'publicKey'
  errors?: ErrorCode[]
}

export const PUBLIC_ARTIFACTS: FrontOperation[] = [
  { operationId: 'getHealth', method: 'GET', route: '/health', summary: 'Liveness probe.', responseType: 'application/json', response: healthSchema, credential: 'none' },
  { operationId: 'getRelease', method: 'GET', route: '/release', summary: 'Release manifest: versions and sha256 of the served CLI and skill, and the release signature of the CLI when the build was signed.', responseType: 'application/json', response: releaseSchema, credential: 'none' },
  { operationId: 'getTrackerBundle', method: 'GET', route: '/tracker.js', summary: 'The tracker bundle.', responseType: 'text/javascript', credential: 'none' },
  { operationId: 'getCaptureBundle', method: 'GET', route: '/capture.js', summary: 'Console and network capture, which tracker.js loads only for projects that turn one on.', responseType: 'text/javascript', credential: 'none' },
  { operationId: 'getCliBundle', method: 'GET', route: '/cli.mjs', summary: 'The command-line client: one dependency-free ES module for Node 18+.', responseType: 'text/javascript', credential: 'none' },
  { operationId: 'getCliRelease', method: 'GET', route: '/release/cli.mjs', summary: 'The command-line client as released, before this server wrote its address into it: the bytes `cli.signed` of /release covers, which `svc update` verifies.', responseType: 'text/javascript', credential: 'none' },
  { operationId: 'getInstallGuide', method: 'GET', route: '/install.md', summary: 'The install guide.', responseType: 'text/markdown', credential: 'none' },
  { operationId: 'getAgentSkill', method: 'GET', route: '/skill.md', summary: 'The agent install skill.', responseType: 'text/markdown', credential: 'none' },
]

export const INGEST_OPERATIONS: FrontOperation[] = [
  {
    operationId: 'ingestSessionChunk',
    method: 'POST',
    route: '/ingest',
    summary: 'Appends a recording chunk (gzip or raw JSON rrweb events, at most 1,000,000 bytes, stored as received) to its session.',
    responseType: 'application/json',
    response: okSchema,
    credential: 'publicKey',
    errors: ['invalid_request', 'not_found', 'payload_too_large', 'overloaded'],
  },
  {
    operationId: 'ingestSignalsBatch',
    method: 'POST',
    route: '/signals',
    summary: 'Records a batch of page views, clicks and JavaScript errors (at most 256,000 bytes). Malformed entries are dropped one by one.',
    responseType: 'application/json',
    response: okSchema,
    credential: 'publicKey',
    errors: ['invalid_request', 'not_found', 'payload_too_large', 'overloaded'],
  },
  {
    operationId: 'ingestStylesheet',
    method: 'POST',
    route: '/styles',
    summary:
      'Stores a stylesheet\'s text once per project, under the SHA-256 of its UTF-8 bytes (`hash`, 64 lowercase hex digits, checked against the body). The body is the text, raw or gzipped (at most 1,000,000 bytes; 4 MiB once inflated). Recordings refer to it as `"_svcCss":"<hash>"` in place of a node\'s `_cssText`; sessions.events puts the text back. A hash already stored is answered at once. A project keeps at most 500 texts and 50 MiB of them as stored; past either, 409 quota_exceeded (the tracker then leaves the stylesheet inline).',
    responseType: 'application/json',
    response: okSchema,
    credential: 'publicKey',
    errors: ['invalid_request', 'not_found', 'payload_too_large', 'quota_exceeded', 'overloaded'],
  },
  {
    operationId: 'getCaptureSettings',
    method: 'GET',
    route: '/capture',
    summary: 'The project\'s capture settings, as its tracker reads them: sampling, minimum duration, URL triggers and exclusions, console and network capture.',
    responseType: 'application/json',
    response: captureSettingsSchema,
    credential: 'publicKey',
    errors: ['invalid_request', 'not_found'],
  },
]

/** Request descriptions of the ingest operations, for the OpenAPI document. */
export const INGEST_REQUESTS = {
  ingestSessionChunk: { metaSchema: chunkMetaSchema },
  ingestSignalsBatch: { bodySchema: signalsBatchSchema },
} as const
