/**
 * The store never throws on a key too long for LMDB (issue 14: a 5,000-character
 * public key threw RangeError from lmdb-js and ended a front): every point read
 * with such a key answers "absent".
 */
import t from 'tap'
import { keyTooLong, MAX_READ_KEY_BYTES } from '../../src/store/lmdb/keys.js'
import { tempLmdbStore } from '../helpers/store.js'

t.test('keyTooLong counts UTF-8 bytes of every part against the limit', async (t) => {
  t.notOk(keyTooLong('a'.repeat(MAX_READ_KEY_BYTES - 1)))
  t.ok(keyTooLong('a'.repeat(MAX_READ_KEY_BYTES + 1)))
  t.ok(keyTooLong('é'.repeat(MAX_READ_KEY_BYTES / 2 + 1)), 'two bytes a character')
  t.notOk(keyTooLong(['prj_1', 's'.repeat(256), 42]))
  t.ok(keyTooLong(['prj_1', 's'.repeat(1000), 'v'.repeat(1000)]), 'parts add up')
})

t.test('every lookup by a client-supplied id answers absent for a 5,000-character id, and stored records still read', async (t) => {
  const store = tempLmdbStore(t)
  const long = `svc_pk_${'a'.repeat(5000)}`
  const project = await store.createProject({ id: 'prj_1', orgId: 'org_1', name: 'Acme', domain: null, pathRules: [], publicKey: 'svc_pk_00', createdAt: 1 })
  t.equal(store.projectIdForPublicKey(long), undefined)
  t.equal(store.getProject(long), undefined)
  t.equal(store.getApiKey(long), undefined)
  t.equal(store.getSetupToken(long), undefined)
  t.equal(store.getInvite(long), undefined)
  t.equal(store.getDashboardSession(long), undefined)
  t.equal(store.getSession(project.id, 's'.repeat(5000)), undefined)
  t.equal(store.getChunk(project.id, 'é'.repeat(3000), 0), undefined)
  t.equal(store.projectIdForPublicKey('svc_pk_00'), 'prj_1')
})
