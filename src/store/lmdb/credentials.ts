/**
 * Credentials over the LMDB tables, inside the caller's write transaction:
 * the checks a new credential must pass where it is written (its user still in
 * the organisation, the organisation under its quota), the sweeps a removal or
 * a recovered account makes, and the housekeeping of expired records.
 */
import type { InviteRecord, PurgedCredentials, UserRecord } from '../records.js'
import { MAX_KEY_PART } from './keys.js'
import type { Key, Tables } from './tables.js'

/** Invites stay listed (as expired) this long past their expiry before the housekeeping deletes them. */
export const INVITE_KEPT_AFTER_EXPIRY_MS = 7 * 24 * 60 * 60 * 1000

const under = (orgOrProject: string) => ({ start: [orgOrProject], end: [orgOrProject, MAX_KEY_PART] })
const second = (key: Key) => (key as [string, string])[1]

/** The user, if they still belong to the organisation. */
export function memberOf(tables: Tables, userId: string, orgId: string): UserRecord | undefined {
  const user = tables.users.get(userId)
  return user?.orgId === orgId ? user : undefined
}

/** A scan of the organisation's keys, revoked ones included: at most a creation's worth of reads per quota. */
export function liveKeyCount(tables: Tables, orgId: string): number {
  let live = 0
  for (const key of tables.apiKeysByOrg.getKeys(under(orgId))) if (!tables.apiKeys.get(second(key))?.revokedAt) live += 1
  return live
}

export const isLive = (invite: InviteRecord, now: number) => !invite.usedAt && !invite.revokedAt && invite.expiresAt > now

/** Pending invites of the organisation; sign-in links are the operator's and not counted. */
export function openInviteCount(tables: Tables, orgId: string, now: number): number {
  let open = 0
  for (const key of tables.invitesByOrg.getKeys(under(orgId))) {
    const invite = tables.invites.get(second(key))
    if (invite && !invite.forUserId && isLive(invite, now)) open += 1
  }
  return open
}

/** Revokes the user's live sign-in links but `keep`; resolves to how many. */
export function revokeSignInLinksInTxn(tables: Tables, user: UserRecord, now: number, keep?: string): number {
  let revoked = 0
  for (const key of tables.invitesByOrg.getKeys(under(user.orgId))) {
    const invite = tables.invites.get(second(key))
    if (!invite || invite.forUserId !== user.id || invite.id === keep || !isLive(invite, now)) continue
    tables.invites.put(invite.id, { ...invite, revokedAt: now })
    revoked += 1
  }
  return revoked
}

/** Revokes the live setup tokens `userId` minted in the organisation's projects. */
export function revokeSetupTokensOfInTxn(tables: Tables, userId: string, orgId: string, now: number): number {
  let revoked = 0
  for (const projectKey of tables.projectsByOrg.getKeys(under(orgId))) {
    for (const tokenKey of tables.setupTokensByProject.getKeys(under(second(projectKey)))) {
      const token = tables.setupTokens.get(second(tokenKey))
      if (!token || token.createdBy !== userId || token.revokedAt || token.expiresAt <= now) continue
      tables.setupTokens.put(token.id, { ...token, revokedAt: now })
      revoked += 1
    }
  }
  return revoked
}

/** Scans: these tables hold only what has not expired yet, which this purge keeps that way. */
export function purgeExpiredInTxn(tables: Tables, now: number): PurgedCredentials {
  // Collected first: removing under an open range iterator could skip entries.
  const sessions: string[] = []
  for (const { key, value } of tables.dashboardSessions.getRange()) if (value.expiresAt <= now) sessions.push(key)
  for (const key of sessions) tables.dashboardSessions.remove(key)
  const invites: InviteRecord[] = []
  for (const { value } of tables.invites.getRange()) if (value.expiresAt + INVITE_KEPT_AFTER_EXPIRY_MS <= now) invites.push(value)
  for (const invite of invites) {
    tables.invites.remove(invite.id)
    tables.invitesByOrg.remove([invite.orgId, invite.id])
  }
  const tokens: { id: string; projectId: string }[] = []
  for (const { value } of tables.setupTokens.getRange()) if (value.expiresAt <= now) tokens.push(value)
  for (const token of tokens) {
    tables.setupTokens.remove(token.id)
    tables.setupTokensByProject.remove([token.projectId, token.id])
  }
  return { sessions: sessions.length, invites: invites.length, setupTokens: tokens.length }
}
