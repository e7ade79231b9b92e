/**
 * Creates organisations, keys and projects directly through the store module,
 * from the test process, beside a running cluster (LMDB is multi-process).
 * Beside a node of the cluster mode the changes go through its log instead,
 * and reads wait for its read model (log-store.ts).
 */
import { createApiKey, ensureOrgAndUser } from '../../src/accounts/credentials.js'
import { newId, newPublicKey } from '../../src/accounts/secrets.js'
import { openStore } from '../../src/store/open.js'
import type { ProjectRecord, Store } from '../../src/store/store.js'
import { logStore } from './log-store.js'

export function storeAt(dataDir: string): Store {
  return logStore(openStore({ dataDir, mapSizeBytes: 1024 * 1024 * 1024, durability: 'commit' }), dataDir)
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
  const id = newId('prj')
  // Read back: through the log (cluster mode) a change answers nothing.
  await store.createProject({ id, orgId: org.id, name: `${orgName} site`, domain: null, pathRules: [], publicKey: newPublicKey(), createdAt: Date.now() })
  const project = store.getProject(id)!
  return { orgId: org.id, userId: user.id, apiKey, project }
}
