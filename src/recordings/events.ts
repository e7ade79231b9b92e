/**
 * A whole recording as one JSON array of rrweb events, streamed
 * (sessions.events). Each stored chunk is a JSON array of events, gzip or raw,
 * exactly as the tracker sent it; the ingest path never decompresses, so this
 * is where gzip chunks are inflated, with node:zlib streams.
 *
 * Nothing here holds more than one chunk's stored bytes, one event and one
 * output batch at a time, and each of those is bounded (a 146 KB gzip
 * chunk can inflate to 150 MB in one event). Events are cut out of each
 * chunk's array by a small scanner that follows strings and nesting, so
 * chunks are joined without parsing them; an event is written only once it
 * is complete, and a chunk that turns out to be corrupt (bad gzip, cut-off
 * JSON) loses its unfinished event but never makes the answer invalid JSON.
 *
 * What the bounds leave out is replaced by a small rrweb custom event (type 5)
 * whose tag says what was dropped, so a reader can tell and a replayer skips it:
 * - an event over MAX_EVENT_BYTES is scanned past, never buffered: `svc.event_dropped`;
 * - a gzip chunk is inflated to at most MAX_CHUNK_INFLATED_BYTES; the rest of it is not read: `svc.chunk_cut`;
 * - an answer asked for with `maxBytes` stops at the last whole event that fits: `svc.answer_truncated`;
 * - stylesheets past what one answer restores stay references from there on: `svc.styles_cut`, once.
 *
 * Stylesheets the tracker sent once per project (styles.ts) are put back into
 * each event that refers to one, when a `styles` lookup is given, and the
 * nodes the tracker wrote once per page view (compact-mutations.ts) into each
 * mutation event, from the dictionary the chunks read so far built.
 */
import { Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'
import { log } from '../log.js'
import { ArraySplitter } from './array-splitter.js'
import { SessionContents } from './compact-mutations.js'
import { frameEventInPlace, isFrameEvent } from './frame-events.js'
import { MAX_CHUNK_INFLATED_BYTES, MAX_EVENT_BYTES } from './limits.js'
import { MAX_RESTORED_BYTES_PER_ANSWER, RestoreBudget, restoreStyles, type StyleText } from './styles.js'

export { ArraySplitter } from './array-splitter.js'

export interface StoredChunk {
  seq: number
  encoding: 'gzip' | 'json'
  /** Its page view: added nodes name contents of that page view's earlier chunks (compact-mutations.ts). */
  pageIndex?: number
  /** The chunk's bytes, read when its turn comes; undefined if they are gone (purged meanwhile). */
  load(): Uint8Array | undefined | Promise<Uint8Array | undefined>
}

export { MAX_CHUNK_INFLATED_BYTES, MAX_EVENT_BYTES } from './limits.js'

export interface EventLimits {
  maxEventBytes?: number
  maxChunkInflatedBytes?: number
  /** Stop the answer before it passes this many bytes (at an event boundary); no limit when absent. */
  maxAnswerBytes?: number
  /** A stylesheet's text as a JSON string literal, by hash (styles.ts `styleLookup`); references stay as stored without it. */
  styles?: (hash: string) => StyleText | undefined
  /** Stylesheet bytes this answer may restore (styles.ts MAX_RESTORED_BYTES_PER_ANSWER when absent). */
  maxRestoredBytes?: number
  /** `array` (the default): one JSON array. `lines`: one event per line (newline-delimited JSON), for a feed that never ends. */
  framing?: 'array' | 'lines'
}

const FRAMES = {
  array: { open: '[', between: ',', close: ']' },
  lines: { open: '', between: '', close: '' },
} as const

/** zlib's output piece: each piece is a round trip to the thread pool, and at the default 16 KiB inflating 64 MiB took 0.9 s instead of 0.05 s. */
const INFLATE_PIECE_BYTES = 256 * 1024
/** Output is written in batches of about this many bytes: fewer, larger writes than one per event. */
const BATCH_BYTES = 64 * 1024

/** rrweb's own events end with their timestamp (`{"type":…,"data":…,"timestamp":…}`); markers borrow the last one seen. */
const TIMESTAMP_AT_END = /"timestamp":\s*(\d{1,16})\s*}\s*$/

function timestampAtEnd(tail: Buffer): number | undefined {
  const match = TIMESTAMP_AT_END.exec(tail.toString('latin1'))
  return match ? Number(match[1]) : undefined
}

/** A small rrweb custom event standing for what a bound left out. */
function marker(tag: string, timestamp: number, payload: Record<string, number | string>): Buffer {
  return Buffer.from(JSON.stringify({ type: 5, timestamp, data: { tag, payload } }))
}

/** Pieces of one chunk's JSON: the bytes as stored, or inflated a piece at a time until `limit` bytes came out. */
async function* piecesOf(chunk: StoredChunk, bytes: Uint8Array, limit: number, cut: () => void): AsyncGenerator<Buffer> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (chunk.encoding === 'json') {
    yield buffer
    return
  }
  const gunzip = createGunzip({ chunkSize: INFLATE_PIECE_BYTES })
  gunzip.end(buffer)
  let inflated = 0
  for await (const piece of gunzip as AsyncIterable<Buffer>) {
    inflated += piece.length
    if (inflated > limit) {
      // Leaving the loop destroys the gunzip stream: nothing past the limit is inflated.
      cut()
      if (inflated - piece.length < limit) yield piece.subarray(0, limit - (inflated - piece.length))
      return
    }
    yield piece
  }
}

const NEWLINE = Buffer.from('\n')

/** Collects the answer's bytes into batches, counting what it writes against the answer's limit. */
class Answer {
  private batch: Buffer[]
  private size: number
  private written: number
  private first = true
  private readonly frame: (typeof FRAMES)[keyof typeof FRAMES]
  /** The answer reached its limit; nothing more is added. */
  full = false
  lastTimestamp = 0

  constructor(
    private readonly maxBytes: number,
    private readonly lines = false,
  ) {
    this.frame = FRAMES[lines ? 'lines' : 'array']
    this.batch = this.frame.open ? [Buffer.from(this.frame.open)] : []
    this.size = this.written = this.frame.open.length
  }

  /** One event, given as the pieces it is written in (restored stylesheets are never joined into one buffer). */
  add(event: Buffer[], tail: Buffer): void {
    if (this.full) return
    const length = event.reduce((sum, piece) => sum + piece.length, 0)
    // Room is kept for the truncation marker and the closing bracket.
    if (this.written + length + 1 > this.maxBytes - 128) {
      this.full = true
      this.push([marker('svc.answer_truncated', this.lastTimestamp, { maxBytes: this.maxBytes })])
      return
    }
    this.push(event)
    this.lastTimestamp = timestampAtEnd(tail) ?? this.lastTimestamp
  }

  /** A marker goes in even past the limit's margin: it is small, and says what is missing. */
  note(tag: string, payload: Record<string, number | string>): void {
    if (!this.full) this.push([marker(tag, this.lastTimestamp, payload)])
  }

  get ready(): boolean {
    return this.size >= BATCH_BYTES
  }

  /** The batch to write: small pieces joined, a large one (a restored stylesheet) passed on as it is. */
  *take(last = false): Generator<Buffer> {
    if (last && this.frame.close) this.batch.push(Buffer.from(this.frame.close))
    let small: Buffer[] = []
    for (const piece of this.batch) {
      if (piece.length < BATCH_BYTES) {
        small.push(piece)
        continue
      }
      if (small.length) yield Buffer.concat(small)
      small = []
      yield piece
    }
    if (small.length) yield Buffer.concat(small)
    this.batch = []
    this.size = 0
  }

  private push(event: Buffer[]): void {
    if (!this.first && this.frame.between) this.batch.push(Buffer.from(this.frame.between))
    this.first = false
    for (const piece of event) {
      // A raw line break in valid JSON can only be whitespace between tokens: a space keeps one event to one line.
      const flat = this.lines && (piece.includes(10) || piece.includes(13)) ? Buffer.from(piece.map((byte) => (byte === 10 || byte === 13 ? 32 : byte))) : piece
      this.batch.push(flat)
      this.size += flat.length
      this.written += flat.length
    }
    if (this.lines) this.batch.push(NEWLINE)
    this.size += 1
    this.written += 1
  }
}

async function* eventBytes(chunks: Iterable<StoredChunk>, limits: Required<Omit<EventLimits, 'styles'>>, styles?: EventLimits['styles'], contents = new SessionContents()): AsyncGenerator<Buffer> {
  const answer = new Answer(limits.maxAnswerBytes, limits.framing === 'lines')
  const budget = new RestoreBudget(limits.maxRestoredBytes)
  let stylesCut = false
  for (const chunk of chunks) {
    if (answer.full) break
    const bytes = await chunk.load()
    if (!bytes) continue
    const splitter = new ArraySplitter(limits.maxEventBytes)
    let cut = false
    const dropped = (size: number, tail: Buffer) => {
      log.warn('recording event over the size limit left out', { seq: chunk.seq, bytes: size, limit: limits.maxEventBytes })
      answer.lastTimestamp = timestampAtEnd(tail) ?? answer.lastTimestamp
      answer.note('svc.event_dropped', { seq: chunk.seq, bytes: size, limit: limits.maxEventBytes })
    }
    const expander = contents.chunk(limits.maxEventBytes, chunk.pageIndex)
    // The splitter hands events over as it finds them; stylesheets are put back after, awaiting zlib in libuv's pool.
    const found: Array<{ event: Buffer; tail: Buffer } | { dropped: number; tail: Buffer }> = []
    const add = (stored: Buffer) => {
      // A frame's event (another origin, recorded in place) is put where the replayer reads a frame's document.
      const expanded = isFrameEvent(stored) ? frameEventInPlace(stored, limits.maxEventBytes) : expander.expand(stored)
      const tail = stored.subarray(-48)
      found.push('event' in expanded ? { event: expanded.event, tail } : { dropped: expanded.tooLarge, tail })
    }
    const write = async (event: Buffer, tail: Buffer) => {
      answer.add(styles ? await restoreStyles(event, styles, limits.maxEventBytes, budget) : [event], tail)
      if (budget.spent && !stylesCut) {
        stylesCut = true
        answer.note('svc.styles_cut', { limit: limits.maxRestoredBytes })
      }
    }
    try {
      for await (const piece of piecesOf(chunk, bytes, limits.maxChunkInflatedBytes, () => (cut = true))) {
        splitter.push(piece, add, (size, tail) => found.push({ dropped: size, tail }))
        for (const next of found.splice(0)) {
          if ('event' in next) await write(next.event, next.tail)
          else dropped(next.dropped, next.tail)
          if (answer.full) break
        }
        if (answer.full) break
        if (answer.ready) yield* answer.take()
      }
      if (cut) {
        log.warn('recording chunk inflates past the limit; the rest of it is left out', { seq: chunk.seq, limit: limits.maxChunkInflatedBytes })
        answer.note('svc.chunk_cut', { seq: chunk.seq, limit: limits.maxChunkInflatedBytes })
      } else if (!splitter.complete && !answer.full) log.warn('recording chunk ended inside its JSON; its unfinished event is left out', { seq: chunk.seq })
    } catch (error) {
      // A corrupt gzip chunk: the events before the damage are kept, the rest of this chunk is lost, the next chunk goes on.
      log.warn('recording chunk could not be decompressed', { seq: chunk.seq, error: String(error) })
    }
  }
  yield* answer.take(true)
}

/** The recording's events as a byte stream of one JSON array; reads each chunk only when the reader wants more. */
export function recordingEvents(chunks: Iterable<StoredChunk>, limits: EventLimits = {}): Readable {
  const bounded: Required<Omit<EventLimits, 'styles'>> = {
    maxEventBytes: limits.maxEventBytes ?? MAX_EVENT_BYTES,
    maxChunkInflatedBytes: limits.maxChunkInflatedBytes ?? MAX_CHUNK_INFLATED_BYTES,
    maxAnswerBytes: limits.maxAnswerBytes ?? Number.POSITIVE_INFINITY,
    maxRestoredBytes: limits.maxRestoredBytes ?? MAX_RESTORED_BYTES_PER_ANSWER,
    framing: limits.framing ?? 'array',
  }
  return Readable.from(eventBytes(chunks, bounded, limits.styles), { objectMode: false })
}

/**
 * The events of `chunks` as byte pieces, one event per line: the live feed's part for the chunks that arrived
 * (follow.ts), which passes the same `contents` for every part so that a chunk names what earlier parts defined.
 */
export function eventLines(chunks: Iterable<StoredChunk>, limits: Omit<EventLimits, 'framing' | 'maxAnswerBytes'> = {}, contents?: SessionContents): AsyncGenerator<Buffer> {
  return eventBytes(
    chunks,
    {
      maxEventBytes: limits.maxEventBytes ?? MAX_EVENT_BYTES,
      maxChunkInflatedBytes: limits.maxChunkInflatedBytes ?? MAX_CHUNK_INFLATED_BYTES,
      maxAnswerBytes: Number.POSITIVE_INFINITY,
      maxRestoredBytes: limits.maxRestoredBytes ?? MAX_RESTORED_BYTES_PER_ANSWER,
      framing: 'lines',
    },
    limits.styles,
    contents,
  )
}
