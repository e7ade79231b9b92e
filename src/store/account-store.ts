/**
 * The part of the store that keeps organisations, their users and every
 * credential: API keys, setup tokens, dashboard sessions, invites.
 *
 * A new credential is written only in the transaction that finds its user
 * still in the organisation (and under the organisation's quota, when one is
 * given): a removal either commits first, and the credential is refused, or
 * after, and sweeps it. A check made by the caller before would let a
 * credential created while the removal commits survive it.
 * A quota left out (or null, as it reads back from the cluster's log) is no quota.
 */
import type {
  ApiKeyRecord,
  CreateOutcome,
  DashboardSessionRecord,
  InviteRecord,
  JoinOutcome,
  OrgAndUser,
  OrgRecord,
  PurgedCredentials,
  RemovedMember,
  SetupTokenRecord,
  UserRecord,
} from './records.js'

/** Whether `count()` is below the quota `max`; null or undefined (none given) is no quota, and count() is not run. */
export function underQuota(count: () => number, max: number | null | undefined): boolean {
  return max === null || max === undefined || count() < max
}

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
  updateUser(id: string, patch: Partial<Pick<UserRecord, 'passwordHash' | 'lastSignInAt' | 'role'>>): Promise<UserRecord | undefined>
  /**
   * All or nothing: deletes the user, ends their dashboard sessions, revokes the
   * API keys they hold, their unused invite links and the setup tokens they minted.
   * Undefined when there is no such user.
   */
  removeUser(id: string, now: number): Promise<RemovedMember | undefined>
  /**
   * A sign-in link (an invite with forUserId), atomically: consumes it if it is
   * live, sets its user's password, ends every dashboard session of the user and
   * revokes their other live sign-in links (the operator's way back into an
   * account someone else got into). Resolves to the updated user, or undefined
   * when the link is not live or its user was removed.
   */
  claimSignInLink(inviteId: string, passwordHash: string, now: number): Promise<UserRecord | undefined>
  /** Deletes dashboard sessions and setup tokens past their expiry, and invites a week past theirs (invites.list shows them as expired until then). */
  purgeExpiredCredentials(now: number): Promise<PurgedCredentials>

  // ---- dashboard sessions ----
  /** Written only while its user belongs to its organisation and still has the password hash `passwordHash` (the one the caller checked). */
  putDashboardSession(session: DashboardSessionRecord, passwordHash: string): Promise<CreateOutcome>
  getDashboardSession(id: string): DashboardSessionRecord | undefined
  deleteDashboardSession(id: string): Promise<void>
  /** Ends every dashboard session of the user but `keep`; resolves to how many. */
  endDashboardSessions(userId: string, keep?: string): Promise<number>

  // ---- invites ----
  /**
   * Written only while `invitedBy` (and `forUserId`) belong to its organisation, and while
   * the organisation has fewer than `maxOpen` open invites (pending, not sign-in links).
   * A sign-in link revokes its user's older live sign-in links.
   */
  putInvite(invite: InviteRecord, maxOpen?: number | null): Promise<CreateOutcome>
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
  /** Written only while its user belongs to its organisation, and the organisation has fewer than `maxLive` unrevoked keys. */
  putApiKey(key: ApiKeyRecord, maxLive?: number | null): Promise<CreateOutcome>
  /** Atomic read-modify-write, so a concurrent revoke is never overwritten. Resolves to the new record. */
  updateApiKey(id: string, patch: Partial<Pick<ApiKeyRecord, 'lastUsedAt' | 'revokedAt'>>): Promise<ApiKeyRecord | undefined>
  getApiKey(id: string): ApiKeyRecord | undefined
  listApiKeys(orgId: string): ApiKeyRecord[]
  /** Written only while its project exists and `createdBy`, when given, belongs to the project's organisation. */
  putSetupToken(token: SetupTokenRecord): Promise<CreateOutcome>
  getSetupToken(id: string): SetupTokenRecord | undefined
  updateSetupToken(id: string, patch: Partial<Pick<SetupTokenRecord, 'revokedAt'>>): Promise<SetupTokenRecord | undefined>
  listSetupTokens(projectId: string): SetupTokenRecord[]
}
