/**
 * API keys of the organisation (extension): list masked, create (secret shown
 * once), revoke. Admins and the owner see every key, a viewer only their own;
 * a member revokes their own, the owner anyone's (a member cutting off the
 * owner's CLI is not theirs to do).
 */
import { createApiKey } from '../../accounts/credentials.js'
import { ApiError } from '../../errors.js'
import { keyCreatedAnswer, keyListAnswer, keysCreateBody, keysRevokeBody, okAnswer } from '../../schemas/control.js'
import { maskSecret } from '../../accounts/secrets.js'
import type { Store } from '../../store/store.js'
import type { ApiKeyAuth } from '../auth.js'
import { operation, type Operation } from '../router.js'

/** `maxLive`: the organisation's quota of unrevoked keys (Config.maxApiKeysPerOrg). */
export function keyOperations(store: Store, maxLive?: number): Operation<ApiKeyAuth>[] {
  const isOwner = (auth: ApiKeyAuth) => auth.role === 'owner'
  return [
    operation({
      operationId: 'listApiKeys',
      method: 'POST',
      route: '/cli/keys.list',
      credential: 'apiKey',
      minRole: 'viewer',
      summary: 'The organisation\'s live API keys, masked.',
      response: keyListAnswer,
      handle: ({ auth }) => {
        const owner = isOwner(auth)
        return {
          keys: store
            .listApiKeys(auth.orgId)
            // A viewer sees only their own keys (issue 34): who holds which key is not for a read-only role.
            .filter((k) => !k.revokedAt && (auth.role !== 'viewer' || k.userId === auth.userId))
            .sort((a, b) => a.createdAt - b.createdAt)
            .map((k) => ({
              keyId: k.id,
              ...(k.label ? { label: k.label } : {}),
              createdAt: k.createdAt,
              lastUsedAt: k.lastUsedAt ?? null,
              masked: maskSecret('sk', k.lastFour),
              revocable: owner || k.userId === auth.userId,
            })),
        }
      },
    }),
    operation({
      operationId: 'createApiKey',
      method: 'POST',
      writes: true,
      route: '/cli/keys.create',
      credential: 'apiKey',
      minRole: 'admin',
      audit: (_ctx, answer) => ({ action: 'key.create', target: answer.keyId }),
      summary: 'Creates an API key for the caller\'s user. The secret is in this answer only. An organisation holds at most MAX_API_KEYS_PER_ORG unrevoked keys (1,000 unless configured).',
      body: keysCreateBody,
      response: keyCreatedAnswer,
      errors: ['invalid_request', 'quota_exceeded'],
      async handle({ auth, body }) {
        const { record, apiKey } = await createApiKey(store, auth.orgId, auth.userId, (body as { label?: string }).label, Date.now(), maxLive)
        return { keyId: record.id, apiKey, ...(record.label ? { label: record.label } : {}), createdAt: record.createdAt }
      },
    }),
    operation({
      operationId: 'revokeApiKey',
      method: 'POST',
      writes: true,
      route: '/cli/keys.revoke',
      credential: 'apiKey',
      minRole: 'viewer',
      audit: ({ body }) => ({ action: 'key.revoke', target: (body as { keyId: string }).keyId }),
      summary: 'Revokes an API key of the organisation, effective on the very next request: one\'s own, or, for the owner, anyone\'s.',
      body: keysRevokeBody,
      response: okAnswer,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body }) {
        const keyId = (body as { keyId: string }).keyId
        const key = store.getApiKey(keyId)
        if (!key || key.orgId !== auth.orgId || key.revokedAt) throw new ApiError('not_found', { error: 'No such API key.', hint: 'List keys with POST /cli/keys.list.' })
        if (key.userId !== auth.userId && !isOwner(auth)) {
          throw new ApiError('unauthorized', { error: 'A member revokes only their own API keys.', hint: 'Ask the organisation\'s owner (members.list shows who) to revoke this one.' })
        }
        await store.updateApiKey(keyId, { revokedAt: Date.now() })
        return { ok: true }
      },
    }),
  ]
}
