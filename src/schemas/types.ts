/**
 * The TypeScript types of every request and answer body, derived from the
 * JSON Schemas the server validates with and documents in /openapi.json. The
 * tracker, the dashboard and the CLI import these (type-only, so nothing
 * reaches their bundles): a schema change then fails the build of any client
 * that disagrees with it (test/schemas/client-types.test.ts shows it), and
 * test/schemas/store-agrees.ts holds the store's own shapes to them.
 */
import type { FromSchema } from 'json-schema-to-ts'
import type * as accounts from './accounts.js'
import type { captureSettingsSchema } from './capture.js'
import type * as common from './common.js'
import type * as control from './control.js'
import type * as audit from './audit.js'
import type * as erasure from './erasure.js'
import type * as members from './members.js'
import type * as overview from './overview.js'
import type * as read from './read.js'
import type * as answers from './read-answers.js'
import type { snippetAnswer } from './snippet.js'
import type * as ingest from './tracker-payloads.js'

/** Array element of an array type. */
type Item<T> = T extends readonly (infer U)[] ? U : never

// ---- ingest (the tracker's payloads) ----
export type ChunkMeta = FromSchema<typeof ingest.chunkMetaSchema>
export type SignalView = FromSchema<typeof ingest.viewSchema>
export type SignalClick = FromSchema<typeof ingest.clickSchema>
export type SignalError = FromSchema<typeof ingest.errorEntrySchema>
export type SignalConsole = FromSchema<typeof ingest.consoleEntrySchema>
export type SignalRequest = FromSchema<typeof ingest.requestEntrySchema>
export type SignalsBatch = FromSchema<typeof ingest.signalsBatchSchema>
export type RecordingLoss = FromSchema<typeof ingest.recordingLossSchema>
export type IngestAck = FromSchema<typeof ingest.okSchema>

// ---- shared resources ----
export type ErrorBody = FromSchema<typeof common.errorBodySchema>
export type Project = FromSchema<typeof common.projectSchema>
export type ApiKeyIdentity = FromSchema<typeof common.apiKeyIdentitySchema>
export type Health = FromSchema<typeof common.healthSchema>
export type Release = FromSchema<typeof common.releaseSchema>

// ---- projects, keys, set-up ----
export type CreateProjectBody = FromSchema<typeof control.createProjectBody>
export type ProjectPathRulesBody = FromSchema<typeof control.projectPathRulesBody>
export type ProjectIdBody = FromSchema<typeof control.projectIdBody>
export type ProjectRetentionBody = FromSchema<typeof control.projectRetentionBody>
export type ProjectStorageAnswer = FromSchema<typeof control.projectStorageAnswer>
export type KeysCreateBody = FromSchema<typeof control.keysCreateBody>
export type KeysRevokeBody = FromSchema<typeof control.keysRevokeBody>
export type ProjectAnswer = FromSchema<typeof control.projectAnswer>
export type ProjectListAnswer = FromSchema<typeof control.projectListAnswer>
export type CountAnswer = FromSchema<typeof control.countAnswer>
export type SetupPathRulesAnswer = FromSchema<typeof control.setupPathRulesAnswer>
export type SetupTokenAnswer = FromSchema<typeof control.setupTokenAnswer>
export type RevokedAnswer = FromSchema<typeof control.revokedAnswer>
export type KeyListAnswer = FromSchema<typeof control.keyListAnswer>
export type ApiKeyRow = Item<KeyListAnswer['keys']>
export type KeyCreatedAnswer = FromSchema<typeof control.keyCreatedAnswer>
export type SnippetAnswer = FromSchema<typeof snippetAnswer>
export type BackfillStatus = FromSchema<typeof control.backfillStatusSchema>

// ---- accounts and members ----
export type SignedInAnswer = FromSchema<typeof accounts.signedInAnswer>
export type AuthStateAnswer = FromSchema<typeof accounts.authStateAnswer>
export type InviteAnswer = FromSchema<typeof accounts.inviteAnswer>
export type InviteListAnswer = FromSchema<typeof accounts.inviteListAnswer>
export type InviteRow = Item<InviteListAnswer['invites']>
export type MemberListAnswer = FromSchema<typeof members.memberListAnswer>
export type MemberRow = Item<MemberListAnswer['members']>
export type MemberRemoveAnswer = FromSchema<typeof members.memberRemoveAnswer>
export type PasswordChangeBody = FromSchema<typeof members.passwordChangeBody>
export type SessionsEndedAnswer = FromSchema<typeof members.sessionsEndedAnswer>
export type MemberRoleBody = FromSchema<typeof audit.memberRoleBody>
export type MemberRoleAnswer = FromSchema<typeof audit.memberRoleAnswer>
export type AuditListBody = FromSchema<typeof audit.auditListBody>
export type AuditListAnswer = FromSchema<typeof audit.auditListAnswer>
export type AuditEntry = Item<AuditListAnswer['entries']>
export type CreateErasureBody = FromSchema<typeof erasure.createErasureBody>
export type CreateErasureAnswer = FromSchema<typeof erasure.createErasureAnswer>
export type ErasureAnswer = FromSchema<typeof erasure.erasureAnswer>
export type ErasureListAnswer = FromSchema<typeof erasure.erasureListAnswer>
export type Erasure = ErasureAnswer['erasure']

// ---- the read API ----
export type SessionsListBody = FromSchema<typeof read.sessionsListBody>
export type FrictionListBody = FromSchema<typeof read.frictionListBody>
export type HeatmapBody = FromSchema<typeof read.heatmapBody>
export type ElementsTopBody = FromSchema<typeof read.elementsTopBody>
export type PagesListBody = FromSchema<typeof read.pagesListBody>
export type SessionSummary = FromSchema<typeof answers.sessionSummarySchema>
export type SessionsListAnswer = FromSchema<typeof answers.sessionsListAnswer>
export type ChunkInfo = FromSchema<typeof answers.chunkInfoSchema>
export type SessionChunksAnswer = FromSchema<typeof answers.sessionChunksAnswer>
export type Completeness = FromSchema<typeof answers.completenessSchema>
export type HeatmapAnswer = FromSchema<typeof answers.heatmapAnswer>
export type HeatKind = HeatmapAnswer['kind']
export type Device = NonNullable<HeatmapAnswer['device']>
export type ElementsTopAnswer = FromSchema<typeof answers.elementsTopAnswer>
export type ElementRow = Item<ElementsTopAnswer['elements']>
export type FrictionItem = FromSchema<typeof answers.frictionItemSchema>
export type FrictionKind = FrictionItem['kind']
export type FrictionListAnswer = FromSchema<typeof answers.frictionListAnswer>
export type PagesListAnswer = FromSchema<typeof answers.pagesListAnswer>
export type PageRow = Item<PagesListAnswer['pages']>
export type OverviewBody = FromSchema<typeof overview.overviewBody>
export type OverviewAnswer = FromSchema<typeof overview.overviewAnswer>

/** A project's capture settings: what the tracker records (projects.capture, the project answer, GET /api/capture). */
export type CaptureSettings = FromSchema<typeof captureSettingsSchema>
