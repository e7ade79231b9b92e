/**
 * Organisations, users and API keys: the rules shared by the control worker
 * and the admin command. Secrets are minted here and returned once; the store
 * only ever sees their digests.
 */
import { ApiError } from './errors.js'
import { mintSecret, newId } from './secrets.js'
import type { ApiKeyRecord, OrgRecord, Store, UserRecord } from './store/store.js'

export interface OrgAndUser {
  org: OrgRecord
  user: UserRecord
}

/** Finds or creates the organisation `orgName` and the user `email` in it. */
export async function ensureOrgAndUser(store: Store, orgName: string, email: string, now = Date.now()): Promise<OrgAndUser> {
  let org = store.findOrgByName(orgName)
  if (!org) {
    org = { id: newId('org'), name: orgName, createdAt: now }
    await store.putOrg(org)
  }
  let user = store.findUserByEmail(email)
  if (user && user.orgId !== org.id) {
    throw new ApiError('invalid_request', { error: 'That email belongs to a user of another organisation.', hint: 'Use the organisation the user already belongs to.' })
  }
  if (!user) {
    user = { id: newId('usr'), orgId: org.id, email: email.toLowerCase(), createdAt: now }
    await store.putUser(user)
  }
  return { org, user }
}

export interface NewApiKey {
  record: ApiKeyRecord
  /** The plaintext key: shown once, never stored. */
  apiKey: string
}

export async function createApiKey(store: Store, orgId: string, userId: string, label: string | undefined, now = Date.now()): Promise<NewApiKey> {
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
  await store.putApiKey(record)
  return { record, apiKey: secret.token }
}
