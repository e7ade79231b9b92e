/**
 * Members of an organisation over the LMDB tables: each function runs inside
 * the caller's write transaction, so a removal or a join is all or nothing.
 */
import type { JoinOutcome, RemovedMember, UserRecord } from '../records.js'
import { revokeSetupTokensOfInTxn } from './credentials.js'
import { MAX_KEY_PART } from './keys.js'
import type { Tables } from './tables.js'

/** A scan: organisations have tens of users, and listing them is rare. */
export function usersOf(tables: Tables, orgId: string): UserRecord[] {
  const users: UserRecord[] = []
  for (const { value } of tables.users.getRange()) if (value.orgId === orgId) users.push(value)
  return users.sort((a, b) => a.createdAt - b.createdAt)
}

/** A scan too: sessions expire after 7 days, so the table stays small. */
export function endSessionsInTxn(tables: Tables, userId: string, keep?: string): number {
  // Collected first: removing under an open range iterator could skip entries.
  const ended: string[] = []
  for (const { key, value } of tables.dashboardSessions.getRange()) if (value.userId === userId && key !== keep) ended.push(key)
  for (const key of ended) tables.dashboardSessions.remove(key)
  return ended.length
}

export function removeUserInTxn(tables: Tables, userId: string, now: number): RemovedMember | undefined {
  const user = tables.users.get(userId)
  if (!user) return undefined
  tables.users.remove(userId)
  if (tables.usersByEmail.get(user.email) === userId) tables.usersByEmail.remove(user.email)
  const sessionsEnded = endSessionsInTxn(tables, userId)
  let keysRevoked = 0
  for (const key of tables.apiKeysByOrg.getKeys({ start: [user.orgId], end: [user.orgId, MAX_KEY_PART] })) {
    const record = tables.apiKeys.get((key as [string, string])[1])
    if (!record || record.userId !== userId || record.revokedAt) continue
    tables.apiKeys.put(record.id, { ...record, revokedAt: now })
    keysRevoked += 1
  }
  let invitesRevoked = 0
  for (const key of tables.invitesByOrg.getKeys({ start: [user.orgId], end: [user.orgId, MAX_KEY_PART] })) {
    const invite = tables.invites.get((key as [string, string])[1])
    if (!invite || invite.invitedBy !== userId || invite.usedAt || invite.revokedAt || invite.expiresAt <= now) continue
    tables.invites.put(invite.id, { ...invite, revokedAt: now })
    invitesRevoked += 1
  }
  const setupTokensRevoked = revokeSetupTokensOfInTxn(tables, userId, user.orgId, now)
  return { user, sessionsEnded, keysRevoked, invitesRevoked, setupTokensRevoked }
}

export function joinInTxn(tables: Tables, inviteId: string, user: UserRecord, now: number): JoinOutcome {
  const invite = tables.invites.get(inviteId)
  if (!invite || invite.usedAt || invite.revokedAt || invite.expiresAt <= now) return 'invite_gone'
  tables.invites.put(inviteId, { ...invite, usedAt: now })
  const email = user.email.toLowerCase()
  if (tables.usersByEmail.get(email)) return 'email_taken'
  tables.users.put(user.id, { ...user, orgId: invite.orgId, invitedBy: invite.invitedBy })
  tables.usersByEmail.put(email, user.id)
  return 'joined'
}
