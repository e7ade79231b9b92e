/**
 * The bodies the benchmark sends, built the same way on every run (a seeded
 * generator, no randomness between runs) so that figures compare:
 * a gzip recording chunk of 20 KB (what a tracker flushes after a few seconds
 * of a busy page), a 5 KB signals batch, and a 2 MB body over both caps.
 */
import { gzipSync } from 'node:zlib'

export const CHUNK_BYTES = 20 * 1024
export const SIGNALS_BYTES = 5 * 1024
export const OVERSIZE_BYTES = 2 * 1024 * 1024

/** mulberry32: a small deterministic generator (the same data on every run), enough to make text that compresses like real DOM events. */
export function generator(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = ['div', 'span', 'button', 'class', 'nav', 'item', 'active', 'header', 'price', 'cart', 'title', 'link', 'row', 'col', 'card', 'image']

/** rrweb-like events: incremental snapshots with mutations and mouse moves, enough entropy to compress about 4:1. */
function events(count: number): unknown[] {
  const random = generator(42)
  const word = () => WORDS[Math.floor(random() * WORDS.length)]
  const out: unknown[] = []
  let ts = 1_700_000_000_000
  for (let i = 0; i < count; i++) {
    ts += Math.floor(random() * 200)
    out.push({
      type: 3,
      timestamp: ts,
      data: {
        source: i % 3,
        id: Math.floor(random() * 5000),
        x: Math.floor(random() * 1920),
        y: Math.floor(random() * 4000),
        adds: [{ parentId: Math.floor(random() * 5000), node: { tagName: word(), attributes: { class: `${word()}-${word()} ${word()}`, 'data-id': random().toString(36).slice(2, 10) } } }],
        texts: [{ id: Math.floor(random() * 5000), value: `${word()} ${word()} ${Math.floor(random() * 1e6)}` }],
      },
    })
  }
  return out
}

/** A gzip chunk of rrweb-like events, as close to 20 KB as whole events allow (starts with 1f 8b like every gzip). */
export function chunkBody(): Buffer {
  let low = 1
  let high = 2000
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    if (gzipSync(JSON.stringify(events(mid))).byteLength <= CHUNK_BYTES) low = mid
    else high = mid - 1
  }
  return gzipSync(JSON.stringify(events(low)))
}

/** A signals batch of about 5 KB: a couple of page views, a few dozen clicks and an error, all valid. */
export function signalsBody(now = Date.now()): Buffer {
  const random = generator(7)
  const url = 'https://shop.example.com/products/espresso-machine?ref=home'
  const clicks: unknown[] = []
  const batch = {
    sk: 'bench-signals-session',
    vid: 'bench-visitor',
    startedAt: now - 60_000,
    dropped: 0,
    views: [
      { url, startedAt: now - 60_000, title: 'Espresso machine, 15 bar', vw: 1440, vh: 900, docH: 4200, endedAt: now - 30_000, activeMs: 28_000, maxScrollPct: 62.5 },
      { url: `${url}#reviews`, startedAt: now - 30_000, title: 'Reviews', vw: 1440, vh: 900, docH: 5100, exit: true },
    ],
    clicks,
    errors: [{ url, ts: now - 10_000, message: "TypeError: Cannot read properties of undefined (reading 'price')" }],
  }
  while (JSON.stringify(batch).length < SIGNALS_BYTES - 150) {
    clicks.push({
      url,
      ts: now - Math.floor(random() * 60_000),
      xRatio: Math.round(random() * 1000) / 1000,
      yDoc: Math.floor(random() * 4200),
      vw: 1440,
      docH: 4200,
      selector: `main > section.product > button.add-to-cart:nth-child(${clicks.length + 1})`,
      label: 'Add to cart',
      tag: 'button',
      interactive: true,
      kind: clicks.length % 10 === 0 ? 'rage' : 'click',
    })
  }
  return Buffer.from(JSON.stringify(batch))
}

/**
 * The benchmark's signals batch plus the most search texts the tracker puts in one batch
 * (tracker/src/config.ts MAX_FOUND_PER_BATCH): 5 console texts, 5 failed requests, each different,
 * and a referrer on its first view.
 */
export function signalsBodyWithTexts(now = Date.now()): Buffer {
  const batch = JSON.parse(signalsBody(now).toString('utf8'))
  const at = batch.views[0].startedAt
  batch.views[0].referrer = 'https://www.search.example'
  batch.console = Array.from({ length: 5 }, (_, i) => ({ ts: at + i, level: 'error', text: `"Failed to load the price of item ${i}: the server answered 503 Service Unavailable"` }))
  batch.requests = Array.from({ length: 5 }, (_, i) => ({ ts: at + i, method: 'GET', url: `https://api.shop.example.com/v2/products/${1000 + i}/price`, status: 503 }))
  return Buffer.from(JSON.stringify(batch))
}

/** The X-Svc-Meta of the n-th chunk of a run: 20 chunks per session, so sessions are updated as well as created. */
export function chunkMeta(tag: string, n: number, now = Date.now()): string {
  return JSON.stringify({
    sk: `bench-${tag}-${Math.floor(n / 20)}`,
    vid: `visitor-${tag}-${Math.floor(n / 20)}`,
    seq: n % 20,
    pageIndex: 0,
    url: 'https://shop.example.com/products/espresso-machine',
    firstTs: now - 5000,
    lastTs: now,
    eventCount: 120,
    encoding: 'gzip',
    startedAt: now - 60_000,
  })
}
