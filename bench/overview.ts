/**
 * The overview's latency (issue 35: under 100 ms p95 at 1,000,000 sessions
 * and 10,000,000 clicks in a project) and how it scales with the sessions
 * held.
 *
 * Data: one project, sessions spread evenly over the 60 days before now (the
 * 30 days read and the 30 before them, which the change is computed
 * against), written in rounds that each cover the 60 days, one per
 * checkpoint; each session sends one signals batch: 1 to 3 views on 200 pages, 10
 * clicks (3% rage, 5% dead, 1% error clicks, on a few named elements per
 * page), a JavaScript error in 5% of sessions, a quick back on 10% of views,
 * phones, tablets and desktops, 2.5 sessions per visitor. Every batch goes the
 * real way: its JSON body prepared as an ingest writer prepares it (parsed,
 * validated, pages grouped), appended 64 to a transaction, then folded by the
 * store's own fold FOLD_BATCHES to a transaction, every aggregate included.
 *
 * At each checkpoint the same queries run 40 times each (after 3 not
 * counted), in this process on the real LMDB environment: store.overview()
 * and the JSON of its answer, as overview.get answers it.
 *
 * Usage: npm run bench:overview -- [sessions=1000000] [dir]
 * Writes bench/overview-results.md (and prints the same lines).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../src/config.js'
import { ItemPreparer } from '../src/grouping/prepare-items.js'
import type { OverviewQuery } from '../src/store/aggregates/overview.js'
import { openStore } from '../src/store/open.js'
import type { IngestItem } from '../src/store/store.js'
import { generator } from './payloads.js'

const TOTAL = Number(process.argv[2] ?? 1_000_000)
const dir = process.argv[3] ?? mkdtempSync(join(tmpdir(), 'svc-overview-'))
const CHECKPOINTS = [100_000, 300_000, 1_000_000, TOTAL].filter((n, i, all) => n <= TOTAL && all.indexOf(n) === i)
const DAY_MS = 24 * 60 * 60 * 1000
const NOW = Date.now()
const SPAN_MS = 60 * DAY_MS
const APPEND_BATCH = 64
const RUNS = 40
const WARM_UP = 3

const SECTIONS = ['shop', 'docs', 'blog', 'account', 'help', 'pricing', 'team', 'careers', 'news', 'events', 'store', 'cart', 'search', 'legal', 'status', 'api', 'guides', 'forum', 'partners', 'press']
const SUBPAGES = ['overview', 'list', 'detail', 'settings', 'billing', 'history', 'compare', 'reviews', 'faq', 'contact']
const ELEMENTS = ['button.buy', 'a.nav-home', 'a.nav-next', 'input#search', 'button.close']
const WIDTHS = [390, 390, 820, 1440, 1440, 1920]

const random = generator(35)
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]

/** One session's signals batch as a tracker sends it, and when it is received. */
function sessionBatch(i: number): { receivedAt: number; body: Buffer } {
  // Sessions come in rounds, one per checkpoint, each in time order over the whole 60 days (as a site's traffic
  // arrives), so that every checkpoint measures the same period full of sessions, only more of them.
  const round = CHECKPOINTS.findIndex((end) => i < end)
  const roundStart = round === 0 ? 0 : CHECKPOINTS[round - 1]
  const startedAt = NOW - SPAN_MS + Math.floor(((i - roundStart) / (CHECKPOINTS[round] - roundStart)) * SPAN_MS) + Math.floor(random() * 60_000)
  const vw = pick(WIDTHS)
  const views = []
  const clicks = []
  const urls = Array.from({ length: 1 + Math.floor(random() * 3) }, () => `https://shop.test/${pick(SECTIONS)}/${pick(SUBPAGES)}`)
  for (const [v, url] of urls.entries()) {
    views.push({ url, startedAt: startedAt + v * 30_000, vw, vh: 800, docH: 3000, activeMs: 2_000 + Math.floor(random() * 60_000), maxScrollPct: Math.floor(random() * 100), ...(random() < 0.1 ? { quickBack: true } : {}) })
  }
  for (let c = 0; c < 10; c++) {
    const r = random()
    const kind = r < 0.03 ? 'rage' : r < 0.08 ? 'dead' : r < 0.09 ? 'error' : 'click'
    const selector = pick(ELEMENTS)
    clicks.push({ url: urls[c % urls.length], ts: startedAt + c * 3_000, xRatio: random(), yDoc: Math.floor(random() * 3000), vw, docH: 3000, selector, tag: selector.split(/[.#]/)[0], kind, ...(kind === 'rage' ? { n: 4 } : {}) })
  }
  const errors = random() < 0.05 ? [{ url: urls[0], ts: startedAt + 1_000, message: 'TypeError: cannot read properties of undefined' }] : []
  const batch = { sk: `s${i}`, vid: `v${Math.floor(i / 2.5)}`, startedAt, dropped: 0, views, clicks, errors }
  return { receivedAt: startedAt + 60_000, body: Buffer.from(JSON.stringify(batch)) }
}

const QUERIES: { name: string; query: Omit<OverviewQuery, 'top'> }[] = [
  { name: '30 days by day', query: { since: NOW - 30 * DAY_MS, until: NOW, bucket: 'day' } },
  { name: '30 days by day, phones', query: { since: NOW - 30 * DAY_MS, until: NOW, bucket: 'day', device: 'mobile' } },
  { name: '30 days by day, one page', query: { since: NOW - 30 * DAY_MS, until: NOW, bucket: 'day', pages: ['shop.test/cart/detail'] } },
  { name: '30 days by hour', query: { since: NOW - 30 * DAY_MS, until: NOW, bucket: 'hour' } },
  { name: '7 days by hour', query: { since: NOW - 7 * DAY_MS, until: NOW, bucket: 'hour' } },
]

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]

const lines: string[] = []
const say = (line: string) => {
  lines.push(line)
  console.log(line)
}

const { foldBatches } = loadConfig({})
const store = openStore({ dataDir: dir, mapSizeBytes: 64 * 1024 ** 3, durability: 'commit' })
const projectId = 'prj_overview_bench'
await store.createProject({ id: projectId, orgId: 'org_bench', name: 'Overview bench', domain: 'shop.test', pathRules: [], publicKey: 'svc_pk_0babe', createdAt: NOW - SPAN_MS })
const preparer = new ItemPreparer(store)
say(`# Overview benchmark (${new Date().toISOString().slice(0, 10)})`)
say('')
say(`One project, sessions over the 60 days before now, 10 clicks each, ingested and folded through the store's real path (bench/overview.ts). Each query ${RUNS} times after ${WARM_UP} not counted; store.overview() plus the JSON of its answer, in one process; wall-clock time, and the process's CPU time over the same call (what the query costs when it does not wait for a core). Load average while it ran: ${loadavg()[0].toFixed(1)} on ${cpus().length} cores.`)
say('')
say('| sessions held | clicks held | query | p50 ms | p95 ms | CPU p50 ms | CPU p95 ms | answer bytes |')
say('| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |')

let written = 0
const started = Date.now()
let foldCpuUs = 0
for (const checkpoint of CHECKPOINTS) {
  while (written < checkpoint) {
    const prepare = preparer.forBatch()
    const items: IngestItem[] = []
    for (let k = 0; k < APPEND_BATCH && written < checkpoint; k++, written++) {
      const { receivedAt, body } = sessionBatch(written)
      const item = prepare({ kind: 'signals-body', projectId, receivedAt, body })
      if ('invalid' in item) throw new Error(`generated batch refused: ${item.invalid}`)
      items.push(item)
    }
    await store.appendBatch(items)
    if (store.derivationLag() >= foldBatches) {
      const cpu = process.cpuUsage()
      while (store.derivationLag() > 0) await store.applyDerivations(foldBatches)
      const used = process.cpuUsage(cpu)
      foldCpuUs += used.user + used.system
    }
    if (written % 100_000 === 0) console.error(`${written.toLocaleString('en')} sessions in ${Math.round((Date.now() - started) / 1000)} s`)
  }
  while (store.derivationLag() > 0) await store.applyDerivations(foldBatches)
  for (const { name, query } of QUERIES) {
    const times: number[] = []
    const cpus: number[] = []
    let bytes = 0
    for (let run = 0; run < WARM_UP + RUNS; run++) {
      const cpu = process.cpuUsage()
      const t0 = performance.now()
      const answer = JSON.stringify(store.overview(projectId, { ...query, top: 5 }))
      const ms = performance.now() - t0
      const used = process.cpuUsage(cpu)
      bytes = answer.length
      if (run < WARM_UP) continue
      times.push(ms)
      cpus.push((used.user + used.system) / 1000)
    }
    times.sort((a, b) => a - b)
    cpus.sort((a, b) => a - b)
    const ms = (sorted: number[], p: number) => percentile(sorted, p).toFixed(1)
    say(`| ${checkpoint.toLocaleString('en')} | ${(checkpoint * 10).toLocaleString('en')} | ${name} | ${ms(times, 50)} | ${ms(times, 95)} | ${ms(cpus, 50)} | ${ms(cpus, 95)} | ${bytes.toLocaleString('en')} |`)
  }
}
say('')
say(`Generating and folding ${TOTAL.toLocaleString('en')} sessions took ${Math.round((Date.now() - started) / 1000)} s; the folds alone ${(foldCpuUs / 1e6).toFixed(0)} s of CPU (${(foldCpuUs / TOTAL).toFixed(0)} µs per batch).`)
await store.close()
// npm runs scripts from the package root.
writeFileSync(join(process.cwd(), 'bench', 'overview-results.md'), `${lines.join('\n')}\n`)
if (!process.argv[3]) rmSync(dir, { recursive: true, force: true })
