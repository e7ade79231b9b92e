/**
 * The records of organisations, members and their credentials, and of the
 * audit log: plain data shapes, re-exported by records.ts with the rest.
 */

export interface OrgRecord {
  id: string
  name: string
  createdAt: number
}

export interface UserRecord {
  id: string
  orgId: string
  email: string
  createdAt: number
  /** scrypt hash of the dashboard password (src/control/passwords.ts); absent for users who only hold API keys. */
  passwordHash?: string
  /**
   * What the member may do (src/accounts/roles.ts): `owner` created the organisation and alone removes members and sets roles.
   * `member` is how records from before roles say admin; the oldest records have none (src/accounts/roles.ts `roleOf`).
   */
  role?: 'owner' | 'admin' | 'viewer' | 'member'
  /** The user whose invite link this user joined by. */
  invitedBy?: string
  lastSignInAt?: number
}

/** What removing a member undid, in the one transaction that removed them. */
export interface RemovedMember {
  user: UserRecord
  sessionsEnded: number
  keysRevoked: number
  invitesRevoked: number
  /** Setup tokens they minted (older tokens record no creator, and stay until they expire). */
  setupTokensRevoked: number
}

/**
 * What writing a new credential (or project) came to, decided in the one
 * transaction that writes it: `holder_gone` when the user it belongs to was
 * removed, left the organisation or (for a session) changed password since the
 * caller checked; `quota_exceeded` when the organisation holds its quota.
 */
export type CreateOutcome = 'created' | 'holder_gone' | 'quota_exceeded'

/** Expired records the housekeeping deleted (src/accounts/housekeeping.ts). */
export interface PurgedCredentials {
  sessions: number
  invites: number
  setupTokens: number
}

export type JoinOutcome = 'joined' | 'invite_gone' | 'email_taken'

export interface OrgAndUser {
  org: OrgRecord
  user: UserRecord
}

/** A signed-in dashboard browser. The cookie holds the secret; only its digest is stored. */
export interface DashboardSessionRecord {
  id: string
  digestHex: string
  userId: string
  orgId: string
  /** Sent back in X-CSRF-Token on every state-changing request. */
  csrfToken: string
  createdAt: number
  expiresAt: number
}

/** A one-time link that lets someone join an organisation. */
export interface InviteRecord {
  id: string
  digestHex: string
  orgId: string
  invitedBy: string
  createdAt: number
  expiresAt: number
  usedAt?: number
  revokedAt?: number
  /** A sign-in link rather than an invite: accepting it sets this existing user's password (npm run admin -- sign-in-link). */
  forUserId?: string
}

export interface ApiKeyRecord {
  id: string
  orgId: string
  userId: string
  label?: string
  /** SHA-256 of the whole token, hex. The token itself is never stored. */
  digestHex: string
  /** Last four characters of the token, for the masked form. */
  lastFour: string
  createdAt: number
  lastUsedAt?: number
  revokedAt?: number
}

export interface SetupTokenRecord {
  id: string
  projectId: string
  /** The user who minted it, revoked with them; absent for tokens an operator minted (npm run admin) and for older ones. */
  createdBy?: string
  digestHex: string
  createdAt: number
  expiresAt: number
  revokedAt?: number
}

/**
 * One entry of an organisation's audit log (src/control/audit.ts): who did what to what, and when. Ids, emails
 * and the names of settings only, never recorded content (no event, URL, identity or page a tracker sent).
 */
export interface AuditRecord {
  /** Unique; with `at`, the entry's place in the log. */
  id: string
  orgId: string
  at: number
  /** The member who acted; absent for an unauthenticated attempt or a setup token an operator minted. */
  actorUserId?: string
  /** The member's email as it was then: the entry still says who after they are removed. */
  actorEmail?: string
  /** How they called: `dashboard`, `apiKey`, `setupToken`. */
  via: string
  action: string
  /** What the action was done to: an id (member, key, invite, project, session key). */
  target?: string
  /** What changed, when the action alone does not say: a new role, the names of changed settings. */
  detail?: string
  /** The client's address as the front saw it. */
  ip?: string
}

/** A page of an audit log, newest first: up to `limit` entries older than the entry `before` (none: from the newest). */
export interface AuditSlice {
  before?: { at: number; id: string }
  limit: number
}
