/**
 * A whole recording as one JSON array of rrweb events, streamed (issue 6,
 * sessions.events). Each stored chunk is a JSON array of events, gzip or raw,
 * exactly as the tracker sent it; the ingest path never decompresses, so this
 * is where gzip chunks are inflated, with node:zlib streams.
 *
 * Nothing here holds more than one chunk's stored bytes, one event and one
 * output batch at a time: a 50 MB recording costs about a megabyte of memory,
 * not 50. Events are cut out of each chunk's array by a small scanner that
 * follows strings and nesting, so chunks are joined without parsing them; an
 * event is written only once it is complete, and a chunk that turns out to be
 * corrupt (bad gzip, cut-off JSON) loses its unfinished event but never makes
 * the answer invalid JSON.
 */
import { Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'
import { log } from '../log.js'

export interface StoredChunk {
  seq: number
  encoding: 'gzip' | 'json'
  /** The chunk's bytes, read when its turn comes; undefined if they are gone (purged meanwhile). */
  load(): Uint8Array | undefined
}

/** Output is written in batches of about this many bytes: fewer, larger writes than one per event. */
const BATCH_BYTES = 64 * 1024

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09
}

type State = 'start' | 'between' | 'element' | 'done' | 'invalid'

/**
 * Cuts the top-level elements out of one JSON array fed in pieces (or takes
 * a lone top-level object as one element). Not a validator: it trusts the
 * bytes to be JSON, as the tracker writes them, and only follows enough of
 * the syntax to find where each element ends.
 */
export class ArraySplitter {
  private state: State = 'start'
  private depth = 0
  private inString = false
  private escaped = false
  /** The element's first byte was not { or [: a number, string or literal. */
  private scalar = false
  private lone = false
  private parts: Buffer[] = []

  /** Feeds the next piece; calls `emit` with each element completed in it. */
  push(piece: Buffer, emit: (element: Buffer) => void): void {
    let start = this.state === 'element' ? 0 : -1
    for (let i = 0; i < piece.length; i++) {
      const byte = piece[i]
      switch (this.state) {
        case 'start':
          if (isSpace(byte)) continue
          if (byte === OPEN_BRACKET) this.state = 'between'
          else if (byte === OPEN_BRACE) {
            // A chunk holding a single event object rather than an array of them.
            this.lone = true
            start = this.begin(i, byte)
          } else this.state = 'invalid'
          continue
        case 'between':
          if (isSpace(byte) || byte === COMMA) continue
          if (byte === CLOSE_BRACKET) {
            this.state = 'done'
            continue
          }
          start = this.begin(i, byte)
          if (this.scalar && byte !== QUOTE) this.depth = 0
          continue
        case 'element':
          if (this.inString) {
            if (this.escaped) this.escaped = false
            else if (byte === BACKSLASH) this.escaped = true
            else if (byte === QUOTE) {
              this.inString = false
              if (this.scalar) {
                this.finish(piece, start, i + 1, emit)
                start = -1
              }
            }
            continue
          }
          if (this.scalar) {
            if (byte === COMMA || byte === CLOSE_BRACKET || isSpace(byte)) {
              this.finish(piece, start, i, emit)
              start = -1
              if (byte === CLOSE_BRACKET) this.state = 'done'
            }
            continue
          }
          if (byte === QUOTE) this.inString = true
          else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.depth += 1
          else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
            this.depth -= 1
            if (this.depth === 0) {
              this.finish(piece, start, i + 1, emit)
              start = -1
              if (this.lone) this.state = 'done'
            }
          }
          continue
        default:
          return
      }
    }
    if (this.state === 'element' && start !== -1) this.parts.push(piece.subarray(start))
  }

  /** Whether the array (or lone object) was read to its end. */
  get complete(): boolean {
    return this.state === 'done'
  }

  private begin(i: number, byte: number): number {
    this.state = 'element'
    this.parts = []
    this.scalar = byte !== OPEN_BRACE && byte !== OPEN_BRACKET
    this.inString = byte === QUOTE
    this.escaped = false
    this.depth = this.scalar ? 0 : 1
    return i
  }

  private finish(piece: Buffer, start: number, end: number, emit: (element: Buffer) => void): void {
    const tail = piece.subarray(start, end)
    emit(this.parts.length === 0 ? tail : Buffer.concat([...this.parts, tail]))
    this.parts = []
    if (this.state === 'element') this.state = 'between'
  }
}

/** Pieces of one chunk's JSON: the bytes as stored, or inflated a piece at a time. */
async function* piecesOf(chunk: StoredChunk, bytes: Uint8Array): AsyncGenerator<Buffer> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (chunk.encoding === 'json') {
    yield buffer
    return
  }
  const gunzip = createGunzip()
  gunzip.end(buffer)
  for await (const piece of gunzip) yield piece as Buffer
}

async function* eventBytes(chunks: Iterable<StoredChunk>): AsyncGenerator<Buffer> {
  let batch: Buffer[] = [Buffer.from('[')]
  let size = 1
  let first = true
  for (const chunk of chunks) {
    const bytes = chunk.load()
    if (!bytes) continue
    const splitter = new ArraySplitter()
    try {
      for await (const piece of piecesOf(chunk, bytes)) {
        splitter.push(piece, (element) => {
          if (!first) {
            batch.push(Buffer.from(','))
            size += 1
          }
          first = false
          batch.push(element)
          size += element.length
        })
        if (size >= BATCH_BYTES) {
          yield Buffer.concat(batch, size)
          batch = []
          size = 0
        }
      }
      if (!splitter.complete) log.warn('recording chunk ended inside its JSON; its unfinished event is left out', { seq: chunk.seq })
    } catch (error) {
      // A corrupt gzip chunk: the events before the damage are kept, the rest of this chunk is lost, the next chunk goes on.
      log.warn('recording chunk could not be decompressed', { seq: chunk.seq, error: String(error) })
    }
  }
  batch.push(Buffer.from(']'))
  yield Buffer.concat(batch, size + 1)
}

/** The recording's events as a byte stream of one JSON array; reads each chunk only when the reader wants more. */
export function recordingEvents(chunks: Iterable<StoredChunk>): Readable {
  return Readable.from(eventBytes(chunks), { objectMode: false })
}
