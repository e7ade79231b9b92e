/**
 * Erasure ids (src/recordings/erasure-ids.ts): the same request gets the same
 * id from the same deployment, and nobody without its key can test a
 * candidate subject against an id.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { erasureIdKey, erasureIdOf } from '../../src/recordings/erasure-ids.js'

t.test('an embedded deployment makes its key once, private to its user, and keeps it', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'erasure-ids-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const config = { dataDir, natsUrl: '', natsLogSecretFile: '' }
  const key = erasureIdKey(config)
  t.equal(key.length, 32)
  t.equal(statSync(join(dataDir, 'erasure-ids.key')).mode & 0o777, 0o600, 'readable by the service\'s user only')
  t.same(erasureIdKey(config), key, 'the same key at the next start')
})

t.test('ids: the same for the same request and key, different under another key, and not the plain hash of the request', async (t) => {
  const key = Buffer.alloc(32, 7)
  const by = { userId: 'ada@shop.test' }
  const id = erasureIdOf(key, 'prj_1', by)
  t.match(id, /^er_[0-9a-f]{24}$/)
  t.equal(erasureIdOf(key, 'prj_1', { userId: 'ada@shop.test' }), id, 'the same request, the same id')
  t.not(erasureIdOf(Buffer.alloc(32, 8), 'prj_1', by), id, 'another deployment, another id')
  t.not(erasureIdOf(key, 'prj_1', { userId: 'bob@shop.test' }), id)
  const guessed = `er_${createHash('sha256').update(JSON.stringify(['prj_1', by])).digest('hex').slice(0, 24)}`
  t.not(id, guessed, 'hashing a candidate user id does not find it')
})
