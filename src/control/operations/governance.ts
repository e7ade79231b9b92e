/**
 * Governance (extension, issue 34): the owner sets what each member may do
 * (their role) and reads the organisation's audit log. Both are the owner's
 * alone (minRole 'owner', checked by the router); the owner's own role is not
 * changed here, so an organisation always has its owner.
 */
import { roleOf } from '../../accounts/roles.js'
import { ApiError } from '../../errors.js'
import { auditListAnswer, auditListBody, memberRoleAnswer, memberRoleBody } from '../../schemas/audit.js'
import type { AuditEntry } from '../../schemas/types.js'
import type { AuditRecord, Store } from '../../store/store.js'
import type { ApiKeyAuth } from '../auth.js'
import { operation, type Operation } from '../router.js'

const AUDIT_PAGE = 100

const NO_SUCH_MEMBER = { error: 'No such member.', hint: 'List members with POST /auth/members.list.' }

/** A page's cursor: the last entry's time and id, which no entry shares. */
function cursorOf(entry: AuditRecord): string {
  return `${entry.at}.${entry.id}`
}

function parseCursor(cursor: string): { at: number; id: string } {
  const match = /^(\d{1,16})\.([a-z]+_[0-9a-f]+)$/.exec(cursor)
  if (!match) throw new ApiError('invalid_request', { error: 'The cursor is not one audit.list answered.', hint: 'Send the nextCursor of the page before, or none for the newest entries.' })
  return { at: Number(match[1]), id: match[2] }
}

export function governanceOperations(store: Store): Operation<ApiKeyAuth>[] {
  return [
    operation({
      operationId: 'setMemberRole',
      method: 'POST',
      writes: true,
      route: '/auth/members.role',
      credential: 'apiKey',
      minRole: 'owner',
      summary: 'Owner only: sets a member\'s role, admin or viewer, effective on their very next request (dashboard and API keys alike).',
      body: memberRoleBody,
      response: memberRoleAnswer,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body }) {
        const target = store.getUser(body.userId)
        if (!target || target.orgId !== auth.orgId) throw new ApiError('not_found', NO_SUCH_MEMBER)
        if (roleOf(store, target) === 'owner') throw new ApiError('invalid_request', { error: 'The owner\'s role is not changed.', hint: 'Set the roles of the other members.' })
        if (!(await store.updateUser(target.id, { role: body.role }))) throw new ApiError('not_found', NO_SUCH_MEMBER)
        return { ok: true, role: body.role }
      },
      audit: ({ body }) => ({ action: 'member.role', target: body.userId, detail: body.role }),
    }),
    operation({
      operationId: 'listAuditLog',
      method: 'POST',
      route: '/auth/audit.list',
      credential: 'apiKey',
      minRole: 'owner',
      summary: `Owner only: the organisation's audit log, newest first (${AUDIT_PAGE} entries unless \`limit\` says): sign-ins, members, roles, keys, invites, project settings, and who opened which session's recording. Kept AUDIT_RETENTION_DAYS (365 unless configured). Never holds recorded content.`,
      body: auditListBody,
      response: auditListAnswer,
      errors: ['invalid_request'],
      handle({ auth, body }) {
        const limit = body.limit ?? AUDIT_PAGE
        const entries = store.listAudit(auth.orgId, { limit: limit + 1, ...(body.cursor ? { before: parseCursor(body.cursor) } : {}) })
        const page = entries.slice(0, limit)
        return {
          entries: page.map((e): AuditEntry => ({
            id: e.id,
            at: e.at,
            action: e.action as AuditEntry['action'],
            via: e.via as AuditEntry['via'],
            actorUserId: e.actorUserId ?? null,
            actorEmail: e.actorEmail ?? null,
            target: e.target ?? null,
            detail: e.detail ?? null,
            ip: e.ip ?? null,
          })),
          nextCursor: entries.length > limit ? cursorOf(page[page.length - 1]) : null,
        }
      },
    }),
  ]
}
