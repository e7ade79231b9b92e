/**
 * The store that an online compaction closes and opens again
 * (src/store/reopenable.ts): closing waits for the calls in flight (a write
 * commits first), a call while closed throws StoreClosed (a storage failure
 * that is not fatal) without reaching the store, `whenOpen` resolves on
 * reopen, and the stand-in then reaches a new store that sees the files as
 * they are now; `pastCompaction` runs a background step again once open.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { openStore } from '../../src/store/open.js'
import { pastCompaction, ReopenableStore, StoreClosed } from '../../src/store/reopenable.js'
import { StorageUnavailable } from '../../src/store/store.js'

t.test('closes after the calls in flight, refuses calls while closed, and reopens on the same files', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-reopenable-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  let opens = 0
  const reopenable = new ReopenableStore(() => (opens++, openStore({ dataDir, mapSizeBytes: 2 ** 30, durability: 'commit' })))
  const store = reopenable.store
  t.equal(reopenable.whenOpen(), undefined, 'open: nothing to wait for')
  const project = { id: 'prj_1', orgId: 'org_1', name: 'A', domain: null, pathRules: [], publicKey: 'svc_pk_1', createdAt: 1 }
  const writing = store.createProject(project)
  const closing = reopenable.close()
  t.ok(reopenable.whenOpen(), 'closing: callers wait')
  const refused = (() => {
    try {
      store.getProject('prj_1')
    } catch (error) {
      return error
    }
  })()
  t.ok(refused instanceof StoreClosed, 'a call while closing is refused')
  t.ok(new StoreClosed() instanceof StorageUnavailable && !new StoreClosed().fatal, 'as a storage failure that is not fatal')
  t.same(await writing, project, 'the write in flight committed')
  await closing
  let retried = 0
  const step = pastCompaction(async () => (retried++, store.getProject('prj_1')))
  const opened = reopenable.whenOpen()!
  await reopenable.reopen()
  await opened
  t.same(store.getProject('prj_1'), project, 'reopened, the stand-in reads the files')
  t.same(await step, project, 'a background step refused while closed ran again once open')
  t.ok(retried >= 2)
  t.equal(opens, 2)
  await reopenable.close()
})
