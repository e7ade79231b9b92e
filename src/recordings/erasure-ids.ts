/**
 * Erasure ids that confirm nothing. An id names a request (the same request
 * again answers the same erasure), so it is derived from the project and the
 * subject; a plain hash of them let anyone with the list of ids test
 * candidate user ids offline. The id is an HMAC under a server secret: made
 * at first start in the embedded mode (DATA_DIR/erasure-ids.key, 0600), and
 * derived from the log's secret in the cluster mode, so every node makes the
 * same id for the same request.
 */
import { createHmac, randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from '../config.js'
import { readLogSecret } from '../journal/seal.js'
import type { ErasureSubject } from '../store/store.js'

const KEY_FILE = 'erasure-ids.key'

/** The key erasure ids are made with, this deployment's own. */
export function erasureIdKey(config: Pick<Config, 'dataDir' | 'natsUrl' | 'natsLogSecretFile'>): Buffer {
  if (config.natsUrl) return createHmac('sha256', readLogSecret(config.natsLogSecretFile)).update('svc erasure ids').digest()
  const path = join(config.dataDir, KEY_FILE)
  try {
    writeFileSync(path, randomBytes(32), { mode: 0o600, flag: 'wx' })
  } catch (error) {
    // Made at an earlier start: kept, so that a request sent again answers the same erasure.
    if ((error as { code?: string }).code !== 'EEXIST') throw error
  }
  return readFileSync(path)
}

/** The request's id: the same for the same project and subject, and nothing to anyone without the key. */
export function erasureIdOf(key: Buffer, projectId: string, by: ErasureSubject): string {
  const subject = 'query' in by ? { query: { from: by.query.from, until: by.query.until, page: by.query.page ?? null } } : by
  return `er_${createHmac('sha256', key).update(JSON.stringify([projectId, subject])).digest('hex').slice(0, 24)}`
}
