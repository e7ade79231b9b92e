/**
 * The recording buffer. Events are serialized once, as they arrive, so the
 * buffer knows its size without measuring twice; a chunk is cut every
 * FLUSH_INTERVAL_MS or at FLUSH_BYTES, whichever comes first, and always when
 * the page view or the session changes (a chunk belongs to one page view).
 *
 * Cut chunks wait in a queue that one uploader drains in order: it gzips a
 * chunk, and if the result is over the server's cap it splits the chunk's
 * events in two and tries again (a single event over the cap is dropped and
 * counted: the server would refuse it). The seq is taken only when a chunk is
 * about to be sent, so splits keep seq strictly increasing in event order.
 *
 * A full snapshot (rrweb's Meta event, then the snapshot) always starts a
 * chunk of its own, marked `checkpoint` in its meta: a reader can start a
 * replay there without the chunks before it (sessions.events `from`).
 *
 * When the page goes away there is no time to compress: `flushNow` sends what
 * is queued as raw JSON, in order, with keepalive while the quota allows. The
 * chunk the uploader holds goes first: leaving the page cancels its plain
 * fetch, so it is sent again under the seq it already has (the server keeps
 * the first copy of a seq, so a copy that did arrive is not stored twice).
 *
 * What never reaches the service is reported (`lost`, sent with the signals):
 * a chunk dropped here, and at unload the seqs sent as the tab closed, before
 * they are sent, so that the server can name any that never arrives.
 */
import type { ChunkMeta, RecordingLoss } from '../../src/schemas/types.js'
import { createDictionary, type Written } from './compact.js'
import { encode, utf8, type Encoding } from './compress.js'
import { CHUNK_CAP_BYTES, FLUSH_BYTES, MAX_QUEUED_BYTES, MAX_URL, px } from './config.js'
import type { Verdict } from './capture.js'
import type { Guard } from './guard.js'
import type { Identity } from './session.js'
import { createStyles, type LinkTexts } from './styles.js'
import type { Transport } from './transport.js'

/** Where the events of a chunk belong. */
export interface PageContext {
  sk: string
  vid: string
  startedAt: number
  pageIndex: number
  url: string
  /** The session's sampling draw (session.ts). */
  u: number
}

export interface Batch {
  ctx: PageContext
  identity?: Identity
  parts: string[]
  times: number[]
  /** Per event: 1 a console error, 2 a failed request, else 0 (counted into the meta for the session list's filters). */
  marks: number[]
  bytes: number
  /** Assigned when the batch is sent; kept for a copy sent again. */
  seq?: number
  /** flushNow sent it while the uploader held it: the uploader leaves it alone. */
  taken?: boolean
  /** It starts with a full snapshot. */
  checkpoint?: boolean
  /** Its events as the uploader wrote them (compact.ts): a copy sent again at unload must be the same bytes. */
  written?: Written
  /** Sent as the page went away while someone followed the session live: `site` the visitor left (or closed the tab), `page` for another page of the site. */
  leaving?: Leaving
}

export type Leaving = 'site' | 'page'

export interface ChunkStats {
  chunks: number
  events: number
  droppedEvents: number
}

export interface Chunks {
  push(event: { timestamp: number; type?: number }, mark?: number): void
  /** Event bytes pushed since the last full snapshot began (the recorder takes a checkpoint past a bound). */
  readonly sinceCheckpoint: number
  /** Cuts the buffer into the queue and starts the uploader. */
  flush(): void
  /** The page is going away: sends everything now, raw JSON, keepalive within the quota; `announce` hears which seqs first (none: undefined). */
  flushNow(announce: (closing?: RecordingLoss) => void, leaving?: Leaving): void
  /** Starts a new page view (cuts the previous one's events first). */
  setContext(ctx: PageContext): void
  /** Queues chunks an earlier page load held (held.ts), ahead of this page's. */
  restore(batches: Batch[]): void
  stats: ChunkStats
  /** Where rrweb gets a linked stylesheet's text, and hears of one changed (styles.ts). */
  links: LinkTexts
}

export interface ChunkDeps {
  transport: Transport
  guard: Guard
  nextSeq: (sk: string) => number
  identity: () => Identity | undefined
  ctx: PageContext
  /** Whether a chunk of this page view is sent now, held, or dropped (capture.ts). */
  verdict: (ctx: PageContext) => Verdict
  /** At unload: the chunks still held, for the next page load of the session (held.ts). */
  keep: (batches: Batch[]) => void
  /** A chunk that will not reach the service (signals.ts sends the report). */
  lost: (loss: RecordingLoss) => void
}

/** Header values must be ISO-8859-1: escape everything else as JSON \u sequences (still the same JSON). */
const asciiJson = (value: unknown) => JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => '\\u' + (c.charCodeAt(0) + 0x10000).toString(16).slice(1))

const int = (n: number) => Math.max(0, Math.round(n || 0))
/** How many events of `batch` carry `mark`; undefined for none, so the meta leaves the field out. */
const count = (batch: Batch, mark: number) => batch.marks.filter((m) => m === mark).length || undefined

export function createChunks(deps: ChunkDeps): Chunks {
  const { transport, guard } = deps
  const styles = createStyles(transport)
  const dictionary = createDictionary()
  const stats: ChunkStats = { chunks: 0, events: 0, droppedEvents: 0 }
  let ctx = deps.ctx
  let current: Batch = empty()
  const queue: Batch[] = []
  let queuedBytes = 0
  let pumping = false
  /** The batch the uploader is compressing or sending. */
  let uploading: Batch | undefined
  let sinceCheckpoint = 0

  function empty(): Batch {
    return { ctx, identity: undefined, parts: [], times: [], marks: [], bytes: 0 }
  }

  function cut(): void {
    if (!current.parts.length) return
    current.identity = deps.identity()
    queue.push(current)
    queuedBytes += current.bytes
    current = empty()
    // An outage must not grow the page's memory without bound: the oldest waiting chunks go first.
    while (queuedBytes > MAX_QUEUED_BYTES && queue.length > 1) drop(queue.shift()!)
  }

  function drop(batch: Batch): void {
    queuedBytes -= batch.bytes
    lose(batch)
  }

  /** Counts and reports a batch given up (under `seq` when it had taken one). */
  function lose(batch: Batch, seq = batch.seq): void {
    stats.droppedEvents += batch.parts.length
    // No URL: the page view's index names it, and the report must stay small.
    deps.lost({ reason: 'dropped', seq, pageIndex: batch.ctx.pageIndex, fromTs: int(Math.min(...batch.times)), untilTs: int(Math.max(...batch.times)) })
  }

  function metaFor(batch: Batch, seq: number, encoding: Encoding): string {
    const meta: ChunkMeta = {
      sk: batch.ctx.sk,
      vid: batch.ctx.vid,
      seq,
      pageIndex: batch.ctx.pageIndex,
      url: batch.ctx.url.slice(0, MAX_URL),
      // Not first and last: console calls kept before capture.js ran arrive after later events, with their own times.
      firstTs: int(Math.min(...batch.times)),
      lastTs: int(Math.max(...batch.times)),
      eventCount: batch.parts.length,
      encoding,
      startedAt: int(batch.ctx.startedAt),
      viewport: { w: px(innerWidth), h: px(innerHeight) },
      screen: { w: px(screen.width), h: px(screen.height), dpr: Math.min(16, Math.max(0, devicePixelRatio || 1)) },
      identity: batch.identity,
      consoleErrors: count(batch, 1),
      failedRequests: count(batch, 2),
      checkpoint: batch.checkpoint || undefined,
      leaving: batch.leaving,
    }
    return asciiJson(meta)
  }

  const write = (batch: Batch) => (batch.written ??= dictionary.write(batch.parts, batch.ctx.sk + ':' + batch.ctx.pageIndex, batch.checkpoint))
  const text = (batch: Batch) => '[' + write(batch).parts.join(',') + ']'

  /**
   * The tabs of a session take seqs from one counter in localStorage: a Web
   * Lock makes its read-and-bump atomic across them (two tabs reading the
   * same value would send two chunks under one seq, and the server keeps only
   * the first). Without Web Locks (an insecure context), the plain counter.
   */
  const lockedSeq = (sk: string): Promise<number> => {
    const locks = (navigator as Navigator & { locks?: LockManager }).locks
    if (!locks?.request) return Promise.resolve(deps.nextSeq(sk))
    return locks.request('svc-seq', () => deps.nextSeq(sk)).catch(() => deps.nextSeq(sk))
  }

  /** Splits a batch in two, in event order. */
  function halves(batch: Batch): [Batch, Batch] {
    const middle = batch.parts.length >> 1
    const part = (from: number, to?: number): Batch => {
      const parts = batch.parts.slice(from, to)
      return { ctx: batch.ctx, identity: batch.identity, parts, times: batch.times.slice(from, to), marks: batch.marks.slice(from, to), bytes: parts.reduce((sum, p) => sum + p.length, 0), checkpoint: from === 0 && batch.checkpoint }
    }
    return [part(0, middle), part(middle)]
  }

  async function upload(batch: Batch): Promise<void> {
    const encoded = await encode(await styles.resolve(text(batch)))
    if (batch.taken) return
    if (encoded.body.byteLength > CHUNK_CAP_BYTES) {
      batch.written!.settle(false) // never sent: the halves write their contents again
      if (batch.parts.length === 1) return drop(batch) // one event over the cap: the server would refuse it
      queuedBytes -= batch.bytes
      const [first, second] = halves(batch)
      queue.unshift(first, second)
      queuedBytes += first.bytes + second.bytes
      return
    }
    const seq = await lockedSeq(batch.ctx.sk)
    if (batch.taken) return // flushNow sent it meanwhile, under a seq of its own
    queuedBytes -= batch.bytes
    batch.seq = seq
    const outcome = await transport.send('ingest', encoded.body, {
      headers: { 'Content-Type': 'application/octet-stream', 'X-Svc-Meta': metaFor(batch, seq, encoded.encoding) },
    })
    if (batch.taken) return // counted by flushNow, which sent it again
    // Acknowledged, later chunks may name what it wrote; else it is written again (compact.ts).
    batch.written!.settle(outcome === 'ok')
    if (outcome === 'ok') {
      stats.chunks++
      stats.events += batch.parts.length
    } else {
      lose(batch)
    }
  }

  async function pump(): Promise<void> {
    if (pumping) return
    pumping = true
    try {
      while (queue.length && !transport.stopped) {
        const verdict = deps.verdict(queue[0].ctx)
        if (verdict === 1) break // held until the settings are known or the session is long enough
        uploading = queue.shift()!
        if (verdict) queuedBytes -= uploading.bytes // not recorded, by the project's choice
        else await upload(uploading).catch(guard.fault)
      }
    } finally {
      pumping = false
      uploading = undefined
    }
  }

  return {
    links: { link: styles.link, changed: styles.changed },
    push(event, mark = 0) {
      if (transport.stopped) return
      styles.take(event)
      const part = JSON.stringify(event)
      // rrweb's Meta event begins a full snapshot: it starts a chunk of its own.
      const snapshot = event.type === 4
      if (current.parts.length && (snapshot || current.bytes + part.length > FLUSH_BYTES)) cut()
      if (snapshot) {
        current.checkpoint = true
        sinceCheckpoint = 0
      }
      sinceCheckpoint += part.length
      current.parts.push(part)
      current.times.push(event.timestamp)
      current.marks.push(mark)
      current.bytes += part.length
      if (current.bytes >= FLUSH_BYTES) {
        cut()
        void pump()
      }
    },
    flush() {
      cut()
      void pump()
    },
    get sinceCheckpoint() {
      return sinceCheckpoint
    },
    flushNow(announce, leaving) {
      cut()
      const kept: Batch[] = []
      const out: [Batch, number, Uint8Array][] = []
      const held = uploading && !uploading.taken ? [uploading] : []
      while ((held.length || queue.length) && !transport.stopped) {
        const batch = held.pop() ?? queue.shift()!
        if (batch === uploading) batch.taken = true
        if (batch.seq === undefined) {
          queuedBytes -= batch.bytes
          // Held and the page is leaving (a session shorter than the minimum, or settings not known): kept for the next page load.
          const verdict = deps.verdict(batch.ctx)
          if (verdict === 1) kept.push(batch)
          if (verdict) continue
        }
        const body = utf8(styles.inline(text(batch)))
        // Sent compressed under its seq, it cannot be sent again raw under the same seq: its fetch may still land (and if not, its seq is reported).
        if (body.byteLength > CHUNK_CAP_BYTES && batch.seq !== undefined) {
          lose(batch)
          continue
        }
        if (body.byteLength > CHUNK_CAP_BYTES) {
          if (batch.parts.length > 1) {
            const [first, second] = halves(batch)
            queue.unshift(first, second)
            queuedBytes += first.bytes + second.bytes
          } else {
            lose(batch)
          }
          continue
        }
        out.push([batch, batch.seq ?? deps.nextSeq(batch.ctx.sk), body])
      }
      // Followed live: the follower is told the page went away, in the last chunk or, with nothing left to send, an empty one.
      if (leaving) {
        const last = out.filter(([batch]) => batch.ctx.sk === ctx.sk).pop()
        if (last) last[0].leaving = leaving
        else out.push([{ ...empty(), times: [Date.now()], leaving }, deps.nextSeq(ctx.sk), utf8('[]')])
      }
      // Reported before they go: the report travels by beacon, which survives the page where a plain fetch does not.
      // The report goes with this page's signals, so it names this session's seqs only.
      const mine = out.filter(([batch]) => batch.ctx.sk === ctx.sk)
      const seqs = mine.map(([, seq]) => seq)
      // No fromTs: the service takes the last event before the gap, and the report stays small.
      announce(mine.length ? { reason: 'tab_closed', seq: Math.min(...seqs), toSeq: Math.max(...seqs), untilTs: Date.now() } : undefined)
      for (const [batch, seq, body] of out) {
        stats.chunks++
        stats.events += batch.parts.length
        void transport
          .send('ingest', body, { unloading: true, headers: { 'Content-Type': 'application/octet-stream', 'X-Svc-Meta': metaFor(batch, seq, 'json') } })
          .catch(guard.fault)
      }
      // The next page load has not this page's stylesheets to resolve marks with.
      for (const batch of kept) batch.parts = batch.parts.map(styles.inline)
      deps.keep(kept)
    },
    restore(batches) {
      queue.unshift(...batches)
      for (const batch of batches) queuedBytes += batch.bytes
    },
    setContext(next) {
      cut()
      ctx = next
      current = empty()
      void pump()
    },
    stats,
  }
}
