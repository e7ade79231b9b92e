/** JSON Schemas of the member operations (extension): who belongs to an organisation, and their own sign-in. */

const userId = { type: 'string', minLength: 1, maxLength: 64, description: 'A member\'s id, from members.list.' } as const
/** The same bounds as a new password at set-up (src/schemas/accounts.ts). */
const newPassword = { type: 'string', minLength: 10, maxLength: 200 } as const

export const memberListAnswer = {
  type: 'object',
  required: ['members'],
  properties: {
    members: {
      type: 'array',
      description: 'Oldest first: the owner, then everyone in the order they joined.',
      items: {
        type: 'object',
        required: ['userId', 'email', 'role', 'joinedAt', 'lastSignInAt', 'invitedBy', 'you'],
        properties: {
          userId,
          email: { type: 'string' },
          role: { type: 'string', enum: ['owner', 'admin', 'viewer'], description: 'What they may do (docs/security.md, roles): the owner created the organisation and alone removes members, sets roles and reads the audit log; a viewer only reads.' },
          joinedAt: { type: 'number' },
          lastSignInAt: { type: 'number', nullable: true, description: 'Last dashboard sign-in; null if never.' },
          invitedBy: { type: 'string', nullable: true, description: 'Email of the member whose invite link they joined by; null for the owner, for operator-made users, and when that member was removed.' },
          you: { type: 'boolean', description: 'This member is the caller.' },
        },
      },
    },
  },
} as const

export const memberRemoveBody = {
  type: 'object',
  additionalProperties: false,
  required: ['userId'],
  properties: { userId },
} as const

export const memberRemoveAnswer = {
  type: 'object',
  required: ['ok', 'sessionsEnded', 'keysRevoked', 'invitesRevoked', 'setupTokensRevoked'],
  properties: {
    ok: { type: 'boolean' },
    sessionsEnded: { type: 'integer', description: 'Their dashboard sessions, ended at once.' },
    keysRevoked: { type: 'integer', description: 'The API keys they held, revoked (not handed over: a key made by someone removed is not trusted).' },
    invitesRevoked: { type: 'integer', description: 'Their unused invite links, revoked.' },
    setupTokensRevoked: { type: 'integer', description: 'The live setup tokens they minted, revoked (tokens minted before creators were recorded stay until they expire).' },
  },
} as const

export const passwordChangeBody = {
  type: 'object',
  additionalProperties: false,
  required: ['currentPassword', 'newPassword'],
  properties: { currentPassword: { type: 'string', maxLength: 200 }, newPassword },
} as const

export const sessionsEndedAnswer = {
  type: 'object',
  required: ['ok', 'sessionsEnded'],
  properties: { ok: { type: 'boolean' }, sessionsEnded: { type: 'integer' } },
} as const
