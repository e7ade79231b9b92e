/** API keys of the organisation (extension): list masked, create (secret shown once), revoke. */
import { createApiKey } from '../../accounts/credentials.js'
import { ApiError } from '../../errors.js'
import { keyCreatedAnswer, keyListAnswer, keysCreateBody, keysRevokeBody, okAnswer } from '../../schemas/control.js'
import { maskSecret } from '../../accounts/secrets.js'
import type { Store } from '../../store/store.js'
import type { ApiKeyAuth } from '../auth.js'
import { operation, type Operation } from '../router.js'

export function keyOperations(store: Store): Operation<ApiKeyAuth>[] {
  return [
    operation({
      operationId: 'listApiKeys',
      method: 'POST',
      route: '/cli/keys.list',
      credential: 'apiKey',
      summary: 'The organisation\'s live API keys, masked.',
      response: keyListAnswer,
      handle: ({ auth }) => ({
        keys: store
          .listApiKeys(auth.orgId)
          .filter((k) => !k.revokedAt)
          .sort((a, b) => a.createdAt - b.createdAt)
          .map((k) => ({
            keyId: k.id,
            ...(k.label ? { label: k.label } : {}),
            createdAt: k.createdAt,
            lastUsedAt: k.lastUsedAt ?? null,
            masked: maskSecret('sk', k.lastFour),
          })),
      }),
    }),
    operation({
      operationId: 'createApiKey',
      method: 'POST',
      route: '/cli/keys.create',
      credential: 'apiKey',
      summary: 'Creates an API key for the caller\'s user. The secret is in this answer only.',
      body: keysCreateBody,
      response: keyCreatedAnswer,
      errors: ['invalid_request'],
      async handle({ auth, body }) {
        const { record, apiKey } = await createApiKey(store, auth.orgId, auth.userId, (body as { label?: string }).label)
        return { keyId: record.id, apiKey, ...(record.label ? { label: record.label } : {}), createdAt: record.createdAt }
      },
    }),
    operation({
      operationId: 'revokeApiKey',
      method: 'POST',
      route: '/cli/keys.revoke',
      credential: 'apiKey',
      summary: 'Revokes an API key of the organisation, effective on the very next request.',
      body: keysRevokeBody,
      response: okAnswer,
      errors: ['invalid_request', 'not_found'],
      async handle({ auth, body }) {
        const keyId = (body as { keyId: string }).keyId
        const key = store.getApiKey(keyId)
        if (!key || key.orgId !== auth.orgId || key.revokedAt) throw new ApiError('not_found', { error: 'No such API key.', hint: 'List keys with POST /cli/keys.list.' })
        await store.updateApiKey(keyId, { revokedAt: Date.now() })
        return { ok: true }
      },
    }),
  ]
}
