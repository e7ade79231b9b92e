/**
 * `npm run bench:isolation`: the hostile cases of issue 41, each against a
 * fresh service process, with a bystander organisation timed throughout.
 *
 *   styles     a public key uploads 40 stylesheets of 4 MiB of one character
 *              (and 40 of a control character), ingests one chunk whose
 *              snapshot names them all; a viewer opens that replay.
 *   pages      the page flood: a public key sends 200,000 distinct paths
 *              (past the project's cap of pages); four readers then page
 *              pages.list through the project at once.
 *   search     every text filter at 256 characters and `visited=/{a}/*` on a
 *              project of SESSIONS sessions with full search records.
 *   paging     four readers page sessions.list through that project at once.
 *   erasure    three erasure dry runs (`{userId:"nobody"}`) at once.
 *   aggregates four readers cycling the aggregate reads (overview, heatmap,
 *              elements, friction, pages) on that project for 6 s.
 *
 * Each fresh service first takes one ordinary signals batch (warmUp), as a
 * running one has. The bystander (another organisation, signed in) calls whoami every 100 ms
 * from 1 s before a case until 1 s after it, and its owner signs in once in
 * the middle. Recorded per case: each hostile request's time, the bystander's
 * p50/p99/worst, the owner's sign-in, its one write, the control worker's peak resident
 * memory (sampled every 50 ms from /proc) and requests refused or failed.
 * The server runs on CPU 0 and this process on the last core (bench/pin.ts).
 * Loopback only; the data directory is removed at the end.
 *
 * Writes bench/isolation-results.md. Flags: --quick (5,000 sessions, for a
 * smoke run of the benchmark itself), --only=styles,pages,search,paging,erasure,aggregates,
 * --data=DIR (keep the data there and reuse it next time: for working on one case).
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { setTimeout as sleep } from 'node:timers/promises'
import { groupUrl } from '../src/grouping/group.js'
import type { IngestItem } from '../src/store/store.js'
import { rss } from './proc.js'
import { pinning, pinSelf } from './pin.js'
import { client, folded, OWNER, seedProject, signIn, startService, storeAt, warmUp, type Service } from './isolation-service.js'

const QUICK = process.argv.includes('--quick')
const SESSIONS = QUICK ? 5_000 : 50_000
const ONLY = process.argv.find((a) => a.startsWith('--only='))?.slice(7).split(',')
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const OUT = join(ROOT, 'bench', 'isolation-results.md')
const began = performance.now()
const progress = (message: string) => console.log(`[${((performance.now() - began) / 1000).toFixed(0).padStart(4)} s] ${message}`)

interface CaseFigures {
  name: string
  hostile: string
  hostileMs: number[]
  bystander: { n: number; p50: number; p99: number; worst: number }
  signInMs: number
  /** The bystander's one write during the case (an API key made): writes never queue behind reads. */
  writeMs: number
  controlPeakMiB: number
  failed: number
  note: string
}

/** What the hostile side is doing now, for ISOLATION_DEBUG=1's lines about slow bystander calls. */
let phase = 'idle'

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0

/** Runs `attack` on a fresh service over `dataDir`, with the bystander and the memory sampler around it. */
async function runCase(name: string, dataDir: string, attack: (service: Service, failed: () => void) => Promise<{ hostile: string; hostileMs: number[]; note?: string }>): Promise<CaseFigures> {
  progress(`case ${name}: starting a fresh service`)
  const service = await startService(dataDir)
  try {
    const owner = await signIn(service.url)
    await warmUp(service, owner)
    const whoami = client(service.url, owner)
    let failed = 0
    let peak = 0
    const sampler = setInterval(() => {
      const pid = service.controlPid()
      peak = Math.max(peak, (pid && rss(pid)?.anon) || 0)
    }, 50)
    const times: number[] = []
    let watching = true
    const bystander = (async () => {
      while (watching) {
        const started = performance.now()
        const answer = await whoami('/cli/whoami').catch(() => ({ status: 0 }))
        if (answer.status !== 200) failed += 1
        times.push(performance.now() - started)
        if (process.env.ISOLATION_DEBUG && performance.now() - started > 60) console.log(`slow whoami ${(performance.now() - started).toFixed(0)} ms during ${phase}, ending at ${(performance.now() / 1000).toFixed(2)} s`)
        await sleep(Math.max(0, 100 - (performance.now() - started)))
      }
    })()
    await sleep(1_000)
    let signInMs = 0
    const signing = sleep(1_500).then(async () => {
      signInMs = (await signIn(service.url)).ms
      if (process.env.ISOLATION_DEBUG) console.log(`signed in in ${signInMs.toFixed(0)} ms, ending at ${(performance.now() / 1000).toFixed(2)} s, during ${phase}`)
    })
    let writeMs = 0
    const writing = sleep(2_000).then(async () => {
      const started = performance.now()
      const made = await whoami('/cli/keys.create', { label: 'bystander write' })
      writeMs = performance.now() - started
      if (made.status !== 200) failed += 1
    })
    const result = await attack(service, () => (failed += 1))
    await Promise.all([signing, writing])
    await sleep(1_000)
    watching = false
    await bystander
    clearInterval(sampler)
    const sorted = [...times].sort((a, b) => a - b)
    const slow = [...service.slowSteps()].map(([operation, [count, worst]]) => `${operation} ×${count} (worst ${worst} ms)`)
    const note = [result.note, slow.length ? `steps over 100 ms: ${slow.join(', ')}` : 'no step over 100 ms'].filter(Boolean).join('; ')
    const figures = { name, ...result, note, bystander: { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), worst: sorted.at(-1) ?? 0 }, signInMs, writeMs, controlPeakMiB: peak / 2 ** 20, failed }
    progress(`case ${name}: hostile ${result.hostileMs.map((ms) => ms.toFixed(0)).join(', ')} ms; bystander p50 ${figures.bystander.p50.toFixed(1)} p99 ${figures.bystander.p99.toFixed(1)} worst ${figures.bystander.worst.toFixed(1)} ms; sign-in ${signInMs.toFixed(0)} ms; write ${writeMs.toFixed(0)} ms; control peak ${figures.controlPeakMiB.toFixed(0)} MiB; failed ${failed}`)
    return figures
  } finally {
    await service.stop()
  }
}

const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now()
  const value = await work()
  return [value, performance.now() - started]
}

// ---- the cases ----

async function stylesCase(dataDir: string): Promise<CaseFigures> {
  const hostile = await seedProject(dataDir, 'Hostile styles', 'mallory@styles.test')
  // Made before the case: hashing and gzipping 320 MiB here would hold this process's loop, and the bystander's timings with it.
  const texts = [
    ...Array.from({ length: 40 }, (_, i) => Buffer.alloc(Math.floor(3.9 * 1024 * 1024), 0x61 + (i % 26)).fill(0x30 + Math.floor(i / 26), 0, 1)),
    ...Array.from({ length: 40 }, (_, i) => Buffer.alloc(4 * 1024 * 1024, 0x01).fill(0x61 + (i % 26), 0, 1)),
  ]
  const bodies = texts.map((text) => ({ hash: createHash('sha256').update(text).digest('hex'), body: gzipSync(text) }))
  return runCase('styles', dataDir, async (service, failed) => {
    const upload = async ({ hash, body }: { hash: string; body: Buffer }) => {
      const res = await fetch(`${service.url}/api/styles?pk=${hostile.project.publicKey}&hash=${hash}`, { method: 'POST', body: body as BodyInit })
      await res.arrayBuffer()
      return { hash, status: res.status }
    }
    const uploads = []
    for (const [i, body] of bodies.entries()) {
      phase = `upload ${i}`
      uploads.push(await upload(body))
    }
    phase = 'replays'
    const stored = uploads.filter((u) => u.status === 200).length
    const nodes = uploads.map((u, i) => ({ type: 2, id: 3 + i, tagName: 'style', attributes: { _svcCss: u.hash }, childNodes: [] }))
    const events = [
      { type: 4, data: { href: 'https://hostile.test/', width: 800, height: 600 }, timestamp: Date.now() - 10_000 },
      { type: 2, data: { node: { type: 0, id: 1, childNodes: [{ type: 2, id: 2, tagName: 'html', attributes: {}, childNodes: nodes }] }, initialOffset: { left: 0, top: 0 } }, timestamp: Date.now() - 9_999 },
    ]
    const meta = { sk: 'styled', vid: 'v', seq: 0, pageIndex: 0, url: 'https://hostile.test/', firstTs: events[0].timestamp, lastTs: events[1].timestamp, eventCount: 2, encoding: 'json' }
    const chunk = await fetch(`${service.url}/api/v1/ingest?pk=${hostile.project.publicKey}`, { method: 'POST', headers: { 'x-svc-meta': JSON.stringify(meta) }, body: JSON.stringify(events) })
    if (chunk.status !== 200) failed()
    const viewer = client(service.url, { apiKey: hostile.apiKey })
    const hostileMs: number[] = []
    let bytes = 0
    for (let i = 0; i < 3; i++) {
      const [answer, ms] = await timed(() => viewer('/cli/sessions.events', { projectId: hostile.project.id, sessionKey: 'styled' }))
      if (answer.status !== 200) failed()
      bytes = answer.bytes
      hostileMs.push(ms)
    }
    return { hostile: 'sessions.events of a replay naming 80 hostile stylesheets, 3 times', hostileMs, note: `${stored} of 80 uploads stored (${uploads.filter((u) => u.status === 409).length} refused 409, ${uploads.filter((u) => u.status === 400).length} 400); answer ${(bytes / 2 ** 20).toFixed(1)} MiB` }
  })
}

/** SESSIONS sessions whose search records are full: 32 paths, 64 elements, 16 errors, console texts and failed requests each. */
async function seedSearchable(dataDir: string): Promise<{ apiKey: string; projectId: string }> {
  const seeded = await seedProject(dataDir, 'Hostile reads', 'mallory@reads.test')
  const store = storeAt(dataDir)
  const projectId = seeded.project.id
  const now = Date.now()
  const text = (prefix: string, i: number) => `${prefix} ${i} ${'x'.repeat(180)}`
  let items: IngestItem[] = []
  for (let n = 0; n < SESSIONS; n++) {
    const sk = `s-${n}`
    const at = now - 86_400_000 + n
    const url = (i: number) => `https://hostile.test/a${i}/b${n % 97}/c`
    const page = { ...groupUrl(url(0), []), firstSeenAt: at }
    items.push({ kind: 'chunk', projectId, receivedAt: at, body: Buffer.from('[{"type":4,"data":{},"timestamp":1}]'), page, meta: { sk, vid: `v-${n}`, seq: 0, encoding: 'json', pageIndex: 0, url: url(0), startedAt: at, firstTs: at, lastTs: at + 60_000 } } as IngestItem)
    items.push({
      kind: 'signals',
      projectId,
      receivedAt: at,
      batch: {
        sk,
        vid: `v-${n}`,
        dropped: 0,
        views: Array.from({ length: 32 }, (_, i) => ({ url: url(i), startedAt: at + i, vw: 1440, page: groupUrl(url(i), []).key })),
        clicks: Array.from({ length: 64 }, (_, i) => ({ url: url(0), ts: at + i, xRatio: 0.5, yDoc: 10, vw: 1440, selector: text('#el', i), label: text('label', i), page: page.key })),
        errors: Array.from({ length: 16 }, (_, i) => ({ url: url(0), ts: at + i, message: text('TypeError', i) })),
        console: Array.from({ length: 10 }, (_, i) => ({ ts: at + i, level: 'error' as const, text: text('console', i) })),
        requests: Array.from({ length: 10 }, (_, i) => ({ ts: at + i, method: 'GET', url: `https://api.hostile.test/${text('r', i).replace(/ /g, '-')}`, status: 503 })),
      },
    } as IngestItem)
    if (items.length >= 256) {
      await store.appendBatch(items)
      items = []
    }
    if (n % 10_000 === 9_999) progress(`seeded ${n + 1} sessions`)
  }
  if (items.length) await store.appendBatch(items)
  await store.close()
  return { apiKey: seeded.apiKey, projectId }
}

const FILTER = 'z'.repeat(256)

async function searchCase(dataDir: string, hostile: { apiKey: string; projectId: string }): Promise<CaseFigures> {
  return runCase('search', dataDir, async (service, failed) => {
    const reader = client(service.url, hostile)
    const hostileMs: number[] = []
    let pages = 0
    for (let i = 0; i < 3; i++) {
      const [answer, ms] = await timed(() => reader('/cli/sessions.list', { projectId: hostile.projectId, visited: '/{a}/*', clicked: FILTER, error: FILTER, console: FILTER, request: FILTER, referrer: FILTER, limit: 50 }))
      if (answer.status !== 200) failed()
      pages = answer.json?.sessions?.length ?? -1
      hostileMs.push(ms)
    }
    return { hostile: 'sessions.list with every text filter at 256 characters and visited=/{a}/*, 3 times', hostileMs, note: `${pages} sessions answered per call` }
  })
}

async function pagingCase(dataDir: string, hostile: { apiKey: string; projectId: string }): Promise<CaseFigures> {
  return runCase('paging', dataDir, async (service, failed) => {
    const reader = client(service.url, hostile)
    const pageThrough = async () => {
      let cursor: string | undefined
      let pages = 0
      do {
        const answer = await reader('/cli/sessions.list', { projectId: hostile.projectId, limit: 200, ...(cursor ? { cursor } : {}) })
        if (answer.status !== 200) return (failed(), pages)
        cursor = answer.json?.nextCursor ?? undefined
        pages += 1
      } while (cursor && pages < 1_000)
      return pages
    }
    const results = await Promise.all(Array.from({ length: 4 }, () => timed(pageThrough)))
    return { hostile: 'four readers paging sessions.list (200 a page) through the whole project at once', hostileMs: results.map(([, ms]) => ms), note: `${results[0][0]} pages each` }
  })
}

async function erasureCase(dataDir: string, hostile: { apiKey: string; projectId: string }): Promise<CaseFigures> {
  return runCase('erasure', dataDir, async (service, failed) => {
    const admin = client(service.url, hostile)
    const runs = await Promise.all(Array.from({ length: 3 }, () => timed(() => admin('/cli/erasures.create', { projectId: hostile.projectId, by: { userId: 'nobody' }, dryRun: true }))))
    for (const [answer] of runs) if (answer.status !== 200) failed()
    return { hostile: 'three erasure dry runs ({userId:"nobody"}) at once', hostileMs: runs.map(([, ms]) => ms) }
  })
}

async function aggregatesCase(dataDir: string, hostile: { apiKey: string; projectId: string }): Promise<CaseFigures> {
  return runCase('aggregates', dataDir, async (service, failed) => {
    const reader = client(service.url, hostile)
    const projectId = hostile.projectId
    const reads: Array<[string, unknown]> = [
      ['/cli/overview.get', { projectId }],
      ['/cli/heatmap', { projectId, page: 'hostile.test/a0/b1/c', kind: 'click' }],
      ['/cli/elements.top', { projectId, page: 'hostile.test/a0/b1/c' }],
      ['/cli/friction.list', { projectId }],
      ['/cli/pages.list', { projectId }],
    ]
    const times: number[] = []
    const worst = new Map<string, number>()
    const until = performance.now() + 6_000
    const readLoop = async () => {
      for (let i = 0; performance.now() < until; i++) {
        const [route, body] = reads[i % reads.length]
        const [answer, ms] = await timed(() => reader(route, body))
        if (answer.status !== 200) failed()
        times.push(ms)
        worst.set(route, Math.max(worst.get(route) ?? 0, ms))
      }
    }
    await Promise.all(Array.from({ length: 4 }, readLoop))
    const sorted = [...times].sort((a, b) => a - b)
    return { hostile: 'four readers cycling overview.get, heatmap, elements.top, friction.list and pages.list for 6 s', hostileMs: [percentile(sorted, 50), percentile(sorted, 99), sorted.at(-1) ?? 0], note: `${times.length} reads; hostile times are p50, p99, worst; worst by route: ${[...worst].map(([route, ms]) => `${route.slice(5)} ${fmt(ms)}`).join(', ')}` }
  })
}

/** A distinct word-like path per number, as a crawler or a hostile client makes them (test/control/page-flood.test.ts's). */
const WORDS = ['alpha', 'bravo', 'cedar', 'delta', 'ember', 'fjord', 'gamma', 'harbor', 'iris', 'jade', 'koala', 'lumen', 'maple', 'nectar', 'opal', 'prism']
const floodPath = (n: number) => `/${WORDS[n % 16]}-${WORDS[(n >> 4) % 16]}/${WORDS[(n >> 8) % 16]}-${n.toString(36)}`
const FLOOD_BATCHES = 100
const FLOOD_CLICKS = 2_000

/** The page flood: a public key sends 200,000 distinct paths, then four readers page pages.list through the project at once. */
async function pagesCase(dataDir: string): Promise<CaseFigures> {
  const hostile = await seedProject(dataDir, 'Hostile pages', 'mallory@pages.test')
  const now = Date.now()
  const bodies = Array.from({ length: FLOOD_BATCHES }, (_, b) => {
    const url = (i: number) => `https://flood.test${floodPath(b * FLOOD_CLICKS + i)}`
    const clicks = Array.from({ length: FLOOD_CLICKS }, (_, i) => ({ url: url(i), ts: now - 1_000, xRatio: 0.5, yDoc: 100, selector: 'a' }))
    const views = Array.from({ length: 200 }, (_, i) => ({ url: url(i), startedAt: now - 2_000 }))
    return JSON.stringify({ sk: `flood-${b}`, vid: `v-${b}`, views, clicks })
  })
  return runCase('pages', dataDir, async (service, failed) => {
    phase = 'flood'
    const [, floodMs] = await timed(async () => {
      for (let b = 0; b < bodies.length; b += 4) {
        const sent = bodies.slice(b, b + 4).map((body) => fetch(`${service.url}/api/v1/signals?pk=${hostile.project.publicKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }))
        for (const res of await Promise.all(sent)) {
          await res.arrayBuffer()
          if (res.status !== 200) failed()
        }
      }
    })
    phase = 'paging pages.list'
    const reader = client(service.url, { apiKey: hostile.apiKey })
    const pageThrough = async () => {
      let cursor: string | undefined
      let listed = 0
      do {
        const answer = await reader('/cli/pages.list', { projectId: hostile.project.id, limit: 500, ...(cursor ? { cursor } : {}) })
        if (answer.status !== 200) return (failed(), listed)
        listed += answer.json?.pages?.length ?? 0
        cursor = answer.json?.nextCursor ?? undefined
      } while (cursor)
      return listed
    }
    const readers = await Promise.all(Array.from({ length: 4 }, () => timed(pageThrough)))
    return {
      hostile: `${FLOOD_BATCHES} signals batches of ${FLOOD_CLICKS} clicks on distinct paths (${(FLOOD_BATCHES * FLOOD_CLICKS).toLocaleString('en')} paths), then four readers paging pages.list (500 a page) at once`,
      hostileMs: [floodMs, ...readers.map(([, ms]) => ms)],
      note: `times: the flood, then each reader; ${readers[0][0]} pages listed each`,
    }
  })
}

// ---- the run ----

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1))

function report(cases: CaseFigures[]): string {
  const lines = [
    `## Isolation: the hostile cases against a bystander (\`npm run bench:isolation\`, ${new Date().toISOString().slice(0, 10)})`,
    '',
    `Each case on a fresh service (${pinning()}), ${SESSIONS.toLocaleString('en')} sessions with full search records for the read cases. The bystander, another organisation, calls whoami every 100 ms throughout; its owner signs in once during the case and makes an API key once (a write). Targets: bystander worst < 100 ms and p99 < 50 ms, sign-in < 300 ms, control worker peak < 512 MiB.`,
    '',
    '| case | hostile request | its times (ms) | bystander n | p50 | p99 | worst (ms) | sign-in (ms) | write (ms) | control peak (MiB) | refused/failed | notes |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...cases.map((c) => `| ${c.name} | ${c.hostile} | ${c.hostileMs.map(fmt).join(', ')} | ${c.bystander.n} | ${fmt(c.bystander.p50)} | ${fmt(c.bystander.p99)} | ${fmt(c.bystander.worst)} | ${fmt(c.signInMs)} | ${fmt(c.writeMs)} | ${c.controlPeakMiB.toFixed(0)} | ${c.failed} | ${c.note} |`),
    '',
  ]
  return lines.join('\n')
}

pinSelf()
/** --data=DIR keeps the data (and the seeded project) for the next run with the same flag: for working on one case. */
const KEPT = process.argv.find((a) => a.startsWith('--data='))?.slice(7)
const dataDir = KEPT ?? mkdtempSync('/tmp/isolation')
const SEEDED = join(dataDir, 'bench-seeded.json')
try {
  progress(`data in ${dataDir}; ${pinning()}`)
  if (!existsSync(SEEDED)) {
    // The bystander organisation: the service's first, through first-run setup, with a password to sign in with.
    const service = await startService(dataDir)
    const res = await fetch(`${service.url}/api/v1/auth/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(OWNER) })
    if (res.status !== 200) throw new Error(`first run failed: ${res.status}`)
    await service.stop()
  }
  const want = (name: string) => !ONLY || ONLY.includes(name)
  const cases: CaseFigures[] = []
  if (want('styles')) cases.push(await stylesCase(dataDir))
  if (want('pages')) cases.push(await pagesCase(dataDir))
  if (want('search') || want('paging') || want('erasure') || want('aggregates')) {
    let hostile: { apiKey: string; projectId: string }
    if (existsSync(SEEDED)) hostile = JSON.parse(readFileSync(SEEDED, 'utf8'))
    else {
      progress(`seeding ${SESSIONS} sessions with full search records`)
      hostile = await seedSearchable(dataDir)
      await folded(dataDir, progress)
      if (KEPT) writeFileSync(SEEDED, JSON.stringify(hostile))
    }
    if (want('search')) cases.push(await searchCase(dataDir, hostile))
    if (want('paging')) cases.push(await pagingCase(dataDir, hostile))
    if (want('erasure')) cases.push(await erasureCase(dataDir, hostile))
    if (want('aggregates')) cases.push(await aggregatesCase(dataDir, hostile))
  }
  const text = report(cases)
  console.log(`\n${text}`)
  if (!QUICK) writeFileSync(OUT, text)
} finally {
  if (!KEPT) rmSync(dataDir, { recursive: true, force: true })
}
