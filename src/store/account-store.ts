/** The part of the store that keeps organisations, their users and every credential: API keys, setup tokens, dashboard sessions, invites. */
import type {
  ApiKeyRecord,
  DashboardSessionRecord,
  InviteRecord,
  JoinOutcome,
  OrgAndUser,
  OrgRecord,
  RemovedMember,
  SetupTokenRecord,
  UserRecord,
} from './records.js'

export interface AccountStore {
  // ---- organisations and users ----
  findOrgByName(name: string): OrgRecord | undefined
  getOrg(id: string): OrgRecord | undefined
  putOrg(org: OrgRecord): Promise<void>
  /** Case-insensitive. */
  findUserByEmail(email: string): UserRecord | undefined
  getUser(id: string): UserRecord | undefined
  putUser(user: UserRecord): Promise<void>
  countUsers(): number
  /**
   * Finds the organisation by name and the user by email, creating each that
   * does not exist yet, in one step (atomic; in the cluster mode decided in the
   * log's order, so two nodes never make two organisations of one name). A new
   * user gets `org`'s id, and is its owner when it has no user yet.
   */
  ensureOrgAndUser(org: OrgRecord, user: Omit<UserRecord, 'orgId' | 'role'>): Promise<OrgAndUser>
  /** First run: creates the organisation and its owner only if no user exists yet (atomic: of two concurrent calls, one creates). */
  createFirstOwner(org: OrgRecord, user: UserRecord): Promise<boolean>
  /** The organisation's users, oldest first. */
  listUsers(orgId: string): UserRecord[]
  updateUser(id: string, patch: Partial<Pick<UserRecord, 'passwordHash' | 'lastSignInAt'>>): Promise<UserRecord | undefined>
  /**
   * All or nothing: deletes the user, ends their dashboard sessions, revokes the
   * API keys they hold and their unused invite links. Undefined when there is no such user.
   */
  removeUser(id: string, now: number): Promise<RemovedMember | undefined>

  // ---- dashboard sessions ----
  putDashboardSession(session: DashboardSessionRecord): Promise<void>
  getDashboardSession(id: string): DashboardSessionRecord | undefined
  deleteDashboardSession(id: string): Promise<void>
  /** Ends every dashboard session of the user but `keep`; resolves to how many. */
  endDashboardSessions(userId: string, keep?: string): Promise<number>

  // ---- invites ----
  putInvite(invite: InviteRecord): Promise<void>
  getInvite(id: string): InviteRecord | undefined
  /** Marks the invite used if it is unused, unrevoked and unexpired; resolves to it, or undefined (atomic: a link works once). */
  consumeInvite(id: string, now: number): Promise<InviteRecord | undefined>
  /** Every invite the organisation created, used, revoked and expired ones included. */
  listInvites(orgId: string): InviteRecord[]
  /** Revokes the invite if it is still unused (atomic with consumeInvite); resolves to the record as it now is, or undefined when there is none. */
  revokeInvite(id: string, now: number): Promise<InviteRecord | undefined>
  /**
   * Accepting an invite, atomically: consumes the invite if it is live, then
   * creates the user unless the email is taken (the invite stays consumed:
   * each link answers whether an email exists at most once).
   */
  joinByInvite(inviteId: string, user: UserRecord, now: number): Promise<JoinOutcome>

  // ---- API keys and setup tokens ----
  putApiKey(key: ApiKeyRecord): Promise<void>
  /** Atomic read-modify-write, so a concurrent revoke is never overwritten. Resolves to the new record. */
  updateApiKey(id: string, patch: Partial<Pick<ApiKeyRecord, 'lastUsedAt' | 'revokedAt'>>): Promise<ApiKeyRecord | undefined>
  getApiKey(id: string): ApiKeyRecord | undefined
  listApiKeys(orgId: string): ApiKeyRecord[]
  putSetupToken(token: SetupTokenRecord): Promise<void>
  getSetupToken(id: string): SetupTokenRecord | undefined
  updateSetupToken(id: string, patch: Partial<Pick<SetupTokenRecord, 'revokedAt'>>): Promise<SetupTokenRecord | undefined>
  listSetupTokens(projectId: string): SetupTokenRecord[]
}
