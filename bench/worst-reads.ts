/**
 * The longest single read of the read pool (src/control/read-pool.ts), on a
 * project built to be worst-case: the fairness bound ("one organisation's
 * reads delay another's by at most one read") is only as good as the longest
 * read, so each pool read is timed here at the largest input the API lets a
 * client ask for.
 *
 * Data: one project at the page cap (MAX_PAGES_PER_PROJECT pages), each page
 * active on every one of the DAYS days before now (92 by default: overview's
 * longest period), one batch per 200 pages and day: 200 views and 2,000 clicks
 * (10 per page on 10 elements, rage and dead among them), 10 JavaScript
 * errors of distinct messages. Every page is '/' on a host of its own, so the
 * display path '/' names every page; a read merges at most MAX_MERGED_PAGES
 * of them (src/control/reading.ts), and the bench merges that many. One
 * session sends a batch on the first and the last day: its friction feed
 * spans the whole period. Every batch goes the real way (prepared as an
 * ingest writer prepares it, appended 64 to a transaction, folded).
 *
 * Each read runs RUNS times in this process on the real LMDB environment, as
 * a reader thread runs it; the table lists the worst and the median. The
 * session list is not here: it stops at its own budget (read-budget.ts).
 *
 * Each read's entries examined and value bytes read are what a read thread
 * counts against READ_MAX_ENTRIES and READ_MAX_BYTES (src/store/lmdb/read-meter.ts).
 *
 * Usage: npm run bench:worst-reads -- [pages=10000] [days=92] [dir]
 * Writes bench/worst-reads-results.md (and prints the same lines).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../src/config.js'
import { MAX_MERGED_PAGES } from '../src/control/reading.js'
import { ItemPreparer } from '../src/grouping/prepare-items.js'
import { openStore } from '../src/store/open.js'
import type { LmdbStore } from '../src/store/lmdb/index.js'
import { installMeter, metered, ReadMeter } from '../src/store/lmdb/read-meter.js'
import type { IngestItem } from '../src/store/store.js'
import { generator } from './payloads.js'

const PAGES = Number(process.argv[2] ?? 10_000)
const DAYS = Number(process.argv[3] ?? 92)
const dir = process.argv[4] ?? mkdtempSync(join(tmpdir(), 'svc-worst-reads-'))
const DAY_MS = 24 * 60 * 60 * 1000
const NOW = Math.floor(Date.now() / DAY_MS) * DAY_MS
const SINCE = NOW - DAYS * DAY_MS
const PER_BATCH = 200
const APPEND_BATCH = 64
const RUNS = 5

const random = generator(41)
const urlOf = (page: number) => `https://h${page}.shop.test/`

function batch(sk: string, pages: number[], at: number): Buffer {
  const views = pages.map((page, i) => ({ url: urlOf(page), startedAt: at + i * 1_000, vw: 1440, vh: 800, docH: 3000, activeMs: 5_000, maxScrollPct: Math.floor(random() * 100) }))
  const clicks = pages.flatMap((page, i) =>
    Array.from({ length: 10 }, (_, c) => {
      const kind = c === 0 ? 'rage' : c === 1 ? 'dead' : 'click'
      return { url: urlOf(page), ts: at + i * 1_000 + c * 50, xRatio: random(), yDoc: Math.floor(random() * 3000), vw: 1440, docH: 3000, selector: `button.b${c}`, tag: 'button', kind, ...(kind === 'rage' ? { n: 4 } : {}) }
    }),
  )
  const errors = Array.from({ length: 10 }, (_, e) => ({ url: urlOf(pages[e]), ts: at + e * 1_000, message: `TypeError: e${pages[e]} of undefined` }))
  return Buffer.from(JSON.stringify({ sk, vid: `v${sk}`, startedAt: at, dropped: 0, views, clicks, errors }))
}

const lines: string[] = []
const say = (line: string) => {
  lines.push(line)
  console.log(line)
}

const { foldBatches } = loadConfig({})
const store = openStore({ dataDir: dir, mapSizeBytes: 64 * 1024 ** 3, durability: 'commit', maxPagesPerProject: PAGES }) as LmdbStore
const projectId = 'prj_worst_reads'
// A directory given on the command line keeps its data: a second run times the reads without building again.
const built = store.getProject(projectId) !== undefined
if (!built) await store.createProject({ id: projectId, orgId: 'org_bench', name: 'Worst reads', domain: 'shop.test', pathRules: [], publicKey: 'svc_pk_0bad', createdAt: SINCE })
const preparer = new ItemPreparer(store)

const started = Date.now()
let pending: IngestItem[] = []
const flush = async () => {
  await store.appendBatch(pending)
  pending = []
  if (store.derivationLag() >= foldBatches) while (store.derivationLag() > 0) await store.applyDerivations(foldBatches)
}
const add = async (sk: string, body: Buffer, receivedAt: number) => {
  const item = preparer.forBatch()({ kind: 'signals-body', projectId, receivedAt, body })
  if ('invalid' in item) throw new Error(`generated batch refused: ${item.invalid}`)
  pending.push(item)
  if (pending.length >= APPEND_BATCH) await flush()
}
let batches = built ? Math.ceil(PAGES / PER_BATCH) * DAYS : 0
for (let day = 0; day < (built ? 0 : DAYS); day++) {
  const at = SINCE + day * DAY_MS + 3_600_000
  for (let first = 0; first < PAGES; first += PER_BATCH) {
    const pages = Array.from({ length: Math.min(PER_BATCH, PAGES - first) }, (_, i) => first + i)
    await add(`d${day}p${first}`, batch(`d${day}p${first}`, pages, at), at + 300_000)
    batches++
  }
  if (day === 0 || day === DAYS - 1) await add('long', batch('long', [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], at + 7_200_000), at + 7_500_000)
  if (day % 10 === 0) console.error(`day ${day + 1} of ${DAYS}: ${batches.toLocaleString('en')} batches in ${Math.round((Date.now() - started) / 1000)} s`)
}
await flush()
while (store.derivationLag() > 0) await store.applyDerivations(foldBatches)
const buildS = (Date.now() - started) / 1000

const allPages = store.listSignalPages(projectId)
// A display path names at most MAX_MERGED_PAGES pages (resolvePages): the most a heatmap or an overview merges.
const merged = allPages.slice(0, MAX_MERGED_PAGES)
const period = { since: SINCE, until: NOW }
const READS: { name: string; run: () => unknown }[] = [
  { name: `overview, ${DAYS} days by day, top 20`, run: () => store.overview(projectId, { ...period, bucket: 'day', top: 20 }) },
  { name: 'overview, 31 days by hour, top 20', run: () => store.overview(projectId, { since: NOW - 31 * DAY_MS, until: NOW, bucket: 'hour', top: 20 }) },
  { name: `overview, ${DAYS} days by day, a path on ${MAX_MERGED_PAGES} hosts`, run: () => store.overview(projectId, { ...period, bucket: 'day', top: 20, pages: merged }) },
  { name: `heatmap, a path on ${MAX_MERGED_PAGES} hosts, ${DAYS} days`, run: () => store.heatmap(projectId, { ...period, pages: merged, kind: 'click' }) },
  { name: `heatmap, one page, ${DAYS} days`, run: () => store.heatmap(projectId, { ...period, pages: [allPages[0]], kind: 'click' }) },
  { name: `elements.top, whole project, ${DAYS} days`, run: () => store.topElements(projectId, { ...period, limit: 100 }) },
  { name: `elements.top, a path on ${MAX_MERGED_PAGES} hosts, ${DAYS} days`, run: () => store.topElements(projectId, { ...period, pages: merged, limit: 100 }) },
  { name: `friction.list, first page of 200, ${DAYS} days`, run: () => store.listFriction(projectId, { ...period, limit: 200 }) },
  { name: `friction.list, one session over ${DAYS} days`, run: () => store.listFriction(projectId, { ...period, limit: 200, sessionKey: 'long' }) },
  { name: `pages.list, one slice of 100 pages, ${DAYS} days`, run: () => store.pageInsights(projectId, { ...period, pages: allPages.slice(0, 100) }) },
  { name: "page keys (resolvePages, on the control worker's loop)", run: () => store.listSignalPages(projectId) },
]

say(`# The longest read (${new Date().toISOString().slice(0, 10)})`)
say('')
say(`Generated by \`npm run bench:worst-reads\` (bench/worst-reads.ts). One project at the page cap: ${PAGES.toLocaleString('en')} pages, each active on each of the ${DAYS} days before now (${batches.toLocaleString('en')} batches of 200 views and 2,000 clicks, ${(batches * 2000).toLocaleString('en')} clicks), ${built ? 'built by an earlier run' : `built and folded through the store in ${buildS.toFixed(0)} s`}. Each read ${RUNS} times in one process on the LMDB environment, as a read thread runs it, with the JSON of its answer. Load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores.`)
say('')
say('| read | median ms | worst ms | answer bytes | entries examined | value bytes read |')
say('| --- | ---: | ---: | ---: | ---: | ---: |')
// What the read threads count against READ_MAX_ENTRIES and READ_MAX_BYTES, counted once per read before it is timed.
installMeter(Object.values(store.tables))
for (const { name, run } of READS) {
  const meter = new ReadMeter({ entries: Infinity, bytes: Infinity })
  await metered(meter, run)
  const times: number[] = []
  let bytes = 0
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now()
    bytes = JSON.stringify(run()).length
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  say(`| ${name} | ${times[Math.floor(RUNS / 2)].toFixed(1)} | ${times[RUNS - 1].toFixed(1)} | ${bytes.toLocaleString('en')} | ${meter.entries.toLocaleString('en')} | ${meter.bytes.toLocaleString('en')} |`)
}
await store.close()
writeFileSync(join(process.cwd(), 'bench', 'worst-reads-results.md'), `${lines.join('\n')}\n`)
if (!process.argv[4]) rmSync(dir, { recursive: true, force: true })
