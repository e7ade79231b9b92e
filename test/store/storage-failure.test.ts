/**
 * The LMDB store on a full disk (a small tmpfs): a batch whose commit fails
 * rejects with StorageUnavailable (not fatal), stores nothing of itself, takes
 * nothing acknowledged before with it, does not end the process (lmdb-js
 * leaves promises of a failed commit unhandled), and the next commits succeed
 * once space is freed. An item that cannot be stored at all still fails alone.
 *
 * Needs root to mount the tmpfs; skipped (saying so) where mount is refused.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { openLmdbStore } from '../../src/store/lmdb/index.js'
import { StorageUnavailable, type IngestItem } from '../../src/store/store.js'

const NOW = 1_700_000_000_000

function mountTmpfs(): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'svc-full-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', dir], { stdio: 'ignore' })
    return dir
  } catch {
    rmSync(dir, { recursive: true, force: true })
    return undefined
  }
}

function chunk(sk: string, seq: number, body: Uint8Array): IngestItem {
  return { kind: 'chunk', projectId: 'prj_full', receivedAt: NOW, meta: { sk, vid: 'v', seq, encoding: 'json', firstTs: NOW, lastTs: NOW, eventCount: 1 }, body }
}

const mount = mountTmpfs()

t.test('a commit that fails for lack of space rejects with StorageUnavailable, keeps what was committed, and the store recovers', { skip: mount ? false : 'mounting a tmpfs needs root (mount -t tmpfs refused)' }, async (t) => {
  const path = join(mount!, 'data')
  mkdirSync(path)
  const store = openLmdbStore({ path, mapSize: 256 * 1024 * 1024, durability: 'commit' })
  t.teardown(async () => {
    await store.close()
    execFileSync('umount', ['-l', mount!])
    rmSync(mount!, { recursive: true, force: true })
  })
  const ballast = join(mount!, 'ballast')
  const { bavail, bsize } = statfsSync(mount!)
  writeFileSync(ballast, Buffer.alloc(bavail * bsize - 2 * 1024 * 1024))

  const bodies: Buffer[] = []
  let failure: unknown
  // Batches of four 20 KB chunks until a commit fails: 2 MiB free makes that a few dozen batches.
  for (let batch = 0; batch < 500 && !failure; batch++) {
    const items = Array.from({ length: 4 }, (_, i) => {
      bodies.push(Buffer.from(`["${randomBytes(10_000).toString('hex')}"]`))
      return chunk('s', batch * 4 + i, bodies[batch * 4 + i])
    })
    try {
      t.same(await store.appendBatch(items), ['stored', 'stored', 'stored', 'stored'])
    } catch (error) {
      failure = error
    }
  }
  t.type(failure, StorageUnavailable, 'the failed commit rejects with StorageUnavailable')
  t.equal((failure as StorageUnavailable).fatal, false, 'a full disk is not fatal: the environment stays usable')
  t.equal(typeof ((failure as StorageUnavailable).cause as { code?: unknown }).code, 'number', 'the cause is LMDB\'s own error, with its code')
  const committed = bodies.length - 4
  const listed = store.listChunks('prj_full', 's')
  t.equal(listed.length, committed, 'every batch before the failure is stored, none of the failed one')
  t.ok(listed.every((info) => Buffer.from(store.getChunk('prj_full', 's', info.seq)!).equals(bodies[info.seq])), 'byte-identical')

  rmSync(ballast)
  const again = bodies.slice(committed).map((body, i) => chunk('s', committed + i, body))
  t.same(await store.appendBatch(again), ['stored', 'stored', 'stored', 'stored'], 'the refused batch is stored once space is freed')
  t.same(await store.appendBatch([chunk('s', 1_000_000, Buffer.from('[]')), chunk('k'.repeat(5_000), 0, Buffer.from('[]'))]), ['stored', 'failed'], 'an item no store could hold still fails alone, not as unavailable')
  t.equal(store.getSession('prj_full', 's')?.chunkCount, bodies.length + 1)
})
