/**
 * Erasure subjects by keyed hash (src/store/erasure-subjects.ts, issue 42): a
 * request records a session, visitor or user as an HMAC under the erasure-id
 * key, the same on every node that holds the key and nothing to anyone
 * without it; a query and a project's deletion are recorded as they are.
 */
import { createHash } from 'node:crypto'
import t from 'tap'
import { hashSubject, SubjectMatch, subjectHash } from '../../src/store/erasure-subjects.js'

const key = Buffer.alloc(32, 7)
const session = { sk: 's1', vid: 'v1', startedAt: 0, identity: { userId: 'ada@shop.test' }, pages: [] }

t.test('the same id, project and field hash the same under the same key, and apart under any other', async (t) => {
  const hashed = hashSubject(key, 'prj_1', { userId: 'ada@shop.test' })
  t.same(hashed, { hashOf: 'userId', hash: subjectHash(key, 'prj_1', 'userId', 'ada@shop.test') })
  t.match((hashed as { hash: string }).hash, /^[A-Za-z0-9_-]{22}$/, '128 bits')
  t.notOk(JSON.stringify(hashed).includes('ada'), 'the id is not in it')
  t.same(hashSubject(key, 'prj_1', { userId: 'ada@shop.test' }), hashed, 'another node with the key: the same hash')
  const others = [
    subjectHash(Buffer.alloc(32, 8), 'prj_1', 'userId', 'ada@shop.test'),
    subjectHash(key, 'prj_2', 'userId', 'ada@shop.test'),
    subjectHash(key, 'prj_1', 'visitorId', 'ada@shop.test'),
    createHash('sha256').update('ada@shop.test').digest().subarray(0, 16).toString('base64url'),
  ]
  t.equal(new Set([...others, (hashed as { hash: string }).hash]).size, 5, 'another key, project or field, or a plain hash: another value')
})

t.test('a query and a project\'s deletion are recorded as they are', async (t) => {
  const query = { query: { from: 1, until: 2 } }
  t.equal(hashSubject(key, 'prj_1', query), query)
  t.same(hashSubject(key, 'prj_1', { project: true }), { project: true })
})

t.test('a match by hash finds what the id in the clear finds, and needs the key', async (t) => {
  for (const by of [{ sessionKey: 's1' }, { visitorId: 'v1' }, { userId: 'ada@shop.test' }]) {
    const match = new SubjectMatch('prj_1', hashSubject(key, 'prj_1', by), key)
    t.ok(match.session(session), `${Object.keys(by)[0]}: the session`)
    t.notOk(match.session({ ...session, sk: 's2', vid: 'v2', identity: { userId: 'bob@shop.test' } }), 'not another one')
    t.notOk(new SubjectMatch('prj_2', hashSubject(key, 'prj_1', by), key).session(session), 'nor in another project')
    t.equal(match.batch(session), !('userId' in by), 'a batch names a session and a visitor, never a user')
  }
  t.throws(() => new SubjectMatch('prj_1', hashSubject(key, 'prj_1', { userId: 'ada@shop.test' })), 'without the key')
})
