/**
 * A control entry's effect and its log position commit together in LMDB
 * (applyJournalled): a second handle on the same environment, as another
 * process would open it, sees both or neither, so a node that dies between
 * the mutation and its bookkeeping can neither lose the entry nor apply it
 * twice. Writes made meanwhile outside the entry never carry its position.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { openLmdbStore } from '../../src/store/lmdb/index.js'
import { StorageUnavailable } from '../../src/store/store.js'

function stores(t: Test) {
  const path = mkdtempSync(join(tmpdir(), 'svc-journalled-'))
  const options = { path, mapSize: 64 * 1024 * 1024, durability: 'commit' as const }
  const writer = openLmdbStore(options)
  const other = openLmdbStore(options)
  t.teardown(async () => {
    await writer.close()
    await other.close()
    rmSync(path, { recursive: true, force: true })
  })
  return { writer, other }
}

const org = (id: string) => ({ id, name: `Org ${id}`, createdAt: 1 })
const CTL = { stream: 'CTL', seq: 7 }

t.test('the effect and the position are seen together from another handle', async (t) => {
  const { writer, other } = stores(t)
  await writer.applyJournalled(CTL, () => writer.putOrg(org('o1')))
  t.ok(other.getOrg('o1'))
  t.equal(other.journalPosition('CTL'), 7)
})

t.test('storage failing: neither the position nor anything else is recorded, and the entry is applied again', async (t) => {
  const { writer, other } = stores(t)
  const failure = new StorageUnavailable(new Error('disk full (injected)'), false)
  await t.rejects(writer.applyJournalled(CTL, async () => {
    throw failure
  }), failure)
  t.equal(other.journalPosition('CTL'), 0)
})

t.test('a call that fails the same way on every node: its position is recorded, so the log goes on', async (t) => {
  const { writer, other } = stores(t)
  await t.rejects(writer.applyJournalled(CTL, async () => {
    throw new Error('already has an owner')
  }), /already has an owner/)
  t.equal(other.journalPosition('CTL'), 7)
})

t.test('an entry that writes nothing still records its position', async (t) => {
  const { writer, other } = stores(t)
  t.equal(await writer.applyJournalled(CTL, async () => 'nothing to do'), 'nothing to do')
  t.equal(other.journalPosition('CTL'), 7)
})

t.test('a write made meanwhile outside the entry commits without its position', async (t) => {
  const { writer, other } = stores(t)
  let positionWhenOutsideCommitted = -1
  const journalled = writer.applyJournalled(CTL, async () => {
    await sleep(50)
    await writer.putOrg(org('inside'))
  })
  await writer.putOrg(org('outside'))
  positionWhenOutsideCommitted = other.journalPosition('CTL')
  await journalled
  t.equal(positionWhenOutsideCommitted, 0, 'the outside write did not record the entry')
  t.equal(other.journalPosition('CTL'), 7)
  t.ok(other.getOrg('inside') && other.getOrg('outside'))
})
