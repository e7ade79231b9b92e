/**
 * The store a cluster node's control worker uses: reads from this node's
 * LMDB (the read model), and every mutation a request makes published to the
 * log and answered with its result once this node has applied it (applier.ts).
 * Work a node derives by itself from what it holds (folding aggregates,
 * backfill steps, the retention purge) stays local, as does ingest, which
 * reaches the log through the fronts.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { ApiKeyRecord, CreateOutcome, InviteRecord, SetupTokenRecord, Store } from '../store/store.js'
import type { Applier } from './applier.js'
import { REPLICATED, type ReplicatedOperation } from './operations.js'
import { waitAway } from '../waiting.js'

export function replicatedStore(local: Store, applier: Applier, deadlineMs: number): Store {
  return withMutations(local, (op, args) => waitAway(() => applier.submit(op, args, Date.now() + deadlineMs)))
}

/** `local`, with every replicated mutation routed to `mutate` and everything else answered by `local` itself. */
function withMutations(local: Store, mutate: (op: string, args: unknown[]) => Promise<unknown>): Store {
  return new Proxy(local, {
    get(target, property, receiver) {
      if (typeof property === 'string' && REPLICATED.has(property)) return (...args: unknown[]) => mutate(property, args)
      const value = Reflect.get(target, property, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/** What an update answers, read back once applied: the record as it now is. */
const READ_BACK: Partial<Record<ReplicatedOperation, (store: Store, args: unknown[]) => unknown>> = {
  updateUser: (store, [id]) => store.getUser(id as string),
  updateApiKey: (store, [id]) => store.getApiKey(id as string),
  updateSetupToken: (store, [id]) => store.getSetupToken(id as string),
  updateProject: (store, [id]) => store.getProject(id as string),
  ensureOrgAndUser: (store, [org, user]) => ({ org: store.findOrgByName((org as { name: string }).name), user: store.findUserByEmail((user as { email: string }).email) }),
  // Whether a credential was written, and if not, why: its holder gone, or else the quota.
  putApiKey: (store, [key]) => createdOr(Boolean(store.getApiKey((key as ApiKeyRecord).id)), holds(store, (key as ApiKeyRecord).userId, (key as ApiKeyRecord).orgId)),
  putInvite: (store, [invite]) => createdOr(Boolean(store.getInvite((invite as InviteRecord).id)), holds(store, (invite as InviteRecord).invitedBy, (invite as InviteRecord).orgId)),
  putSetupToken: (store, [token]) => createdOr(Boolean(store.getSetupToken((token as SetupTokenRecord).id)), false),
  createProject: (store, [project]) => store.getProject((project as { id: string }).id),
}

const holds = (store: Store, userId: string, orgId: string) => store.getUser(userId)?.orgId === orgId
const createdOr = (created: boolean, holderThere: boolean): CreateOutcome => (created ? 'created' : holderThere ? 'quota_exceeded' : 'holder_gone')

/**
 * The store of a process beside a running node (`npm run admin` in the
 * cluster mode): each mutation is published to the log, then waited for in
 * the node's LMDB, which the node's control worker applies it to. Updates
 * answer the record as it then is (and ensureOrgAndUser the pair it settled on); other mutations answer nothing.
 */
export function submittingStore(local: Store, controlStream: string, submit: (op: string, args: unknown[]) => Promise<number>, deadlineMs: number): Store {
  return withMutations(local, async (op, args) => {
    const seq = await submit(op, args)
    const deadline = Date.now() + deadlineMs
    while (local.journalPosition(controlStream) < seq) {
      if (Date.now() > deadline) throw new Error(`the log holds the change (control entry ${seq}) but this node has not applied it within ${deadlineMs} ms: is the node running on this DATA_DIR?`)
      await sleep(20)
    }
    return READ_BACK[op as keyof typeof READ_BACK]?.(local, args)
  })
}
