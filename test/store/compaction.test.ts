/**
 * Compaction leaves no deleted key in the files (issue 42): a table of 20,000
 * sessions whose every tenth key carries a marker, those deleted. LMDB's own
 * compacting copy keeps some of them, as separators in branch pages (shown
 * here, so that the check can fail); compactStore's rebuild keeps none, and
 * every entry left reads back as it was, shared record shapes included.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { open } from 'lmdb'
import t from 'tap'
import { compactStore } from '../../src/store/lmdb/compaction.js'
import { STRUCTURES } from '../../src/store/lmdb/tables.js'
import { tempDataDir } from '../helpers/cluster.js'

const MARKER = 'MARKDELETED'
const COUNT = 20_000
const key = (i: number) => ['prj_1', `s-${String(i).padStart(6, '0')}-${i % 10 === 0 ? MARKER : 'kept'}`]
const occurrences = (file: string) => readFileSync(file).toString('latin1').split(MARKER).length - 1

t.test('no deleted key survives a compaction, as a separator or otherwise; every entry left reads back', async (t) => {
  const dir = tempDataDir()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const env = open({ path: dir, maxDbs: 8 })
  const sessions = env.openDB<{ n: number; text: string }, (string | number)[]>('sessions', { sharedStructuresKey: STRUCTURES })
  const chunks = env.openDB<Buffer, (string | number)[]>('chunks', { encoding: 'binary' })
  await sessions.transaction(() => {
    for (let i = 0; i < COUNT; i++) sessions.put(key(i), { n: i, text: `session ${i}` })
    for (let i = 0; i < 50; i++) chunks.put(['prj_1', i], Buffer.alloc(100_000, i))
  })
  await sessions.transaction(() => {
    for (let i = 0; i < COUNT; i += 10) sessions.remove(key(i))
  })
  mkdirSync(join(dir, 'copy'))
  await env.backup(join(dir, 'copy'), true)
  await env.close()
  const copied = occurrences(join(dir, 'copy', 'data.mdb'))
  t.ok(copied > 0, `LMDB's compacting copy keeps ${copied} deleted keys (branch separators)`)
  rmSync(join(dir, 'copy'), { recursive: true })

  const { before, after } = await compactStore(dir, 1024 ** 3)
  t.ok(after > 0 && after <= before, `compacted ${before} → ${after} bytes`)
  t.equal(occurrences(join(dir, 'data.mdb')), 0, 'the rebuilt file holds no deleted key')
  const back = open({ path: dir, maxDbs: 8 })
  t.teardown(() => back.close())
  const kept = back.openDB<{ n: number; text: string }, (string | number)[]>('sessions', { sharedStructuresKey: STRUCTURES })
  const bytes = back.openDB<Buffer, (string | number)[]>('chunks', { encoding: 'binary' })
  t.equal(kept.getCount(), COUNT - COUNT / 10, 'every kept session is there')
  t.same([kept.get(key(1)), kept.get(key(19_999)), kept.get(key(10))], [{ n: 1, text: 'session 1' }, { n: 19_999, text: 'session 19999' }, undefined])
  t.same([bytes.getCount(), bytes.get(['prj_1', 49])?.equals(Buffer.alloc(100_000, 49))], [50, true], 'large values whole')
})
