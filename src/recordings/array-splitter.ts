/**
 * Cuts the top-level elements out of one JSON array fed in pieces (or takes
 * a lone top-level object as one element), for src/recordings/events.ts.
 * Not a validator: it trusts the bytes to be JSON, as the tracker writes
 * them, and only follows enough of the syntax to find where each element ends.
 *
 * An element longer than the splitter's limit is never held whole: once it
 * passes the limit its pieces are let go and it is only scanned to its end,
 * then reported by size. Work is linear in the bytes fed: inside strings, a
 * long run of plain bytes is skipped with indexOf to the next quote or backslash,
 * each position searched over at most once.
 */

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
/** Plain bytes in a row inside a string before the scan jumps ahead with indexOf. */
const PLAIN_RUN = 16
/** Bytes of a dropped element's end kept, enough for its `"timestamp":…}`. */
const TAIL_BYTES = 48

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09
}

type State = 'start' | 'between' | 'element' | 'done' | 'invalid'

/** Called with an element that passed the limit: its size in bytes and its last few bytes. */
export type Dropped = (bytes: number, tail: Buffer) => void

export class ArraySplitter {
  private state: State = 'start'
  private depth = 0
  private inString = false
  private escaped = false
  /** The element's first byte was not { or [: a number, string or literal. */
  private scalar = false
  private lone = false
  private parts: Buffer[] = []
  /** Bytes of the current element seen in earlier pieces. */
  private held = 0
  /** The current element passed the limit: its bytes are counted, not kept. */
  private skipping = false
  private tail: Buffer = Buffer.alloc(0)

  constructor(private readonly maxElementBytes = Number.POSITIVE_INFINITY) {}

  /** Feeds the next piece; calls `emit` with each element completed in it, `dropped` for each one over the limit. */
  push(piece: Buffer, emit: (element: Buffer) => void, dropped: Dropped = () => {}): void {
    let start = this.state === 'element' ? 0 : -1
    // Where the next quote and backslash are at or after the scan position; -1 until first looked for.
    let nextQuote = -1
    let nextBackslash = -1
    let plain = 0
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
            if (this.escaped) {
              this.escaped = false
              continue
            }
            if (byte === BACKSLASH) {
              this.escaped = true
              plain = 0
              continue
            }
            if (byte !== QUOTE) {
              // Short runs go byte by byte (a call costs more than a few bytes); a long run jumps to just before the next quote or backslash, where the loop's i++ lands.
              if (++plain < PLAIN_RUN) continue
              plain = 0
              if (nextQuote < i) nextQuote = indexOrEnd(piece, QUOTE, i)
              if (nextBackslash < i) nextBackslash = indexOrEnd(piece, BACKSLASH, i)
              i = Math.min(nextQuote, nextBackslash) - 1
              continue
            }
            this.inString = false
            if (this.scalar) {
              this.finish(piece, start, i + 1, emit, dropped)
              start = -1
            }
            continue
          }
          if (this.scalar) {
            if (byte === COMMA || byte === CLOSE_BRACKET || isSpace(byte)) {
              this.finish(piece, start, i, emit, dropped)
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
              this.finish(piece, start, i + 1, emit, dropped)
              start = -1
              if (this.lone) this.state = 'done'
            }
          }
          continue
        default:
          return
      }
    }
    if (this.state === 'element' && start !== -1) this.keep(piece.subarray(start))
  }

  /** Whether the array (or lone object) was read to its end. */
  get complete(): boolean {
    return this.state === 'done'
  }

  private begin(i: number, byte: number): number {
    this.state = 'element'
    this.parts = []
    this.held = 0
    this.skipping = false
    this.scalar = byte !== OPEN_BRACE && byte !== OPEN_BRACKET
    this.inString = byte === QUOTE
    this.escaped = false
    this.depth = this.scalar ? 0 : 1
    return i
  }

  /** The unfinished element's bytes at the end of a piece: kept, or only counted once past the limit. */
  private keep(rest: Buffer): void {
    this.held += rest.length
    if (!this.skipping && this.held > this.maxElementBytes) {
      this.skipping = true
      this.parts = []
    }
    if (this.skipping) this.tail = tailOf(this.tail, rest)
    else this.parts.push(rest)
  }

  private finish(piece: Buffer, start: number, end: number, emit: (element: Buffer) => void, dropped: Dropped): void {
    const last = piece.subarray(start, end)
    const size = this.held + last.length
    if (this.skipping || size > this.maxElementBytes) dropped(size, tailOf(this.skipping ? this.tail : Buffer.alloc(0), last))
    else emit(this.parts.length === 0 ? last : Buffer.concat([...this.parts, last]))
    this.parts = []
    this.held = 0
    this.skipping = false
    this.tail = Buffer.alloc(0)
    if (this.state === 'element') this.state = 'between'
  }
}

function indexOrEnd(piece: Buffer, byte: number, from: number): number {
  const at = piece.indexOf(byte, from)
  return at === -1 ? piece.length : at
}

/** The last TAIL_BYTES of `before` followed by `more`, copied so no large piece is kept alive by it. */
function tailOf(before: Buffer, more: Buffer): Buffer {
  if (more.length >= TAIL_BYTES) return Buffer.from(more.subarray(more.length - TAIL_BYTES))
  const joined = Buffer.concat([before, more])
  return Buffer.from(joined.subarray(Math.max(0, joined.length - TAIL_BYTES)))
}
