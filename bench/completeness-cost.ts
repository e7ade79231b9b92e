/**
 * What recording completeness (issue 35) costs the ingest writer, the new
 * step beside the old one it joins:
 *
 *   1. Per chunk, the session record's rules: sessionWithChunk (what every
 *      chunk already paid; it now also keeps seqTop) against
 *      countCompleteness (the new step), in a tight loop; and the session
 *      record's encoded size (msgpack, as lmdb-js stores it) with and without
 *      seqTop.
 *   2. In a real LMDB store (appendBatch, 64 items per transaction): chunks,
 *      for the per-chunk figure the first step is part of; signals batches
 *      without `lost` (what nearly every batch is) against the same batches
 *      each carrying one report, which costs a session read and write in the
 *      transaction. Rounds alternate, so both see the same machine.
 *
 * Writes bench/completeness-results.md. Run:
 *   npx tsup bench/completeness-cost.ts --format esm --platform node --target node20 --out-dir dist/bench-completeness --silent && node dist/bench-completeness/completeness-cost.js
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { pack } from 'msgpackr'
import { openLmdbStore } from '../src/store/lmdb/index.js'
import { chunkInfoOf, emptyStats, sessionWithChunk } from '../src/store/recording-records.js'
import { countCompleteness } from '../src/store/session-losses.js'
import type { IngestItem, SessionRecord } from '../src/store/store.js'

const OUT = fileURLToPath(new URL('../../bench/completeness-results.md', import.meta.url))
const T0 = 1_700_000_000_000
const LOOP = 1_000_000
const SESSIONS = 1_000
const BATCHES = 2_000
const CHUNKS = 4_000
const PER_TXN = 64
const ROUNDS = 7

type ChunkItem = Extract<IngestItem, { kind: 'chunk' }>

const chunk = (sk: string, seq: number): ChunkItem => ({
  kind: 'chunk',
  projectId: 'prj_bench',
  receivedAt: T0,
  body: Buffer.from(JSON.stringify([{ type: 3, timestamp: T0 + seq, data: { source: 0, adds: [], removes: [], texts: [], attributes: [] } }])),
  meta: { sk, vid: `v-${sk}`, seq, encoding: 'json', pageIndex: 0, url: 'https://shop.test/cart', firstTs: T0 + seq * 1000, lastTs: T0 + seq * 1000 + 500, eventCount: 1 },
})

function nsPerOp(run: () => void): number {
  for (let i = 0; i < LOOP / 10; i++) run()
  const started = process.hrtime.bigint()
  for (let i = 0; i < LOOP; i++) run()
  return Number(process.hrtime.bigint() - started) / LOOP
}

/** Part 1: the rules, in memory. */
function rules() {
  const item = chunk('s1', 7)
  const info = chunkInfoOf(item)
  let existing: SessionRecord = sessionWithChunk(undefined, chunk('s1', 0), chunkInfoOf(chunk('s1', 0))).session
  for (let seq = 1; seq < 7; seq++) existing = sessionWithChunk(existing, chunk('s1', seq), chunkInfoOf(chunk('s1', seq))).session
  const stats = emptyStats()
  const next = sessionWithChunk(existing, item, info).session
  const recordNs = nsPerOp(() => void sessionWithChunk(existing, item, info))
  const completenessNs = nsPerOp(() => countCompleteness(stats, existing, next))
  const { seqTop: _, ...withoutSeqTop } = next
  return { recordNs, completenessNs, bytesWith: pack(next).byteLength, bytesWithout: pack(withoutSeqTop).byteLength }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]

async function timed(write: () => Promise<void>, items: number): Promise<number> {
  const started = process.hrtime.bigint()
  await write()
  return Number(process.hrtime.bigint() - started) / 1000 / items
}

async function inTransactions(store: ReturnType<typeof openLmdbStore>, items: IngestItem[]): Promise<void> {
  for (let i = 0; i < items.length; i += PER_TXN) await store.appendBatch(items.slice(i, i + PER_TXN))
}

/** Part 2: the store, on disk. */
async function store() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-completeness-'))
  try {
    const lmdb = openLmdbStore({ path: dir, mapSize: 8 * 1024 ** 3, durability: 'commit', aggregates: false })
    await inTransactions(lmdb, Array.from({ length: SESSIONS }, (_, i) => chunk(`s${i}`, 0)))
    const chunkUs: number[] = []
    const plainUs: number[] = []
    const reportingUs: number[] = []
    let seq = 1
    let page = 0
    for (let round = 0; round < ROUNDS; round++) {
      const chunks = Array.from({ length: CHUNKS }, (_, i) => chunk(`s${i % SESSIONS}`, seq + Math.floor(i / SESSIONS)))
      seq += Math.ceil(CHUNKS / SESSIONS)
      chunkUs.push(await timed(() => inTransactions(lmdb, chunks), chunks.length))
      const batch = (i: number, report: boolean): IngestItem => ({
        kind: 'signals',
        projectId: 'prj_bench',
        receivedAt: T0 + i,
        batch: {
          sk: `s${i % SESSIONS}`,
          vid: `v-s${i % SESSIONS}`,
          dropped: 0,
          views: [{ url: 'https://shop.test/cart', page: 'shop.test/cart', startedAt: T0 + i, activeMs: 1000 }],
          clicks: Array.from({ length: 5 }, (_, c) => ({ url: 'https://shop.test/cart', page: 'shop.test/cart', ts: T0 + i + c, xRatio: 0.5, yDoc: 100 + c })),
          errors: [],
          // A new report each time (a page view left out), so each one writes the session.
          ...(report ? { lost: [{ reason: 'excluded' as const, pageIndex: 1 + page++ }] } : {}),
        },
      })
      const plain = Array.from({ length: BATCHES }, (_, i) => batch(i, false))
      const reporting = Array.from({ length: BATCHES }, (_, i) => batch(i, true))
      // Which goes first alternates: a store that grows during a round must not favour one side.
      const first = round % 2 === 0
      if (first) plainUs.push(await timed(() => inTransactions(lmdb, plain), plain.length))
      reportingUs.push(await timed(() => inTransactions(lmdb, reporting), reporting.length))
      if (!first) plainUs.push(await timed(() => inTransactions(lmdb, plain), plain.length))
    }
    await lmdb.close()
    return { chunkUs: median(chunkUs), plainUs: median(plainUs), reportingUs: median(reportingUs) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const r = rules()
const s = await store()
const f = (n: number, digits = 1) => n.toFixed(digits)
const text = `# Recording completeness: what it costs the ingest writer

\`bench/completeness-cost.ts\`, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores (load ${loadavg()[0].toFixed(1)}, shared with other work: compare figures of one run, not across runs).

| Per chunk | Figure |
| --- | --- |
| \`sessionWithChunk\` (the session record's rules every chunk already paid) | ${f(r.recordNs, 0)} ns |
| \`countCompleteness\` (new: is the session complete before and after) | ${f(r.completenessNs, 0)} ns |
| Session record as stored, without / with \`seqTop\` | ${r.bytesWithout} / ${r.bytesWith} bytes |
| One chunk appended to LMDB (${PER_TXN} per transaction, median of ${ROUNDS} rounds of ${CHUNKS.toLocaleString('en')}) | ${f(s.chunkUs)} µs |

| Per signals batch (1 view, 5 clicks; ${PER_TXN} per transaction, median of ${ROUNDS} rounds of ${BATCHES.toLocaleString('en')}, in alternating order) | Figure |
| --- | --- |
| Without \`lost\` (nearly every batch) | ${f(s.plainUs)} µs |
| With one \`lost\` report (a session read and write in the transaction) | ${f(s.reportingUs)} µs |

A tracker sends a report with the batch after a chunk it gave up, once per page view the capture settings left out, and at \`pagehide\` when it sent chunks as the tab closed: about one batch per page view carries one.
`
writeFileSync(OUT, text)
process.stdout.write(text)
