/** JSON Schemas of the control-plane request and answer bodies (API contract, sections 4.3 and 4.4, and the documented extensions). */
import { CONFIRMATION_TTL_MS, ERASURE_CONFIRM_SESSIONS } from '../recordings/erasure-limits.js'
import { captureProperties } from './capture.js'
import { projectSchema } from './common.js'

export const projectId = { type: 'string', minLength: 1, maxLength: 64, description: 'A project id from projects.list or projects.create.' } as const
/** A generous bound: a pattern is a URL path, and browsers cap URLs near 2000 characters in practice. */
const rule = { type: 'string', maxLength: 2000 } as const
const rules = { type: 'array', minItems: 1, maxItems: 200, items: rule } as const

export const emptyBody = { type: 'object' } as const

/** A project's name: something visible, at most 200 characters. */
const projectName = { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' } as const

export const createProjectBody = {
  type: 'object',
  required: ['name'],
  properties: {
    name: projectName,
    domain: { type: 'string', maxLength: 253 },
    pathRules: { type: 'array', maxItems: 200, items: rule },
  },
} as const

export const renameProjectBody = {
  type: 'object',
  additionalProperties: false,
  required: ['projectId', 'name'],
  properties: { projectId, name: projectName },
} as const

/** What a large erasure or an admin's project deletion sends back from its dry run (src/recordings/erasure-confirmation.ts). */
export const confirmation = {
  type: 'string',
  maxLength: 64,
  description: `The \`confirmation\` of this request's dry run (valid ${CONFIRMATION_TTL_MS / 60_000} minutes). An admin needs it to erase more than ${ERASURE_CONFIRM_SESSIONS} sessions or to delete a project; the owner does not.`,
} as const

export const deleteProjectBody = {
  type: 'object',
  additionalProperties: false,
  required: ['projectId'],
  properties: {
    projectId,
    dryRun: { type: 'boolean', description: 'Count what the deletion would remove, delete nothing, and answer the confirmation an admin needs.' },
    confirmation,
  },
} as const

export const projectPathRulesBody = {
  type: 'object',
  required: ['projectId', 'rules'],
  properties: { projectId, rules },
} as const

/** Only the fields given change; patterns that do not compile are refused. */
export const projectCaptureBody = {
  type: 'object',
  required: ['projectId', 'capture'],
  properties: { projectId, capture: { type: 'object', additionalProperties: false, properties: captureProperties } },
} as const

/** Days, at most RETENTION_DAYS; null: the deployment's RETENTION_DAYS again. */
export const projectRetentionBody = {
  type: 'object',
  required: ['projectId', 'retentionDays'],
  properties: {
    projectId,
    retentionDays: { type: 'integer', minimum: 1, maximum: 3650, nullable: true, description: 'Days the project\'s recordings are kept after their last activity, at most the deployment\'s RETENTION_DAYS; null: RETENTION_DAYS.' },
  },
} as const

export const projectIdBody = {
  type: 'object',
  required: ['projectId'],
  properties: { projectId },
} as const

export const setupPathRulesBody = {
  type: 'object',
  required: ['rules'],
  properties: { rules },
} as const

export const keysCreateBody = {
  type: 'object',
  properties: { label: { type: 'string', maxLength: 200 } },
} as const

export const keysRevokeBody = {
  type: 'object',
  required: ['keyId'],
  properties: { keyId: { type: 'string', minLength: 1, maxLength: 64 } },
} as const

// ---- answers ----

export const projectStorageAnswer = {
  type: 'object',
  required: ['projectId', 'chunkBytes', 'signalsBytes', 'aggregatesBytes', 'recordedMinutes', 'bytesPerRecordedMinute', 'retentionDays'],
  properties: {
    projectId: { type: 'string' },
    chunkBytes: { type: 'integer', minimum: 0, description: 'Recording bytes held now, exactly as received.' },
    signalsBytes: { type: 'integer', minimum: 0, description: 'The signals\' share of the store (its pages for signals, shared out by signal batches).' },
    aggregatesBytes: { type: 'integer', minimum: 0, description: 'The aggregates\' share of the store, shared out the same way.' },
    recordedMinutes: { type: 'number', minimum: 0, description: 'Minutes of recording the held chunks span.' },
    bytesPerRecordedMinute: { type: 'integer', minimum: 0, nullable: true, description: 'chunkBytes per recorded minute; null until something is recorded.' },
    retentionDays: { type: 'integer', minimum: 1, description: 'Days recordings are kept after their last activity: the project\'s own, or RETENTION_DAYS.' },
  },
} as const

export const projectAnswer = { type: 'object', required: ['project'], properties: { project: projectSchema } } as const
export const projectListAnswer = { type: 'object', required: ['projects'], properties: { projects: { type: 'array', items: projectSchema } } } as const
export const countAnswer = { type: 'object', required: ['count'], properties: { count: { type: 'integer', minimum: 0 } } } as const

export const setupPathRulesAnswer = {
  type: 'object',
  required: ['ok', 'project', 'pathRules', 'backfillNeeded'],
  properties: {
    ok: { type: 'boolean' },
    project: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
    pathRules: { type: 'array', items: { type: 'string' } },
    backfillNeeded: { type: 'boolean', description: 'True when the project already held pages under the previous rules: existing recordings need re-keying by a backfill.' },
  },
} as const

export const setupTokenAnswer = {
  type: 'object',
  required: ['token', 'expiresAt'],
  properties: {
    token: { type: 'string', pattern: '^svc_st_', description: 'Shown once. Export it in the shell of the install agent; never commit it.' },
    expiresAt: { type: 'number', description: 'Epoch milliseconds; 30 days after minting.' },
  },
} as const

export const revokedAnswer = {
  type: 'object',
  required: ['ok', 'revoked'],
  properties: { ok: { type: 'boolean' }, revoked: { type: 'integer', minimum: 0 } },
} as const

export const keyListAnswer = {
  type: 'object',
  required: ['keys'],
  properties: {
    keys: {
      type: 'array',
      items: {
        type: 'object',
        required: ['keyId', 'createdAt', 'masked', 'revocable'],
        properties: {
          keyId: { type: 'string' },
          label: { type: 'string' },
          createdAt: { type: 'number' },
          lastUsedAt: { type: 'number', nullable: true },
          masked: { type: 'string', description: 'Prefix and last four characters; never the secret.' },
          revocable: { type: 'boolean', description: 'Whether the caller may revoke it: a member their own keys, the owner every key.' },
        },
      },
    },
  },
} as const

export const keyCreatedAnswer = {
  type: 'object',
  required: ['keyId', 'apiKey', 'createdAt'],
  properties: {
    keyId: { type: 'string' },
    apiKey: { type: 'string', pattern: '^svc_sk_', description: 'The secret, shown only in this answer.' },
    label: { type: 'string' },
    createdAt: { type: 'number' },
  },
} as const

/** A backfill's progress (projects.backfill and its status). */
export const backfillStatusSchema = {
  type: 'object',
  required: ['projectId', 'state', 'done'],
  properties: {
    projectId: { type: 'string' },
    state: { type: 'string', enum: ['none', 'running', 'done'] },
    done: { type: 'boolean' },
    phase: { type: 'string', enum: ['sessions', 'signals', 'finish', 'done'] },
    rules: { type: 'array', items: { type: 'string' } },
    startedAt: { type: 'number' },
    updatedAt: { type: 'number' },
    finishedAt: { type: 'number' },
    pagesBefore: { type: 'integer' },
    pagesAfter: { type: 'integer' },
    sessionsTotal: { type: 'integer' },
    sessionsRekeyed: { type: 'integer' },
    signalBatchesRekeyed: { type: 'integer' },
  },
} as const

export const okAnswer = { type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' } } } as const
