/**
 * Creates organisations, keys and projects directly through the store module,
 * from the test process, beside a running cluster (LMDB is multi-process).
 */
import { createApiKey, ensureOrgAndUser } from '../../src/accounts/credentials.js'
import { newId, newPublicKey } from '../../src/accounts/secrets.js'
import { openStore } from '../../src/store/open.js'
import type { ProjectRecord, Store } from '../../src/store/store.js'

export function storeAt(dataDir: string): Store {
  return openStore({ dataDir, mapSizeBytes: 1024 * 1024 * 1024, durability: 'commit' })
}

export interface Seeded {
  orgId: string
  userId: string
  apiKey: string
  project: ProjectRecord
}

export async function seedProject(dataDir: string, orgName = 'Acme', email = 'owner@acme.test'): Promise<Seeded> {
  const store = storeAt(dataDir)
  const { org, user } = await ensureOrgAndUser(store, orgName, email)
  const { apiKey } = await createApiKey(store, org.id, user.id, 'test')
  const project = await store.createProject({ id: newId('prj'), orgId: org.id, name: `${orgName} site`, domain: null, pathRules: [], publicKey: newPublicKey(), createdAt: Date.now() })
  return { orgId: org.id, userId: user.id, apiKey, project }
}
