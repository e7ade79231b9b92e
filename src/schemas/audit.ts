/** JSON Schemas of the governance operations (extension, issue 34): members' roles and the audit log. */

/** What the audit log records, by name (src/control/audit-events.ts says which operation records which). */
export const AUDIT_ACTIONS = [
  'org.setup',
  'auth.sign_in',
  'auth.sign_out_everywhere',
  'auth.password_change',
  'invite.create',
  'invite.revoke',
  'invite.accept',
  'member.remove',
  'member.role',
  'key.create',
  'key.revoke',
  'project.create',
  'project.rename',
  'project.delete',
  'project.path_rules',
  'project.capture',
  'project.retention',
  'project.backfill',
  'setup_token.mint',
  'setup_token.revoke',
  'session.replay',
  'session.watch',
  'session.watch_end',
  'session.search_user',
  'erasure.create',
  'erasure.dry_run',
] as const

const userId = { type: 'string', minLength: 1, maxLength: 64, description: 'A member\'s id, from members.list.' } as const

export const memberRoleBody = {
  type: 'object',
  additionalProperties: false,
  required: ['userId', 'role'],
  properties: {
    userId,
    role: { type: 'string', enum: ['admin', 'viewer'], description: 'admin: everything but removing members, setting roles and reading the audit log. viewer: reads only (replays, heatmaps, lists).' },
  },
} as const

export const memberRoleAnswer = {
  type: 'object',
  required: ['ok', 'role'],
  properties: { ok: { type: 'boolean' }, role: { type: 'string', enum: ['admin', 'viewer'] } },
} as const

export const auditListBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 500, description: 'Entries per page (default 100).' },
    cursor: { type: 'string', maxLength: 100, description: 'nextCursor of the page before.' },
  },
} as const

export const auditListAnswer = {
  type: 'object',
  required: ['entries', 'nextCursor'],
  properties: {
    entries: {
      type: 'array',
      description: 'Newest first. Ids, emails and the names of changed settings only: never recorded content.',
      items: {
        type: 'object',
        required: ['id', 'at', 'action', 'via', 'actorUserId', 'actorEmail', 'target', 'detail', 'ip'],
        properties: {
          id: { type: 'string' },
          at: { type: 'number', description: 'When, ms since the epoch.' },
          action: { type: 'string', enum: AUDIT_ACTIONS },
          via: { type: 'string', enum: ['dashboard', 'apiKey', 'setupToken'], description: 'The credential the actor used.' },
          actorUserId: { type: 'string', nullable: true },
          actorEmail: { type: 'string', nullable: true, description: 'The actor\'s email when they acted (kept after they are removed).' },
          target: { type: 'string', nullable: true, description: 'What was acted on: a member, key, invite, project id or session key.' },
          detail: { type: 'string', nullable: true, description: 'What changed, when the action does not say: the new role, the settings changed.' },
          ip: { type: 'string', nullable: true, description: 'The client\'s address as the service saw it.' },
        },
      },
    },
    nextCursor: { type: 'string', nullable: true, description: 'Send as `cursor` for older entries; null at the oldest.' },
  },
} as const
