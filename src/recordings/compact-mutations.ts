/**
 * Puts back the `adds` of mutation events the tracker wrote compactly
 * (tracker/src/compact.ts, issues 32 and 47): an added node's content is
 * written the first time its page view's dictionary takes it and is its index
 * afterwards, in that chunk or a later one; ids are differences within a chunk.
 * sessions.chunk answers the bytes as stored; sessions.events and the live
 * feed answer ordinary rrweb events.
 *
 * The first event with `a` in a chunk carries `d`, the index its first new
 * content takes; `d` 0 restarts the page view's dictionary (the tracker does
 * at every checkpoint), so a part read from its checkpoint expands on its own.
 * The tracker names only contents of chunks the server acknowledged, so a
 * chunk lost or late leaves no reference unread. A chunk without `d` (the
 * tracker before issue 47) is read on a dictionary of its own, as then.
 *
 * An item of `a`: a number n (content n, id one past the last, under the node
 * added just before, no next sibling), or [content, idStep = 1, idMinusParent
 * = 1, idMinusNext = 0 (none)], content an index or new: a string (a text
 * node), [tagName, attributes?] (a childless element) or an object (the node
 * as rrweb serialized it, without its id).
 */

import { MAX_EVENT_BYTES } from './limits.js'

/** The start every mutation event has as the tracker serializes it. */
const MUTATION = Buffer.from('{"type":3,"data":{"source":0,')
const COMPACT = Buffer.from('"a":[')
/**
 * What one page view's dictionary may hold while a recording is read: 16 times the tracker's
 * DICT_MAX_CHARS and 8 times its entries, least recently used out first (the tracker names none older).
 */
const READ_MAX_CHARS = 16_000_000
const READ_MAX_ENTRIES = 64_000
/** Page views whose dictionaries are kept at once (tabs of a session interleave their chunks). */
const READ_MAX_PAGES = 8

type Node = Record<string, unknown>
/** A content and its JSON's length, to bound what an event expands to before building it. */
type Entry = { node: Node; size: number }

/** An event with its adds put back, or the size it would have passed the caller's bound with. */
export type Expanded = { event: Buffer } | { tooLarge: number }

class Contents {
  private readonly entries = new Map<number, Entry>()
  private chars = 0

  get(index: number): Entry | undefined {
    const entry = this.entries.get(index)
    // Used again: the Map's order is the order of last use, as the tracker's.
    if (entry) this.set(index, entry)
    return entry
  }

  set(index: number, entry: Entry): void {
    this.delete(index)
    this.entries.set(index, entry)
    this.chars += entry.size
    while (this.entries.size > READ_MAX_ENTRIES || this.chars > READ_MAX_CHARS) this.delete(this.entries.keys().next().value!)
  }

  delete(index: number): void {
    this.chars -= this.entries.get(index)?.size ?? 0
    this.entries.delete(index)
  }
}

/** The dictionaries of one recording's page views, kept across its chunks (one answer, or one live feed). */
export class SessionContents {
  private readonly pages = new Map<number, Contents>()

  /** The expander for the next chunk, of page view `pageIndex` (unknown: a dictionary of its own). */
  chunk(maxEventBytes: number, pageIndex?: number): AddsExpander {
    return new AddsExpander(maxEventBytes, (restart) => {
      if (pageIndex === undefined) return new Contents()
      let page = this.pages.get(pageIndex)
      this.pages.delete(pageIndex)
      if (!page || restart) page = new Contents()
      this.pages.set(pageIndex, page)
      if (this.pages.size > READ_MAX_PAGES) this.pages.delete(this.pages.keys().next().value!)
      return page
    })
  }
}

/** Reads the events of one chunk, in order. */
export class AddsExpander {
  /** The dictionary this chunk reads and adds to: settled by its first event with `a`. */
  private contents?: Contents
  private next = 0
  private last = 0

  constructor(
    private readonly maxEventBytes: number,
    private readonly dictionary: (restart: boolean) => Contents = () => new Contents(),
  ) {}

  /** The event with its adds put back; as it is when it has none written compactly, or is not what the tracker writes. */
  expand(event: Buffer): Expanded {
    if (!event.subarray(0, MUTATION.length).equals(MUTATION) || event.indexOf(COMPACT) < 0) return { event }
    let parsed: { timestamp?: unknown; data: { a?: unknown; d?: unknown; [key: string]: unknown } }
    try {
      parsed = JSON.parse(event.toString('utf8'))
    } catch {
      return { event }
    }
    const items = parsed.data?.a
    const base = parsed.data?.d
    if (!Array.isArray(items) || (base !== undefined && !Number.isSafeInteger(base))) return { event }
    // Without `d` (the tracker before issue 47), the chunk's first event starts a dictionary of the chunk's own.
    if (typeof base === 'number') {
      this.contents = this.dictionary(base === 0)
      this.next = base
    }
    const contents = (this.contents ??= new Contents())
    const before = { next: this.next, last: this.last }
    const adds: unknown[] = []
    let size = event.length
    for (const item of items) {
      const add = this.one(item)
      if (typeof add !== 'object') {
        // What it defined is forgotten. Not the tracker's writing: the event is answered as stored. A content this
        // answer never read (a part that does not start at its page view's checkpoint): a marker, which a replayer skips.
        for (let i = before.next; i < this.next; i++) contents.delete(i)
        Object.assign(this, before)
        return add === undefined ? { event } : { event: unread(add, parsed) }
      }
      // Past the bound the rest is still read: contents it writes first are named by later events.
      size += add.size
      if (size <= this.maxEventBytes) adds.push(add.add)
    }
    if (size > this.maxEventBytes) return { tooLarge: size }
    const { a, d, ...data } = parsed.data
    return { event: Buffer.from(JSON.stringify({ ...parsed, data: { ...data, adds } })) }
  }

  /** The add put back; undefined for what the tracker does not write, the index of a content not read. */
  private one(item: unknown): { add: unknown; size: number } | number | undefined {
    const [ref, idStep = 1, minusParent = 1, minusNext = 0] = typeof item === 'number' ? [item] : Array.isArray(item) ? item : []
    if (![idStep, minusParent, minusNext].every(Number.isSafeInteger)) return undefined
    let entry: Entry | undefined
    if (typeof ref === 'number') entry = this.contents!.get(ref)
    else {
      const node = contentNode(ref)
      if (node) this.contents!.set(this.next++, (entry = { node, size: JSON.stringify(node).length }))
    }
    if (!entry) return typeof ref === 'number' && Number.isSafeInteger(ref) ? ref : undefined
    const id = this.last + idStep
    this.last = id
    // The node's JSON and about what its ids and keys add.
    return { add: { parentId: id - minusParent, nextId: minusNext === 0 ? null : id - minusNext, node: { ...entry.node, id } }, size: entry.size + 60 }
  }
}

/** A recording's chunks' events, parsed, as sessions.events answers them (an event past the bound stays as stored). */
export function expandedEvents<T>(events: T[], session = new SessionContents(), pageIndex?: number, maxEventBytes = MAX_EVENT_BYTES): T[] {
  const expander = session.chunk(maxEventBytes, pageIndex)
  return events.map((event) => {
    const expanded = expander.expand(Buffer.from(JSON.stringify(event)))
    return 'event' in expanded ? (JSON.parse(expanded.event.toString('utf8')) as T) : event
  })
}

function unread(index: number, event: { timestamp?: unknown }): Buffer {
  const timestamp = typeof event.timestamp === 'number' ? event.timestamp : 0
  return Buffer.from(JSON.stringify({ type: 5, timestamp, data: { tag: 'svc.adds_unread', payload: { index } } }))
}

/** A node's content as the tracker wrote it the first time, as rrweb's serialized node without its id. */
function contentNode(content: unknown): Node | undefined {
  if (typeof content === 'string') return { type: 3, textContent: content }
  if (Array.isArray(content)) {
    const [tagName, attributes = {}] = content
    if (typeof tagName !== 'string' || typeof attributes !== 'object' || attributes === null || Array.isArray(attributes)) return undefined
    return { type: 2, tagName, attributes, childNodes: [] }
  }
  return content && typeof content === 'object' && !Array.isArray(content) ? (content as Node) : undefined
}
