/**
 * Micro-benchmark of the pure functions on the ingest hot path (src/contract/),
 * beside the end-to-end run: how many calls per second one core does, so a
 * change to one of them shows up here before it shows up in requests/s.
 *
 * Usage: node dist/bench/micro.js [--json]
 */
import { LIMITS } from '../src/config.js'
import { bodyMatchesEncoding, parseChunkMeta } from '../src/contract/chunk-checks.js'
import { parseSignals } from '../src/contract/signals-checks.js'
import { groupUrl } from '../src/grouping/group.js'
import { decodeIngest, encodeIngest } from '../src/journal/entries.js'
import { logSeal } from '../src/journal/seal.js'
import { chunkBody, chunkMeta, signalsBody, signalsBodyWithTexts } from './payloads.js'

export interface MicroFigure {
  name: string
  opsPerSec: number
  usPerOp: number
}

/** Calls `fn` in rounds for `ms` after a warm-up (so the JIT has compiled it), and returns calls per second. */
function measure(name: string, fn: () => unknown, ms = 1500): MicroFigure {
  let sink: unknown
  const warmUntil = performance.now() + 300
  while (performance.now() < warmUntil) sink = fn()
  let calls = 0
  const started = performance.now()
  let now = started
  while (now - started < ms) {
    for (let i = 0; i < 200; i++) sink = fn()
    calls += 200
    now = performance.now()
  }
  if (sink === Symbol.for('never')) console.log(sink) // keeps the result alive
  const opsPerSec = calls / ((now - started) / 1000)
  return { name, opsPerSec, usPerOp: 1e6 / opsPerSec }
}

/**
 * The page of every entry of a signals batch, as workers/writer.ts
 * assigns them: before, each entry's URL was grouped again; now each distinct
 * URL once per batch (the entries of a batch share a few URLs).
 */
function pagesEveryEntry(urls: string[]): number {
  const seen = new Map<string, unknown>()
  for (const url of urls) {
    const page = { ...groupUrl(url, []), firstSeenAt: 0 }
    seen.set(page.key, page)
  }
  return seen.size
}

function pagesEachUrlOnce(urls: string[]): number {
  const pages = new Map<string, ReturnType<typeof groupUrl> & { firstSeenAt: number }>()
  const seen = new Map<string, unknown>()
  for (const url of urls) {
    let page = pages.get(url)
    if (!page) {
      page = { ...groupUrl(url, []), firstSeenAt: 0 }
      pages.set(url, page)
    }
    seen.set(page.key, page)
  }
  return seen.size
}

/** A batch of minimal clicks filling `bytes`: the most entries a body of that size holds. */
function flatSignalsBody(bytes: number): Buffer {
  const clicks: unknown[] = []
  const batch = { sk: 'micro', vid: 'micro', clicks }
  while (JSON.stringify(batch).length < bytes - 100) clicks.push({ url: '/p', ts: 1_700_000_000_000 + clicks.length, xRatio: 0.5, yDoc: 100 })
  return Buffer.from(JSON.stringify(batch))
}

function runMicro(): MicroFigure[] {
  const meta = chunkMeta('micro', 7)
  const body = chunkBody()
  const signals = signalsBody()
  const withTexts = signalsBodyWithTexts()
  const nested = Buffer.from('['.repeat(LIMITS.signalsBytes / 2) + ']'.repeat(LIMITS.signalsBytes / 2))
  const flatAtCap = flatSignalsBody(LIMITS.signalsBytes)
  const now = Date.now()
  const parsed = parseSignals(signals, now)
  if (!parsed.ok) throw new Error(`the benchmark's signals batch does not validate: ${parsed.error}`)
  const urls = [...parsed.batch.views, ...parsed.batch.clicks, ...parsed.batch.errors].map((e) => e.url)
  const seal = logSeal(Buffer.alloc(32, 1))
  const chunkItem = { kind: 'chunk' as const, projectId: 'prj_micro', receivedAt: now, meta: JSON.parse(meta), body }
  const framed = encodeIngest({ item: chunkItem, after: 1 })
  const sealed = seal.seal('ingest', framed)
  return [
    measure(`parseChunkMeta (valid X-Svc-Meta, ${meta.length} B)`, () => parseChunkMeta(meta)),
    measure('parseChunkMeta (header not JSON)', () => parseChunkMeta('{"sk":')),
    // 16 KB of nested arrays, the default head limit: flattened before JSON.parse, against the valid header above.
    measure('parseChunkMeta (16 KB of nested arrays)', () => parseChunkMeta('['.repeat(8_000) + ']'.repeat(8_000))),
    measure(`parseSignals (valid batch, ${signals.byteLength} B)`, () => parseSignals(signals, now)),
    measure(`parseSignals (with 5 console texts, 5 failed requests, a referrer, ${withTexts.byteLength} B)`, () => parseSignals(withTexts, now)),
    // Flattened past the batch's depth before JSON.parse (src/contract/json-nesting.ts): the flat batch of the same size beside it is the bound.
    measure(`parseSignals (nested arrays, ${nested.byteLength} B)`, () => parseSignals(nested, now), 600),
    measure(`parseSignals (flat batch, ${flatAtCap.byteLength} B)`, () => parseSignals(flatAtCap, now), 600),
    measure('bodyMatchesEncoding (gzip, 20 KB)', () => bodyMatchesEncoding(body, 'gzip')),
    // The cluster mode's log entry for a 20 KB chunk: framing alone (the floor), then sealed and opened (src/journal/seal.ts).
    measure(`log entry of a ${Math.round(body.byteLength / 1024)} KB chunk: frame (encodeIngest)`, () => encodeIngest({ item: chunkItem, after: 1 })),
    measure(`log entry of a ${Math.round(body.byteLength / 1024)} KB chunk: frame and seal (AES-256-GCM)`, () => seal.seal('ingest', encodeIngest({ item: chunkItem, after: 1 }))),
    measure(`log entry of a ${Math.round(body.byteLength / 1024)} KB chunk: open and decode`, () => decodeIngest(seal.open('ingest', sealed))),
    measure(`log entry of a ${Math.round(body.byteLength / 1024)} KB chunk: decode, unsealed`, () => decodeIngest(framed)),
    measure(`pages of a signals batch, ${urls.length} entries: every entry grouped (before)`, () => pagesEveryEntry(urls)),
    measure(`pages of a signals batch, ${urls.length} entries: each URL once (now)`, () => pagesEachUrlOnce(urls)),
  ]
}

const figures = runMicro()
if (process.argv.includes('--json')) console.log(JSON.stringify(figures))
else for (const f of figures) console.log(`${f.name.padEnd(72)} ${Math.round(f.opsPerSec).toLocaleString('en-US').padStart(12)} ops/s ${f.usPerOp.toFixed(2).padStart(8)} µs/op`)
