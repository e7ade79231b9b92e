/**
 * The table of operations a control entry may name: the store mutations every
 * node makes in log order (replicated), and the asynchronous store methods
 * each node runs on its own copy (local). The applier refuses any entry that
 * names anything else, and the build fails while an asynchronous store
 * method is in neither list (a new mutation would otherwise stay on one node).
 */
import type { Store } from '../store/store.js'

/** Store methods that change what the service knows: each is one control log entry. */
export const REPLICATED_MUTATIONS = [
  'putOrg',
  'ensureOrgAndUser',
  'putUser',
  'createFirstOwner',
  'updateUser',
  'removeUser',
  'claimSignInLink',
  'endDashboardSessions',
  'joinByInvite',
  'putDashboardSession',
  'deleteDashboardSession',
  'putInvite',
  'consumeInvite',
  'revokeInvite',
  'putApiKey',
  'updateApiKey',
  'putSetupToken',
  'updateSetupToken',
  'createProject',
  'updateProject',
  'startBackfill',
  'appendAudit',
  // Every node records the request and erases on its own copy (continueErasure); the log itself still holds the bytes.
  'startErasure',
] as const satisfies readonly (keyof Store)[]

/**
 * Asynchronous store methods each node runs on its own copy: derivations, the ingest path, the log's own
 * bookkeeping, and the purges, which delete only what time has already made useless (expired credentials,
 * recordings past retention), so each node runs them on its own clock; and eviction under a node's own disk budget.
 */
export const LOCAL_OPERATIONS = ['appendBatch', 'setJournalPosition', 'applyJournalled', 'continueBackfill', 'purgeRecordingsBefore', 'evictRecordings', 'purgeExpiredCredentials', 'purgeAuditBefore', 'applyDerivations', 'continueErasure', 'close'] as const satisfies readonly (keyof Store)[]

export type ReplicatedOperation = (typeof REPLICATED_MUTATIONS)[number]

/** The operations a control entry may name: the applier refuses any other (a forged or foreign entry). */
export const REPLICATED = new Set<string>(REPLICATED_MUTATIONS)

type AsyncMethodOf<T> = { [K in keyof T]-?: T[K] extends (...args: never[]) => Promise<unknown> ? K : never }[keyof T]
type Unlisted = Exclude<AsyncMethodOf<Store>, ReplicatedOperation | (typeof LOCAL_OPERATIONS)[number]>
/**
 * Does not compile while a store method that returns a promise is in neither list above: a new mutation must say
 * whether every node makes it (replicated) or each node on its own (local), or it would silently stay on one node.
 */
export const EVERY_ASYNC_METHOD_LISTED: [Unlisted] extends [never] ? true : { unlisted: Unlisted } = true

