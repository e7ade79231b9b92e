/**
 * The store a cluster node's control worker uses: reads from this node's
 * LMDB (the read model), and every mutation a request makes published to the
 * log and answered with its result once this node has applied it (applier.ts).
 * Work a node derives by itself from what it holds (folding aggregates,
 * backfill steps, the retention purge) stays local, as does ingest, which
 * reaches the log through the fronts.
 */
import type { Store } from '../store/store.js'
import type { Applier } from './applier.js'

/** Store methods that change what the service knows: each is one control log entry. */
export const REPLICATED_MUTATIONS = [
  'putOrg',
  'putUser',
  'createFirstOwner',
  'updateUser',
  'removeUser',
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
] as const satisfies readonly (keyof Store)[]

/** Asynchronous store methods each node runs on its own copy: derivations, the ingest path, the log's own bookkeeping. */
export const LOCAL_OPERATIONS = ['appendBatch', 'setJournalPosition', 'continueBackfill', 'purgeRecordingsBefore', 'applyDerivations', 'close'] as const satisfies readonly (keyof Store)[]

export function replicatedStore(local: Store, applier: Applier, deadlineMs: number): Store {
  const replicated = new Set<string>(REPLICATED_MUTATIONS)
  return new Proxy(local, {
    get(target, property, receiver) {
      if (typeof property === 'string' && replicated.has(property)) {
        return (...args: unknown[]) => applier.submit(property, args, Date.now() + deadlineMs)
      }
      const value = Reflect.get(target, property, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}
