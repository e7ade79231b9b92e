/**
 * The audit log's writer (issue 34): turns an operation's audit event
 * (audit-events.ts) into an entry of the caller's organisation, with who,
 * how, from where and when, and appends it (a replicated store write: every
 * cluster node keeps the same log). Only ids, emails and names of settings
 * go in; never anything a tracker recorded.
 */
import type { IncomingMessage } from 'node:http'
import { newId } from '../accounts/secrets.js'
import { log } from '../log.js'
import type { AuditRecord, Store } from '../store/store.js'
import type { AuditEvent } from './audit-events.js'
import type { ApiKeyAuth, SetupAuth } from './auth.js'
import { clientAddress } from './front-link.js'
import type { RecordAudit } from './router.js'

/**
 * A member re-opening one session's recording within this window adds no entry: the heatmap screen reads a
 * recording for its snapshot on every page it shows, and the log should say who looked, not fill with re-reads.
 */
export const REPLAY_REPEAT_MS = 10 * 60_000

/** Past this many remembered replays, the ones older than the window are forgotten (bounded memory). */
const REPLAYS_REMEMBERED = 10_000

interface Actor {
  orgId: string
  userId?: string
  via: AuditRecord['via']
}

export function auditRecorder(store: Store, now: () => number = Date.now): RecordAudit {
  const replays = new Map<string, number>()

  function actorOf(event: AuditEvent, auth: ApiKeyAuth | SetupAuth | undefined): Actor | undefined {
    if (auth?.kind === 'apiKey') return { orgId: auth.orgId, userId: auth.userId, via: auth.keyId === 'dashboard' ? 'dashboard' : 'apiKey' }
    if (auth?.kind === 'setupToken') {
      const orgId = store.getProject(auth.projectId)?.orgId
      return orgId ? { orgId, userId: store.getSetupToken(auth.tokenId)?.createdBy, via: 'setupToken' } : undefined
    }
    return event.actor && { ...event.actor, via: 'dashboard' }
  }

  /** Whether this replay was recorded within the window (and remembers it if not). */
  function repeated(key: string, at: number): boolean {
    const last = replays.get(key)
    if (last !== undefined && at - last < REPLAY_REPEAT_MS) return true
    if (replays.size >= REPLAYS_REMEMBERED) for (const [k, t] of replays) if (at - t >= REPLAY_REPEAT_MS) replays.delete(k)
    replays.set(key, at)
    return false
  }

  return async (event, req, auth) => {
    const actor = actorOf(event, auth as ApiKeyAuth | SetupAuth | undefined)
    if (!actor) return
    const at = now()
    const email = actor.userId ? store.getUser(actor.userId)?.email : undefined
    if (event.action === 'session.replay' && repeated(`${actor.userId}\n${event.target}`, at)) return
    const entry: AuditRecord = {
      id: newId('aud'),
      orgId: actor.orgId,
      at,
      ...(actor.userId ? { actorUserId: actor.userId } : {}),
      ...(email ? { actorEmail: email } : {}),
      via: actor.via,
      action: event.action,
      ...(event.target ? { target: event.target } : {}),
      ...(event.detail ? { detail: event.detail } : {}),
      ip: clientAddress(req),
    }
    try {
      await store.appendAudit(entry)
    } catch (error) {
      // The action itself is done and answered as done: a client told it failed would do it again.
      log.error('audit entry not recorded', { action: entry.action, orgId: entry.orgId, error: String(error) })
    }
  }
}
