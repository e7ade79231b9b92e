/**
 * Organisations, users and API keys: the rules shared by the control worker
 * and the admin command. Secrets are minted here and returned once; the store
 * only ever sees their digests.
 */
import { ApiError } from '../errors.js'
import { mintSecret, newId } from './secrets.js'
import type { ApiKeyRecord, CreateOutcome, InviteRecord, OrgAndUser, SetupTokenRecord, Store, UserRecord } from '../store/store.js'

/** Finds or creates the organisation `orgName` and the user `email` in it (the store decides both at once, see AccountStore.ensureOrgAndUser). */
export async function ensureOrgAndUser(store: Store, orgName: string, email: string, now = Date.now()): Promise<OrgAndUser> {
  const found = await store.ensureOrgAndUser({ id: newId('org'), name: orgName, createdAt: now }, { id: newId('usr'), email: email.toLowerCase(), createdAt: now })
  if (found.user.orgId !== found.org.id) {
    throw new ApiError('invalid_request', { error: 'That email belongs to a user of another organisation.', hint: 'Use the organisation the user already belongs to.' })
  }
  return found
}

/** The organisation's owner: the user marked so, or for records older than roles, the first user (who created it). */
export function ownerOf(users: UserRecord[]): UserRecord | undefined {
  return users.find((user) => user.role === 'owner') ?? [...users].sort((a, b) => a.createdAt - b.createdAt)[0]
}

export interface NewApiKey {
  record: ApiKeyRecord
  /** The plaintext key: shown once, never stored. */
  apiKey: string
}

/** The answer to a credential the store refused to write (AccountStore: checked in the transaction that writes it). */
export function refusedCreation(outcome: Exclude<CreateOutcome, 'created'>, what: string): ApiError {
  if (outcome === 'quota_exceeded') return new ApiError('quota_exceeded', { error: `The organisation already holds as many ${what} as its quota allows.` })
  return new ApiError('unauthorized', { error: 'The member this credential belongs to was removed.', hint: 'Ask the organisation\'s owner for a new invite.' })
}

/** `maxLive`: the organisation's quota of unrevoked keys (Config.maxApiKeysPerOrg); none for an operator's key. */
export async function createApiKey(store: Store, orgId: string, userId: string, label: string | undefined, now = Date.now(), maxLive?: number): Promise<NewApiKey> {
  const secret = mintSecret('sk')
  const record: ApiKeyRecord = {
    id: secret.id,
    orgId,
    userId,
    digestHex: secret.digestHex,
    lastFour: secret.token.slice(-4),
    createdAt: now,
  }
  if (label) record.label = label
  const outcome = await store.putApiKey(record, maxLive)
  if (outcome !== 'created') throw refusedCreation(outcome, 'API keys')
  return { record, apiKey: secret.token }
}

/** A setup token lives 30 days (API contract, section 5); an operator may only shorten that. */
export const SETUP_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000

export interface NewSetupToken {
  record: SetupTokenRecord
  /** The plaintext token: shown once, never stored. */
  token: string
}

/** `createdBy`: the member minting it, whose removal revokes it; none when the operator mints it. */
export async function mintSetupToken(store: Store, projectId: string, ttlMs = SETUP_TOKEN_TTL_MS, now = Date.now(), createdBy?: string): Promise<NewSetupToken> {
  if (!(ttlMs > 0) || ttlMs > SETUP_TOKEN_TTL_MS) {
    throw new ApiError('invalid_request', { error: 'A setup token lives at most 30 days.', hint: 'Give a TTL between 1s and 30d.' })
  }
  const secret = mintSecret('st')
  const record: SetupTokenRecord = { id: secret.id, projectId, ...(createdBy ? { createdBy } : {}), digestHex: secret.digestHex, createdAt: now, expiresAt: now + ttlMs }
  const outcome = await store.putSetupToken(record)
  if (outcome === 'holder_gone' && !store.getProject(projectId)) throw new ApiError('not_found', { error: 'No such project.', hint: 'List your projects with POST /cli/projects.list.' })
  if (outcome !== 'created') throw refusedCreation(outcome, 'setup tokens')
  return { record, token: secret.token }
}

/** Revokes every live setup token of a project; resolves to how many. */
export async function revokeSetupTokens(store: Store, projectId: string, now = Date.now()): Promise<number> {
  let revoked = 0
  for (const token of store.listSetupTokens(projectId)) {
    if (token.revokedAt || token.expiresAt <= now) continue
    await store.updateSetupToken(token.id, { revokedAt: now })
    revoked += 1
  }
  return revoked
}

/** A sign-in link lives a day: it is a password-setting credential an operator hands over by hand. */
export const SIGN_IN_LINK_TTL_MS = 24 * 60 * 60 * 1000

export interface SignInLink {
  url: string
  expiresAt: number
}

/**
 * A one-time link that lets an existing user choose a password and sign in to
 * the dashboard: how the owner `admin create-key` made (who has none) gets in,
 * and how an operator lets back in someone who forgot theirs. It is an invite
 * record bound to the user, accepted on the dashboard's invite screen.
 */
export async function mintSignInLink(store: Store, user: UserRecord, directUrl: string, now = Date.now()): Promise<SignInLink> {
  const secret = mintSecret('iv')
  const record: InviteRecord = { id: secret.id, digestHex: secret.digestHex, orgId: user.orgId, invitedBy: user.id, createdAt: now, expiresAt: now + SIGN_IN_LINK_TTL_MS, forUserId: user.id }
  // The store voids the user's older links as it writes this one: only the newest link handed over works.
  const outcome = await store.putInvite(record)
  if (outcome !== 'created') throw refusedCreation(outcome, 'sign-in links')
  return { url: `${directUrl}/app/#/invite/${secret.token}`, expiresAt: record.expiresAt }
}
