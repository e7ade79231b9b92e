/**
 * Organisations, users and their credentials in the LMDB store: small
 * tables in the main environment, each change one write transaction.
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
} from '../records.js'
import { LmdbEnvironment } from './environment.js'
import { underQuota } from '../account-store.js'
import { isLive, liveKeyCount, memberOf, openInviteCount, purgeExpiredInTxn, revokeSignInLinksInTxn } from './credentials.js'
import { endSessionsInTxn, joinInTxn, removeUserInTxn, usersOf } from './members.js'

export abstract class LmdbAccounts extends LmdbEnvironment {
  findOrgByName(name: string): OrgRecord | undefined {
    const id = this.tables.orgsByName.get(name)
    return id ? this.tables.orgs.get(id) : undefined
  }

  getOrg(id: string): OrgRecord | undefined {
    return this.tables.orgs.get(id)
  }

  async putOrg(org: OrgRecord): Promise<void> {
    await this.settle(
      this.write(() => {
        this.tables.orgs.put(org.id, org)
        this.tables.orgsByName.put(org.name, org.id)
      }),
    )
  }

  findUserByEmail(email: string): UserRecord | undefined {
    const id = this.tables.usersByEmail.get(email.toLowerCase())
    return id ? this.tables.users.get(id) : undefined
  }

  getUser(id: string): UserRecord | undefined {
    return this.tables.users.get(id)
  }

  async putUser(user: UserRecord): Promise<void> {
    await this.settle(
      this.write(() => {
        this.tables.users.put(user.id, user)
        this.tables.usersByEmail.put(user.email.toLowerCase(), user.id)
      }),
    )
  }

  countUsers(): number {
    return this.tables.users.getKeysCount()
  }

  async ensureOrgAndUser(candidate: OrgRecord, newUser: Omit<UserRecord, 'orgId' | 'role'>): Promise<OrgAndUser> {
    let found!: OrgAndUser
    await this.settle(
      this.write(() => {
        const orgId = this.tables.orgsByName.get(candidate.name)
        const org = orgId ? this.tables.orgs.get(orgId)! : candidate
        if (!orgId) {
          this.tables.orgs.put(org.id, org)
          this.tables.orgsByName.put(org.name, org.id)
        }
        const userId = this.tables.usersByEmail.get(newUser.email.toLowerCase())
        let user = userId ? this.tables.users.get(userId) : undefined
        if (!user) {
          user = { ...newUser, orgId: org.id, role: usersOf(this.tables, org.id).length === 0 ? 'owner' : 'member' }
          this.tables.users.put(user.id, user)
          this.tables.usersByEmail.put(user.email.toLowerCase(), user.id)
        }
        found = { org, user }
      }),
    )
    return found
  }

  async createFirstOwner(org: OrgRecord, user: UserRecord): Promise<boolean> {
    let created = false
    await this.settle(
      this.write(() => {
        if (this.tables.users.getKeysCount() > 0) return
        this.tables.orgs.put(org.id, org)
        this.tables.orgsByName.put(org.name, org.id)
        this.tables.users.put(user.id, user)
        this.tables.usersByEmail.put(user.email.toLowerCase(), user.id)
        created = true
      }),
    )
    return created
  }

  // ---- members (members.ts) ----
  listUsers(orgId: string): UserRecord[] {
    return usersOf(this.tables, orgId)
  }

  updateUser(id: string, patch: Partial<Pick<UserRecord, 'passwordHash' | 'lastSignInAt' | 'role'>>): Promise<UserRecord | undefined> {
    return this.update<UserRecord>(this.tables.users, id, patch)
  }

  async removeUser(id: string, now: number): Promise<RemovedMember | undefined> {
    let removed: RemovedMember | undefined
    await this.settle(this.write(() => void (removed = removeUserInTxn(this.tables, id, now))))
    return removed
  }

  async endDashboardSessions(userId: string, keep?: string): Promise<number> {
    let ended = 0
    await this.settle(this.write(() => void (ended = endSessionsInTxn(this.tables, userId, keep))))
    return ended
  }

  async joinByInvite(inviteId: string, user: UserRecord, now: number): Promise<JoinOutcome> {
    let outcome: JoinOutcome = 'invite_gone'
    await this.settle(this.write(() => void (outcome = joinInTxn(this.tables, inviteId, user, now))))
    return outcome
  }

  async claimSignInLink(inviteId: string, passwordHash: string, now: number): Promise<UserRecord | undefined> {
    let claimed: UserRecord | undefined
    await this.settle(
      this.write(() => {
        const invite = this.tables.invites.get(inviteId)
        const user = invite?.forUserId ? memberOf(this.tables, invite.forUserId, invite.orgId) : undefined
        if (!invite || !user || !isLive(invite, now)) return
        this.tables.invites.put(inviteId, { ...invite, usedAt: now })
        claimed = { ...user, passwordHash }
        this.tables.users.put(user.id, claimed)
        endSessionsInTxn(this.tables, user.id)
        revokeSignInLinksInTxn(this.tables, user, now)
      }),
    )
    return claimed
  }

  async purgeExpiredCredentials(now: number): Promise<PurgedCredentials> {
    let purged: PurgedCredentials = { sessions: 0, invites: 0, setupTokens: 0 }
    await this.settle(this.write(() => void (purged = purgeExpiredInTxn(this.tables, now))))
    return purged
  }

  /** Runs `write` in a transaction if `check` (in the same transaction) says what to do is 'created'. */
  protected async createIf(check: () => CreateOutcome, write: () => void): Promise<CreateOutcome> {
    let outcome: CreateOutcome = 'holder_gone'
    await this.settle(
      this.write(() => {
        outcome = check()
        if (outcome === 'created') write()
      }),
    )
    return outcome
  }

  putDashboardSession(session: DashboardSessionRecord, passwordHash: string): Promise<CreateOutcome> {
    return this.createIf(
      () => (memberOf(this.tables, session.userId, session.orgId)?.passwordHash === passwordHash ? 'created' : 'holder_gone'),
      () => void this.tables.dashboardSessions.put(session.id, session),
    )
  }

  getDashboardSession(id: string): DashboardSessionRecord | undefined {
    return this.tables.dashboardSessions.get(id)
  }

  async deleteDashboardSession(id: string): Promise<void> {
    await this.settle(this.tables.dashboardSessions.remove(id))
  }

  putInvite(invite: InviteRecord, maxOpen?: number | null): Promise<CreateOutcome> {
    return this.createIf(
      () => {
        if (!memberOf(this.tables, invite.invitedBy, invite.orgId)) return 'holder_gone'
        if (invite.forUserId) return memberOf(this.tables, invite.forUserId, invite.orgId) ? 'created' : 'holder_gone'
        return underQuota(() => openInviteCount(this.tables, invite.orgId, invite.createdAt), maxOpen) ? 'created' : 'quota_exceeded'
      },
      () => {
        // A new sign-in link voids the ones handed out before it (not itself: a log entry may be applied twice).
        if (invite.forUserId) revokeSignInLinksInTxn(this.tables, memberOf(this.tables, invite.forUserId, invite.orgId)!, invite.createdAt, invite.id)
        this.tables.invites.put(invite.id, invite)
        this.tables.invitesByOrg.put([invite.orgId, invite.id], true)
      },
    )
  }

  listInvites(orgId: string): InviteRecord[] {
    return this.idsUnder(this.tables.invitesByOrg, orgId)
      .map((id) => this.tables.invites.get(id))
      .filter((invite): invite is InviteRecord => invite !== undefined)
  }

  async revokeInvite(id: string, now: number): Promise<InviteRecord | undefined> {
    let after: InviteRecord | undefined
    await this.settle(
      this.write(() => {
        const invite = this.tables.invites.get(id)
        after = invite && !invite.usedAt && !invite.revokedAt ? { ...invite, revokedAt: now } : invite
        if (after && after !== invite) this.tables.invites.put(id, after)
      }),
    )
    return after
  }

  getInvite(id: string): InviteRecord | undefined {
    return this.tables.invites.get(id)
  }

  async consumeInvite(id: string, now: number): Promise<InviteRecord | undefined> {
    let consumed: InviteRecord | undefined
    await this.settle(
      this.write(() => {
        const invite = this.tables.invites.get(id)
        if (!invite || invite.usedAt || invite.revokedAt || invite.expiresAt <= now) return
        consumed = { ...invite, usedAt: now }
        this.tables.invites.put(id, consumed)
      }),
    )
    return consumed
  }

  putApiKey(key: ApiKeyRecord, maxLive?: number | null): Promise<CreateOutcome> {
    return this.createIf(
      () => {
        if (!memberOf(this.tables, key.userId, key.orgId)) return 'holder_gone'
        return underQuota(() => liveKeyCount(this.tables, key.orgId), maxLive) ? 'created' : 'quota_exceeded'
      },
      () => {
        this.tables.apiKeys.put(key.id, key)
        this.tables.apiKeysByOrg.put([key.orgId, key.id], true)
      },
    )
  }

  updateApiKey(id: string, patch: Partial<Pick<ApiKeyRecord, 'lastUsedAt' | 'revokedAt'>>): Promise<ApiKeyRecord | undefined> {
    return this.update<ApiKeyRecord>(this.tables.apiKeys, id, patch)
  }

  getApiKey(id: string): ApiKeyRecord | undefined {
    return this.tables.apiKeys.get(id)
  }

  listApiKeys(orgId: string): ApiKeyRecord[] {
    return this.idsUnder(this.tables.apiKeysByOrg, orgId)
      .map((id) => this.tables.apiKeys.get(id))
      .filter((k): k is ApiKeyRecord => k !== undefined)
  }

  putSetupToken(token: SetupTokenRecord): Promise<CreateOutcome> {
    return this.createIf(
      () => {
        const project = this.tables.projects.get(token.projectId)
        if (!project) return 'holder_gone'
        return token.createdBy === undefined || memberOf(this.tables, token.createdBy, project.orgId) ? 'created' : 'holder_gone'
      },
      () => {
        this.tables.setupTokens.put(token.id, token)
        this.tables.setupTokensByProject.put([token.projectId, token.id], true)
      },
    )
  }

  getSetupToken(id: string): SetupTokenRecord | undefined {
    return this.tables.setupTokens.get(id)
  }

  updateSetupToken(id: string, patch: Partial<Pick<SetupTokenRecord, 'revokedAt'>>): Promise<SetupTokenRecord | undefined> {
    return this.update<SetupTokenRecord>(this.tables.setupTokens, id, patch)
  }

  listSetupTokens(projectId: string): SetupTokenRecord[] {
    return this.idsUnder(this.tables.setupTokensByProject, projectId)
      .map((id) => this.tables.setupTokens.get(id))
      .filter((t): t is SetupTokenRecord => t !== undefined)
  }

}
