/** JSON Schemas of the dashboard account operations (extension). */

const email = { type: 'string', minLength: 3, maxLength: 254, pattern: '^[^@\\s]+@[^@\\s]+$' } as const
/** At least 10 characters (NIST SP 800-63B asks for 8; a dashboard holding recordings deserves a little more). */
const password = { type: 'string', minLength: 10, maxLength: 200 } as const

export const setupBody = {
  type: 'object',
  required: ['orgName', 'email', 'password'],
  properties: { orgName: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' }, email, password },
} as const

export const loginBody = {
  type: 'object',
  required: ['email', 'password'],
  properties: { email: { type: 'string', maxLength: 254 }, password: { type: 'string', maxLength: 200 } },
} as const

export const acceptInviteBody = {
  type: 'object',
  required: ['token', 'email', 'password'],
  properties: { token: { type: 'string', maxLength: 200 }, email, password },
} as const

export const signedInAnswer = {
  type: 'object',
  required: ['user', 'csrfToken'],
  properties: {
    user: {
      type: 'object',
      required: ['userId', 'email', 'orgId', 'orgName', 'role'],
      properties: {
        userId: { type: 'string' },
        email: { type: 'string' },
        orgId: { type: 'string' },
        orgName: { type: 'string' },
        role: { type: 'string', enum: ['owner', 'admin', 'viewer'], description: 'What the member may do (docs/security.md, roles); the dashboard offers only what it allows.' },
      },
    },
    csrfToken: { type: 'string', description: 'Send it back in X-CSRF-Token on every POST made with the session cookie.' },
  },
} as const

export const authStateAnswer = {
  type: 'object',
  required: ['firstRun', 'signedIn'],
  properties: {
    firstRun: { type: 'boolean', description: 'No user exists yet: the dashboard offers to create the first organisation and its owner.' },
    signedIn: { type: 'boolean' },
    user: signedInAnswer.properties.user,
    csrfToken: { type: 'string' },
  },
} as const

const inviteId = { type: 'string', minLength: 1, maxLength: 64, description: 'The invite\'s id (not its secret: the link is shown once and only its digest is stored).' } as const

export const inviteAnswer = {
  type: 'object',
  required: ['inviteId', 'inviteUrl', 'expiresAt'],
  properties: { inviteId, inviteUrl: { type: 'string', description: 'One-time link; shown once.' }, expiresAt: { type: 'number' } },
} as const

export const inviteListAnswer = {
  type: 'object',
  required: ['invites'],
  properties: {
    invites: {
      type: 'array',
      description: 'Newest first.',
      items: {
        type: 'object',
        required: ['inviteId', 'status', 'createdAt', 'expiresAt', 'invitedBy'],
        properties: {
          inviteId,
          status: { type: 'string', enum: ['pending', 'used', 'revoked', 'expired'], description: 'pending: the link still works.' },
          createdAt: { type: 'number' },
          expiresAt: { type: 'number' },
          invitedBy: { type: 'string', nullable: true, description: 'Email of the user who created it.' },
          usedAt: { type: 'number' },
          revokedAt: { type: 'number' },
        },
      },
    },
  },
} as const

export const inviteRevokeBody = {
  type: 'object',
  additionalProperties: false,
  required: ['inviteId'],
  properties: { inviteId },
} as const
