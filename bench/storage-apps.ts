/**
 * Bytes per recorded minute on real applications (issues 32 and 47): Chromium
 * drives scripted, seeded visitors at human pace through three single-page
 * applications that ship in npm packages (bench/storage-apps-visitors.ts), each
 * page with the tracker installed from the project's snippet, against a fresh
 * service; then the store is read back (bench/storage-apps-figures.ts, and
 * bench/storage-apps-dictionary.ts for added nodes written once per chunk
 * against once per page view, from the same sessions) and the figures
 * go into bench/storage-results.md under the run's label, beside other labels'
 * (an A/B is two labels run with the same seeds).
 *
 * Runs on its own (not in `npm test`), in real time: `npm run bench:storage --
 * [--label=NAME] [--minutes=1,3,10] [--runs=N] [--apps=swagger,monaco] [--dump=DIR] [--out=FILE|-]
 * [--main=FILE]` (--dump: each session's chunks as JSON; --main: another
 * build's main.js, for an A/B of two builds; --apps=swagger,monaco,grid). The apps are
 * visited at the same time, each in its own browser context; the sessions of
 * one app one after the other. Defaults: minutes 1,3,10, 2 runs of the 1- and
 * 3-minute sessions and 1 of the 10-minute one.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { extname, join, normalize } from 'node:path'
import { gunzipSync } from 'node:zlib'
import type { Browser } from 'playwright-core'
import { snippetFor } from '../src/install/snippet.js'
import { ROOT, startCluster } from '../test/helpers/cluster.js'
import { seedProject, storeAt } from '../test/helpers/seed.js'
import { dictionaryFigures, dictionaryTable, type DictionaryRow, type StoredJson } from './storage-apps-dictionary.js'
import { addUp, compressionTable, kindTable, perMinute, sessionFigures, summaryTable, type Row } from './storage-apps-figures.js'
import { APPS, visitFor, type App } from './storage-apps-visitors.js'
import { launchChromium } from '../test/helpers/chromium.js'

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
const LABEL = arg('label') ?? 'run'
const MINUTES = (arg('minutes') ?? '1,3,10').split(',').map(Number)
const RUNS = arg('runs') ? Number(arg('runs')) : undefined
const OUT = arg('out') ?? join(ROOT, 'bench', 'storage-results.md')
const MAIN = arg('main')
/** Only these apps (comma-separated names); all by default. */
const ONLY = arg('apps')?.split(',')
/** Writes each session's chunks as JSON (one file per session) into this folder, for a look at what was recorded. */
const DUMP = arg('dump')
const runsFor = (minutes: number) => RUNS ?? (minutes >= 10 ? 1 : 2)

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.html': 'text/html', '.json': 'application/json', '.ttf': 'font/ttf', '.svg': 'image/svg+xml', '.png': 'image/png' }

/** Serves each app's package files under /<name>/, and its page (with the snippet of `keys[name]`) at /<name>/page/<key>. */
function appServer(spec: string): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    const [, name, ...rest] = url.pathname.split('/')
    const app = APPS.find((a) => a.name === name)
    if (!app) return void res.writeHead(404).end()
    if (rest[0] === 'page') return void res.writeHead(200, { 'content-type': 'text/html' }).end(app.html(decodeURIComponent(url.searchParams.get('snippet') ?? '')))
    if (rest.join('/') === 'spec.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(spec)
    const file = normalize(join(app.root, ...rest))
    if (!file.startsWith(app.root) || !existsSync(file) || !statSync(file).isFile()) return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file))
  })
}

interface Planned {
  app: App
  minutes: number
  projectId: string
  publicKey: string
  /** The pages' main-thread task time over this plan's visits, ms. */
  taskMs: number
}

async function visit(browser: Browser, base: string, clusterUrl: string, plan: Planned, run: number): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  try {
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    await cdp.send('Performance.enable')
    const snippet = snippetFor(plan.publicKey, clusterUrl)
    await page.goto(`${base}/${plan.app.name}/page?snippet=${encodeURIComponent(snippet)}`, { waitUntil: 'load' })
    await plan.app.ready(page)
    const seed = [...`${plan.app.name}:${plan.minutes}:${run}`].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, 2166136261)
    const visitor = visitFor(page, seed)
    await visitor.moveTo(300, 200) // the first interaction, which starts the tracker
    await page.waitForFunction(() => (window as any).svc?.v && (window as any).svc('stats')?.started === true, undefined, { timeout: 30_000 })
    const end = Date.now() + plan.minutes * 60_000
    while (Date.now() < end) {
      await plan.app.act(visitor).catch(() => undefined) // an action that found nothing to do is no failure of the bench
      await visitor.pause()
    }
    await page.evaluate(() => (window as any).svc('flush'))
    await page.waitForTimeout(3000)
    const { metrics } = await cdp.send('Performance.getMetrics')
    plan.taskMs += 1000 * (metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0)
  } finally {
    await context.close() // pagehide: what the tracker still holds is sent with keepalive
  }
}

function section(rows: Row[], dictionaryRows: DictionaryRow[], browserVersion: string, took: number): string {
  return [
    `## ${LABEL}`,
    '',
    `Run on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Chromium ${browserVersion}, in ${(took / 60_000).toFixed(1)} min. Stored kB per recorded minute count the chunks as stored plus, with stylesheet deduplication, the stylesheet texts the project's sessions referenced (stored once per project, shared out over this row's minutes: a row alone carries all of them, a real project far less).`,
    '',
    ...summaryTable(rows),
    '',
    'By event kind: stored kB per recorded minute (estimated, see bench/storage-apps-figures.ts), and event JSON kB per minute in brackets.',
    '',
    ...kindTable(rows),
    '',
    'The same events compressed otherwise (kB per recorded minute, stylesheet texts included as above; in brackets the chunks\' bytes against those stored):',
    '',
    ...compressionTable(rows),
    '',
    'Added nodes written once per chunk (before) and once per page view with the session dictionary (after), from the same sessions\' events and chunks, gzipped by Node (bench/storage-apps-dictionary.ts); the dictionary\'s time is Node\'s added time to write the chunks, against the pages\' main-thread task time in Chromium; the read is sessions.events\' code over the longest session:',
    '',
    ...dictionaryTable(dictionaryRows),
    '',
  ].join('\n')
}

/** Replaces this label's section of the results file, or adds it; other labels' sections stay. */
function writeSection(text: string): void {
  const begin = `<!-- ${LABEL}: begin -->`
  const end = `<!-- ${LABEL}: end -->`
  const block = `${begin}\n${text}${end}\n`
  const current = existsSync(OUT) ? readFileSync(OUT, 'utf8') : '# Storage per recorded minute on real applications\n\nWritten by `npm run bench:storage` (bench/storage-apps.ts); each section is one labelled run.\n\n'
  const at = current.indexOf(begin)
  const next = at >= 0 ? current.slice(0, at) + block + current.slice(current.indexOf(end) + end.length + 1) : current + '\n' + block
  writeFileSync(OUT, next)
}

function dumpSession(store: ReturnType<typeof storeAt>, plan: Planned, sk: string): void {
  mkdirSync(DUMP!, { recursive: true })
  const chunks = [...store.listChunks(plan.projectId, sk)].map((info) => {
    const raw = Buffer.from(store.getChunk(plan.projectId, sk, info.seq) ?? new Uint8Array())
    return JSON.parse((info.encoding === 'gzip' ? gunzipSync(raw) : raw).toString('utf8'))
  })
  writeFileSync(join(DUMP!, `${plan.app.name}-${plan.minutes}-${sk}.json`), JSON.stringify(chunks))
}

/** A session's chunks as stored, decompressed, in seq order. */
function storedJson(store: ReturnType<typeof storeAt>, projectId: string, sk: string): StoredJson[] {
  return [...store.listChunks(projectId, sk)].map((info) => {
    const raw = Buffer.from(store.getChunk(projectId, sk, info.seq) ?? new Uint8Array())
    return { pageIndex: info.pageIndex, checkpoint: !!info.checkpoint, json: (info.encoding === 'gzip' ? gunzipSync(raw) : raw).toString('utf8') }
  })
}

async function main(): Promise<void> {
  const started = Date.now()
  const cluster = await startCluster({ workers: 1, main: MAIN })
  let browser: Browser | undefined
  let server: Server | undefined
  try {
    const spec = await (await fetch(`${cluster.url}/openapi.json`)).text()
    server = appServer(spec)
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
    const plans: Planned[] = []
    for (const app of APPS.filter((a) => !ONLY || ONLY.includes(a.name))) {
      for (const minutes of MINUTES) {
        const { project } = await seedProject(cluster.dataDir, `${app.name} ${minutes}`, `${app.name}-${minutes}@bench.test`)
        plans.push({ app, minutes, projectId: project.id, publicKey: project.publicKey, taskMs: 0 })
      }
    }
    browser = await launchChromium()
    await Promise.all(
      [...new Set(plans.map((p) => p.app))].map(async (app) => {
        for (const plan of plans.filter((p) => p.app === app)) {
          for (let run = 0; run < runsFor(plan.minutes); run++) {
            process.stderr.write(`${app.name} ${plan.minutes} min, run ${run + 1}\n`)
            await visit(browser!, base, cluster.url, plan, run)
          }
        }
      }),
    )
    await new Promise((resolve) => setTimeout(resolve, 3000)) // the last keepalive uploads land
    const store = storeAt(cluster.dataDir)
    const rows = plans.map((plan) => {
      const sessions = [...store.listSessions(plan.projectId)].map((s) => sessionFigures(store, plan.projectId, s.sk))
      if (DUMP) for (const s of store.listSessions(plan.projectId)) dumpSession(store, plan, s.sk)
      return addUp(plan.app.name, plan.minutes, sessions, store.styleBytes(plan.projectId))
    })
    const dictionaryRows: DictionaryRow[] = []
    for (const [i, plan] of plans.entries()) {
      const sessions = []
      for (const s of store.listSessions(plan.projectId)) sessions.push(await dictionaryFigures(storedJson(store, plan.projectId, s.sk)))
      const row = rows[i]
      dictionaryRows.push({ app: plan.app.name, minutes: plan.minutes, recordedMinutes: row.recordedMinutes, styles: row.styles, stored: row.stored, mutationStored: row.byKind['incremental: mutation']?.stored ?? 0, taskMs: plan.taskMs, sessions })
    }
    await store.close()
    const text = section(rows, dictionaryRows, browser.version(), Date.now() - started)
    for (const row of rows) process.stderr.write(`${row.app} ${row.minutes} min: ${(perMinute(row) / 1000).toFixed(1)} kB per recorded minute\n`)
    if (OUT === '-') process.stdout.write(text)
    else writeSection(text)
  } finally {
    await browser?.close()
    server?.close()
    await cluster.stop()
  }
}

await main()
