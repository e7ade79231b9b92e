/** JSON Schemas of erasure requests (issue 34): erasures.create, erasures.get, erasures.list. */
import { CONFIRMATION_TTL_MS } from '../recordings/erasure-limits.js'
import { confirmation, projectId } from './control.js'

/** The bounds of the ids a tracker sends (tracker-payloads.ts): nothing longer was ever stored. */
const trackerId = (description: string) => ({ type: 'string', minLength: 1, maxLength: 256, description }) as const
/** Milliseconds since the epoch, from 2000 to 2100: anything else is a mistake, not a range. */
const time = (description: string) => ({ type: 'integer', minimum: 946_684_800_000, maximum: 4_102_444_800_000, description }) as const

const erasureId = { type: 'string', minLength: 1, maxLength: 64, pattern: '^er_[0-9a-f]{1,32}$', description: 'An erasure id, from erasures.create or erasures.list.' } as const

export const erasureSubject = {
  description: 'Whose data goes: one session, every session of a visitor, of a user (the id given to `identify`), or the sessions a query names.',
  oneOf: [
    { type: 'object', additionalProperties: false, required: ['sessionKey'], properties: { sessionKey: trackerId('A session key, from sessions.list.') } },
    { type: 'object', additionalProperties: false, required: ['visitorId'], properties: { visitorId: trackerId('A visitor id (`visitorId` in sessions.list).') } },
    { type: 'object', additionalProperties: false, required: ['userId'], properties: { userId: trackerId('A user id as the site gave it to `identify`.') } },
    {
      type: 'object',
      additionalProperties: false,
      required: ['query'],
      properties: {
        query: {
          type: 'object',
          additionalProperties: false,
          required: ['from', 'until'],
          description: 'Sessions that started in [from, until), and viewed `page` if given.',
          properties: {
            from: time('Start of the range, inclusive (ms since the epoch).'),
            until: time('End of the range, exclusive.'),
            page: { type: 'string', minLength: 1, maxLength: 2000, description: 'A page key, from pages.list.' },
          },
        },
      },
    },
  ],
} as const

const confirmationAnswer = {
  type: 'string',
  description: `A dry run: send it back as \`confirmation\` with the same request, within ${CONFIRMATION_TTL_MS / 60_000} minutes, to go through with it.`,
} as const

export const createErasureBody = {
  type: 'object',
  additionalProperties: false,
  required: ['projectId', 'by'],
  properties: {
    projectId,
    by: erasureSubject,
    dryRun: { type: 'boolean', description: 'Count what would go and remove nothing; the answer carries the confirmation a large erasure needs.' },
    confirmation,
  },
} as const

export const erasureIdBody = {
  type: 'object',
  additionalProperties: false,
  required: ['erasureId'],
  properties: { erasureId },
} as const

export const listErasuresBody = {
  type: 'object',
  additionalProperties: false,
  required: ['projectId'],
  properties: { projectId },
} as const

const counts = {
  sessions: { type: 'integer' },
  chunks: { type: 'integer' },
  bytes: { type: 'integer', description: 'Chunk bytes.' },
  signalBatches: { type: 'integer' },
} as const

export const erasureCountsSchema = {
  type: 'object',
  required: ['sessions', 'chunks', 'bytes', 'signalBatches'],
  properties: counts,
} as const

export const erasureSchema = {
  type: 'object',
  required: ['id', 'projectId', 'subject', 'state', 'phase', 'createdAt', 'updatedAt', 'finishedAt', 'runs', 'sessionsExamined', 'removed', 'scrubbed'],
  properties: {
    id: { type: 'string' },
    projectId: { type: 'string' },
    subject: { type: 'string', enum: ['sessionKey', 'visitorId', 'userId', 'query', 'project'], description: 'What kind of subject the request named; `project`: a project\'s deletion (projects.delete).' },
    by: { ...erasureSubject, description: 'The query, for an erasure by query. A session, visitor or user is never answered: the request records it by keyed hash only, and `subject` says which kind it was.' },
    state: { type: 'string', enum: ['queued', 'running', 'done'], description: 'done: nothing of it is answered any more and its bytes are out of the files (`scrubbed`).' },
    phase: { type: 'string', enum: ['sessions', 'signals', 'fold-log', 'aggregates', 'forget', 'project'] },
    createdAt: { type: 'number' },
    updatedAt: { type: 'number' },
    finishedAt: { type: 'number', nullable: true },
    runs: { type: 'integer', description: 'How many times it was requested: the same request again runs it again under the same id.' },
    sessionsExamined: { type: 'integer', description: 'Progress: sessions looked at so far.' },
    removed: {
      type: 'object',
      required: ['sessions', 'chunks', 'bytes', 'signalBatches', 'aggregateEntries'],
      properties: { ...counts, aggregateEntries: { type: 'integer', description: 'Aggregate entries that named an erased session.' } },
    },
    scrubbed: { type: 'boolean', description: 'The freed pages of the store\'s files were overwritten after it (/docs/privacy).' },
  },
} as const

export const createErasureAnswer = {
  type: 'object',
  required: ['dryRun'],
  properties: {
    dryRun: { type: 'boolean' },
    wouldRemove: { ...erasureCountsSchema, description: 'A dry run: what the request would remove now.' },
    confirmation: confirmationAnswer,
    erasure: erasureSchema,
  },
} as const

export const erasureAnswer = {
  type: 'object',
  required: ['erasure'],
  properties: { erasure: erasureSchema },
} as const

export const erasureListAnswer = {
  type: 'object',
  required: ['erasures'],
  properties: { erasures: { type: 'array', items: erasureSchema } },
} as const

export const deleteProjectAnswer = {
  type: 'object',
  required: ['ok'],
  properties: {
    ok: { type: 'boolean', description: 'true once the project is deleted; false for a dry run.' },
    dryRun: { type: 'boolean' },
    wouldRemove: { ...erasureCountsSchema, description: 'A dry run: what the deletion would remove now.' },
    confirmation: confirmationAnswer,
    erasure: { ...erasureSchema, description: 'The erasure removing what was recorded in the project: poll it with erasures.get.' },
  },
} as const
