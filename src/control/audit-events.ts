/**
 * What the audit log records (issue 34): the actions, by name, and the event
 * an operation's `audit` hook makes of one successful call. The router hands
 * each event to the recorder (audit.ts); the names are the API's (audit.list,
 * src/schemas/audit.ts).
 */
import { AUDIT_ACTIONS } from '../schemas/audit.js'

export { AUDIT_ACTIONS }

export type AuditAction = (typeof AUDIT_ACTIONS)[number]

export interface AuditEvent {
  action: AuditAction
  /** An id: the member, key, invite, project or session acted on. Never recorded content. */
  target?: string
  /** What changed, when the action does not say: a role, the names of the settings changed. */
  detail?: string
  /** Who acted, for the operations that take no credential (sign-in, set-up, joining): the member the call signed in. */
  actor?: { orgId: string; userId: string }
}
