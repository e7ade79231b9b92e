/**
 * Compaction leaves no deleted key in the files (issue 42): a table of 20,000
 * sessions whose every tenth key carries a marker, those deleted. LMDB's own
 * compacting copy keeps some of them, as separators in branch pages (shown
 * here, so that the check can fail); compactStore's rebuild keeps none, and
 * every entry left reads back as it was, shared record shapes included.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { open } from 'lmdb'
import t from 'tap'
import { compactStore, StoreHeldElsewhere } from '../../src/store/lmdb/compaction.js'
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

t.test('a process outside the service with the store open stops the compaction, named; once it is gone, the store compacts', async (t) => {
  const dir = tempDataDir()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const env = open({ path: dir, maxDbs: 8 })
  await env.openDB({ name: 'sessions' }).put('k', 'v')
  await env.close()
  // `npm run admin` or a backup script: another process that opened the store and read from it.
  const holder = spawn(process.execPath, ['-e', `const e = require('lmdb').open({ path: ${JSON.stringify(dir)}, maxDbs: 8 }); e.openDB('sessions').get('k'); console.log('open'); setInterval(() => {}, 1000)`], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(() => holder.kill('SIGKILL'))
  await once(holder.stdout!, 'data')
  const refused = await compactStore(dir, 1024 ** 3).catch((error: unknown) => error)
  t.ok(refused instanceof StoreHeldElsewhere, 'refused while the other process holds a reader slot')
  t.same((refused as StoreHeldElsewhere).pids, [holder.pid], 'and the holder is named')
  holder.kill('SIGKILL')
  await once(holder, 'exit')
  const { after } = await compactStore(dir, 1024 ** 3)
  t.ok(after > 0, 'once it died, its slot is freed and the store compacts')
})
