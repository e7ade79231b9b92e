/** Organisations, users and credentials in memory. Each method runs to its end before another starts, which makes it atomic. */
import type { AccountStore } from '../account-store.js'
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
} from '../records.js'
import type { MemoryData } from './data.js'

const copy = <T>(value: T): T => structuredClone(value)
const live = (invite: InviteRecord, now: number) => !invite.usedAt && !invite.revokedAt && invite.expiresAt > now

export abstract class MemoryAccounts implements AccountStore {
  constructor(protected readonly data: MemoryData) {}

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

  async updateUser(id: string, patch: Partial<Pick<UserRecord, 'passwordHash' | 'lastSignInAt'>>): Promise<UserRecord | undefined> {
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
    return { user: copy(user), sessionsEnded, keysRevoked, invitesRevoked }
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

  async putDashboardSession(session: DashboardSessionRecord): Promise<void> {
    this.data.dashboardSessions.set(session.id, copy(session))
  }

  getDashboardSession(id: string): DashboardSessionRecord | undefined {
    return copy(this.data.dashboardSessions.get(id))
  }

  async deleteDashboardSession(id: string): Promise<void> {
    this.data.dashboardSessions.delete(id)
  }

  async putInvite(invite: InviteRecord): Promise<void> {
    this.data.invites.set(invite.id, copy(invite))
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

  async putApiKey(key: ApiKeyRecord): Promise<void> {
    this.data.apiKeys.set(key.id, copy(key))
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

  async putSetupToken(token: SetupTokenRecord): Promise<void> {
    this.data.setupTokens.set(token.id, copy(token))
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
