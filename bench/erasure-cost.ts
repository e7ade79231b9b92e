/**
 * What an erasure costs (issue 34): in a project of N sessions, each with two
 * JSON chunks of about 2 KB and one signals batch (a view, 10 clicks of which
 * one rage, an error), folded into the aggregates: the dry run's time, and
 * for an erasure by session key and one by visitor id (3 sessions), the steps
 * of 500 entries it took and their time in all; then the compaction of the
 * whole store afterwards (both environments), as the primary runs it. Each
 * subject twice: in the clear, as requests were recorded before issue 42, and
 * by keyed hash, as erasures.create records them now (a hash per session or
 * batch scanned; a session key is found by the walk, no longer looked up).
 *
 * Usage: npx tsup bench/erasure-cost.ts --format esm --platform node --target node20 --out-dir dist/bench-erasure --silent && node dist/bench-erasure/erasure-cost.js [sessions=20000]
 * Writes bench/erasure-cost.md (and prints the same lines).
 */
import { addCounts, type ErasureCountCursor } from '../src/store/erasure-store.js'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { groupUrl } from '../src/grouping/group.js'
import { compactStore } from '../src/store/lmdb/compaction.js'
import { openLmdbStore } from '../src/store/lmdb/index.js'
import type { ErasureSubject, IngestItem, Store } from '../src/store/store.js'
import { hashSubject, subjectHash } from '../src/store/erasure-subjects.js'

const SESSIONS = Number(process.argv[2] ?? 20_000)
const BATCH = 500
const T0 = Date.UTC(2026, 0, 5)
const MAP_SIZE = 8 * 1024 * 1024 * 1024
const KEY = Buffer.alloc(32, 7)

function itemsOf(projectId: string, i: number): IngestItem[] {
  const sk = `s${i}`
  const vid = `v${Math.floor(i / 3)}`
  const url = `https://shop.test/p/${i % 200}`
  const page = { ...groupUrl(url, []), firstSeenAt: T0 }
  const at = T0 + i * 1_000
  const body = Buffer.from(JSON.stringify(Array.from({ length: 20 }, (_, n) => ({ type: 3, timestamp: at + n, data: { source: 1, text: `event ${n} of ${sk}` } }))))
  const chunk = (seq: number): IngestItem => ({ kind: 'chunk', projectId, receivedAt: at + seq, body, page, meta: { sk, vid, seq, encoding: 'json', pageIndex: 0, url, startedAt: at, firstTs: at, lastTs: at + 60_000 } })
  const clicks = Array.from({ length: 10 }, (_, n) => ({ url, page: page.key, ts: at + n * 1_000, xRatio: 0.1 * n, yDoc: 100 * n, vw: 1440, selector: `#b${n}`, ...(n === 0 ? { kind: 'rage' as const, n: 3 } : {}) }))
  const batch = { sk, vid, dropped: 0, views: [{ url, page: page.key, startedAt: at, vw: 1440 }], clicks, errors: [{ url, page: page.key, ts: at + 5_000, message: 'TypeError: x is undefined' }] }
  return [chunk(0), chunk(1), { kind: 'signals', projectId, receivedAt: at, batch }]
}

async function erase(store: Store, projectId: string, id: string, by: ErasureSubject): Promise<string> {
  const started = performance.now()
  await store.startErasure({ id, projectId, by }, Date.now())
  let steps = 0
  let record = store.getErasure(id)!
  while (record.state !== 'done') {
    record = await store.continueErasure(id, BATCH, Date.now(), KEY)
    steps += 1
  }
  const ms = performance.now() - started
  return `${record.removed.sessions} sessions, ${record.removed.aggregateEntries} aggregate entries removed; ${record.sessionsExamined} sessions examined; ${steps} steps, ${Math.round(ms)} ms (${(ms / steps).toFixed(1)} ms a step)`
}

const dir = mkdtempSync(join(tmpdir(), 'svc-erasure-cost-'))
const lines: string[] = []
const say = (line: string) => {
  lines.push(line)
  console.log(line)
}
try {
  let store: Store = openLmdbStore({ path: dir, mapSize: MAP_SIZE, durability: 'commit' })
  const project = await store.createProject({ id: 'prj_bench', orgId: 'org_bench', name: 'Bench', domain: null, pathRules: [], publicKey: 'svc_pk_bench', createdAt: T0 })
  for (let i = 0; i < SESSIONS; i += 64) {
    await store.appendBatch(Array.from({ length: Math.min(64, SESSIONS - i) }, (_, n) => itemsOf(project.id, i + n)).flat())
  }
  while ((await store.applyDerivations()) > 0);
  say(`| Project | ${SESSIONS} sessions, ${SESSIONS * 2} chunks, ${SESSIONS} signal batches |`)
  say(`| --- | --- |`)
  let started = performance.now()
  const HASHES = 100_000
  for (let i = 0; i < HASHES; i++) subjectHash(KEY, project.id, 'userId', `user-${i}@shop.test`)
  say(`| One keyed hash of a subject (HMAC-SHA256) | ${(((performance.now() - started) * 1000) / HASHES).toFixed(2)} µs |`)
  for (const [how, by] of [['in the clear', { userId: 'nobody' }], ['by keyed hash', hashSubject(KEY, project.id, { userId: 'nobody' })]] as const) {
    started = performance.now()
    const counts = { sessions: 0, chunks: 0, bytes: 0, signalBatches: 0 }
    let steps = 0
    for (let next: ErasureCountCursor | undefined, first = true; first || next; first = false, steps++) {
      const step = store.countErasure(project.id, by, next, undefined, KEY)
      addCounts(counts, step.counts)
      next = step.next
    }
    say(`| Dry run by user id ${how} (walks every session and batch, ${steps} budgeted steps) | ${Math.round(performance.now() - started)} ms, ${counts.sessions} sessions |`)
  }
  const middle = Math.floor(SESSIONS / 2)
  say(`| Erasure by session key in the clear | ${await erase(store, project.id, 'er_one', { sessionKey: `s${middle}` })} |`)
  say(`| Erasure by session key by keyed hash | ${await erase(store, project.id, 'er_one_hashed', hashSubject(KEY, project.id, { sessionKey: `s${middle + 1}` }))} |`)
  say(`| Erasure by visitor id in the clear | ${await erase(store, project.id, 'er_visitor', { visitorId: 'v7' })} |`)
  say(`| Erasure by visitor id by keyed hash | ${await erase(store, project.id, 'er_visitor_hashed', hashSubject(KEY, project.id, { visitorId: 'v8' }))} |`)
  say(`| Erasure by user id by keyed hash (nobody's: the walk alone) | ${await erase(store, project.id, 'er_user_hashed', hashSubject(KEY, project.id, { userId: 'nobody' }))} |`)
  await store.close()
  started = performance.now()
  const sizes = await compactStore(dir, MAP_SIZE)
  say(`| Compaction afterwards | ${Math.round(performance.now() - started)} ms, ${(sizes.before / 1e6).toFixed(1)} MB to ${(sizes.after / 1e6).toFixed(1)} MB |`)
  store = openLmdbStore({ path: dir, mapSize: MAP_SIZE, durability: 'commit' })
  say(`| After reopening | ${store.listSessionPage(project.id, { limit: 1 }).sessions.length} session listed first, ${store.projectStats(project.id).sessionCount} counted |`)
  await store.close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
writeFileSync(
  join(process.cwd(), 'bench', 'erasure-cost.md'),
  `# What an erasure costs\n\nWritten by bench/erasure-cost.ts (${new Date().toISOString().slice(0, 10)}; steps of ${BATCH} entries, no pause between them as the control worker has BACKFILL_PAUSE_MS).\n\n${lines.join('\n')}\n`,
)
