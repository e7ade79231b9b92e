/** Organisations, users and credentials in memory. Each method runs to its end before another starts, which makes it atomic. */
import { underQuota, type AccountStore } from '../account-store.js'
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
import { MemoryErasure } from './erasure.js'

const copy = <T>(value: T): T => structuredClone(value)
const live = (invite: InviteRecord, now: number) => !invite.usedAt && !invite.revokedAt && invite.expiresAt > now
/** Invites stay listed (as expired) a week past their expiry, as in the LMDB store. */
const INVITE_KEPT_AFTER_EXPIRY_MS = 7 * 24 * 60 * 60 * 1000

export abstract class MemoryAccounts extends MemoryErasure implements AccountStore {

  findOrgByName(name: string): OrgRecord | undefined {
    for (const org of this.data.orgs.values()) if (org.name === name) return copy(org)
    return undefined
  }

  getOrg(id: string): OrgRecord | undefined {
    return copy(this.data.orgs.get(id))
  }

  async putOrg(org: OrgRecord): Promise<void> {
    this.data.orgs.set(org.id, copy(org))
  }

  findUserByEmail(email: string): UserRecord | undefined {
    const wanted = email.toLowerCase()
    for (const user of this.data.users.values()) if (user.email.toLowerCase() === wanted) return copy(user)
    return undefined
  }

  getUser(id: string): UserRecord | undefined {
    return copy(this.data.users.get(id))
  }

  async putUser(user: UserRecord): Promise<void> {
    this.data.users.set(user.id, copy(user))
  }

  countUsers(): number {
    return this.data.users.size
  }

  async ensureOrgAndUser(candidate: OrgRecord, newUser: Omit<UserRecord, 'orgId' | 'role'>): Promise<OrgAndUser> {
    const org = this.findOrgByName(candidate.name) ?? candidate
    if (org === candidate) this.data.orgs.set(org.id, copy(org))
    let user = this.findUserByEmail(newUser.email)
    if (!user) {
      user = { ...newUser, orgId: org.id, role: this.listUsers(org.id).length === 0 ? 'owner' : 'member' }
      this.data.users.set(user.id, copy(user))
    }
    return { org: copy(org), user: copy(user) }
  }

  async createFirstOwner(org: OrgRecord, user: UserRecord): Promise<boolean> {
    if (this.data.users.size > 0) return false
    this.data.orgs.set(org.id, copy(org))
    this.data.users.set(user.id, copy(user))
    return true
  }

  listUsers(orgId: string): UserRecord[] {
    return [...this.data.users.values()].filter((u) => u.orgId === orgId).sort((a, b) => a.createdAt - b.createdAt).map(copy)
  }

  async updateUser(id: string, patch: Partial<Pick<UserRecord, 'passwordHash' | 'lastSignInAt' | 'role'>>): Promise<UserRecord | undefined> {
    return this.patch(this.data.users, id, patch)
  }

  async removeUser(id: string, now: number): Promise<RemovedMember | undefined> {
    const user = this.data.users.get(id)
    if (!user) return undefined
    this.data.users.delete(id)
    const sessionsEnded = this.endSessions(id)
    let keysRevoked = 0
    for (const key of this.data.apiKeys.values()) {
      if (key.orgId !== user.orgId || key.userId !== id || key.revokedAt) continue
      key.revokedAt = now
      keysRevoked += 1
    }
    let invitesRevoked = 0
    for (const invite of this.data.invites.values()) {
      if (invite.orgId !== user.orgId || invite.invitedBy !== id || !live(invite, now)) continue
      invite.revokedAt = now
      invitesRevoked += 1
    }
    let setupTokensRevoked = 0
    for (const token of this.data.setupTokens.values()) {
      if (token.createdBy !== id || token.revokedAt || token.expiresAt <= now || this.data.projects.get(token.projectId)?.orgId !== user.orgId) continue
      token.revokedAt = now
      setupTokensRevoked += 1
    }
    return { user: copy(user), sessionsEnded, keysRevoked, invitesRevoked, setupTokensRevoked }
  }

  async claimSignInLink(inviteId: string, passwordHash: string, now: number): Promise<UserRecord | undefined> {
    const invite = this.data.invites.get(inviteId)
    const user = invite?.forUserId ? this.memberOf(invite.forUserId, invite.orgId) : undefined
    if (!invite || !user || !live(invite, now)) return undefined
    invite.usedAt = now
    user.passwordHash = passwordHash
    this.endSessions(user.id)
    this.revokeSignInLinks(user.id, now)
    return copy(user)
  }

  async purgeExpiredCredentials(now: number): Promise<PurgedCredentials> {
    const purged: PurgedCredentials = { sessions: 0, invites: 0, setupTokens: 0 }
    for (const [id, session] of this.data.dashboardSessions) if (session.expiresAt <= now && this.data.dashboardSessions.delete(id)) purged.sessions += 1
    for (const [id, invite] of this.data.invites) if (invite.expiresAt + INVITE_KEPT_AFTER_EXPIRY_MS <= now && this.data.invites.delete(id)) purged.invites += 1
    for (const [id, token] of this.data.setupTokens) if (token.expiresAt <= now && this.data.setupTokens.delete(id)) purged.setupTokens += 1
    return purged
  }

  async endDashboardSessions(userId: string, keep?: string): Promise<number> {
    return this.endSessions(userId, keep)
  }

  async joinByInvite(inviteId: string, user: UserRecord, now: number): Promise<JoinOutcome> {
    const invite = this.data.invites.get(inviteId)
    if (!invite || !live(invite, now)) return 'invite_gone'
    invite.usedAt = now
    if (this.findUserByEmail(user.email)) return 'email_taken'
    this.data.users.set(user.id, { ...copy(user), orgId: invite.orgId, invitedBy: invite.invitedBy })
    return 'joined'
  }

  async putDashboardSession(session: DashboardSessionRecord, passwordHash: string): Promise<CreateOutcome> {
    if (this.memberOf(session.userId, session.orgId)?.passwordHash !== passwordHash) return 'holder_gone'
    this.data.dashboardSessions.set(session.id, copy(session))
    return 'created'
  }

  getDashboardSession(id: string): DashboardSessionRecord | undefined {
    return copy(this.data.dashboardSessions.get(id))
  }

  async deleteDashboardSession(id: string): Promise<void> {
    this.data.dashboardSessions.delete(id)
  }

  async putInvite(invite: InviteRecord, maxOpen?: number | null): Promise<CreateOutcome> {
    if (!this.memberOf(invite.invitedBy, invite.orgId)) return 'holder_gone'
    if (invite.forUserId) {
      if (!this.memberOf(invite.forUserId, invite.orgId)) return 'holder_gone'
      // A new sign-in link voids the ones handed out before it.
      this.revokeSignInLinks(invite.forUserId, invite.createdAt, invite.id)
    } else {
      const open = () => [...this.data.invites.values()].filter((i) => i.orgId === invite.orgId && !i.forUserId && live(i, invite.createdAt)).length
      if (!underQuota(open, maxOpen)) return 'quota_exceeded'
    }
    this.data.invites.set(invite.id, copy(invite))
    return 'created'
  }

  getInvite(id: string): InviteRecord | undefined {
    return copy(this.data.invites.get(id))
  }

  async consumeInvite(id: string, now: number): Promise<InviteRecord | undefined> {
    const invite = this.data.invites.get(id)
    if (!invite || !live(invite, now)) return undefined
    invite.usedAt = now
    return copy(invite)
  }

  listInvites(orgId: string): InviteRecord[] {
    return [...this.data.invites.values()].filter((i) => i.orgId === orgId).map(copy)
  }

  async revokeInvite(id: string, now: number): Promise<InviteRecord | undefined> {
    const invite = this.data.invites.get(id)
    if (invite && !invite.usedAt && !invite.revokedAt) invite.revokedAt = now
    return copy(invite)
  }

  async putApiKey(key: ApiKeyRecord, maxLive?: number | null): Promise<CreateOutcome> {
    if (!this.memberOf(key.userId, key.orgId)) return 'holder_gone'
    const liveKeys = () => [...this.data.apiKeys.values()].filter((k) => k.orgId === key.orgId && !k.revokedAt).length
    if (!underQuota(liveKeys, maxLive)) return 'quota_exceeded'
    this.data.apiKeys.set(key.id, copy(key))
    return 'created'
  }

  async updateApiKey(id: string, patch: Partial<Pick<ApiKeyRecord, 'lastUsedAt' | 'revokedAt'>>): Promise<ApiKeyRecord | undefined> {
    return this.patch(this.data.apiKeys, id, patch)
  }

  getApiKey(id: string): ApiKeyRecord | undefined {
    return copy(this.data.apiKeys.get(id))
  }

  listApiKeys(orgId: string): ApiKeyRecord[] {
    return [...this.data.apiKeys.values()].filter((k) => k.orgId === orgId).map(copy)
  }

  async putSetupToken(token: SetupTokenRecord): Promise<CreateOutcome> {
    const project = this.data.projects.get(token.projectId)
    if (!project || (token.createdBy !== undefined && !this.memberOf(token.createdBy, project.orgId))) return 'holder_gone'
    this.data.setupTokens.set(token.id, copy(token))
    return 'created'
  }

  getSetupToken(id: string): SetupTokenRecord | undefined {
    return copy(this.data.setupTokens.get(id))
  }

  async updateSetupToken(id: string, patch: Partial<Pick<SetupTokenRecord, 'revokedAt'>>): Promise<SetupTokenRecord | undefined> {
    return this.patch(this.data.setupTokens, id, patch)
  }

  listSetupTokens(projectId: string): SetupTokenRecord[] {
    return [...this.data.setupTokens.values()].filter((s) => s.projectId === projectId).map(copy)
  }

  protected patch<V extends object>(table: Map<string, V>, id: string, patch: NoInfer<Partial<V>>): V | undefined {
    const current = table.get(id)
    if (!current) return undefined
    const updated = { ...current, ...copy(patch) }
    table.set(id, updated)
    return copy(updated)
  }

  /** The stored user (not a copy), if they still belong to the organisation. */
  private memberOf(userId: string, orgId: string): UserRecord | undefined {
    const user = this.data.users.get(userId)
    return user?.orgId === orgId ? user : undefined
  }

  private revokeSignInLinks(userId: string, now: number, keep?: string): void {
    for (const invite of this.data.invites.values()) if (invite.forUserId === userId && invite.id !== keep && live(invite, now)) invite.revokedAt = now
  }

  private endSessions(userId: string, keep?: string): number {
    let ended = 0
    for (const [id, session] of this.data.dashboardSessions) {
      if (session.userId !== userId || id === keep) continue
      this.data.dashboardSessions.delete(id)
      ended += 1
    }
    return ended
  }
}
