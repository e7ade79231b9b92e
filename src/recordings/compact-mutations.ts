/**
 * Puts back the `adds`, `texts` and `attributes` of mutation events the
 * tracker wrote compactly (tracker/src/compact.ts, issues 32 and 47): an added
 * node's content, or a text or attribute value of at least MIN_VALUE_JSON
 * characters of JSON, is written the first time its page view's dictionary
 * takes it and is its index afterwards, in that chunk or a later one; ids are
 * differences within a chunk, parents and next siblings against the item before. sessions.chunk answers the bytes as stored;
 * sessions.events and the live feed answer ordinary rrweb events.
 *
 * The first event with `A` (or `a`), `t` or `at` in a chunk carries `d`, the index its
 * first new content takes; `d` 0 restarts the page view's dictionary (the
 * tracker does at every checkpoint), so a part read from its checkpoint expands
 * on its own. The tracker names only contents of chunks the server
 * acknowledged, so a chunk lost or late leaves no reference unread. A chunk
 * without `d` (the tracker before issue 47, which wrote `a` alone) is read on a
 * dictionary of its own, as then.
 *
 * An item of `A`: a number n (content n, id one past the last, under the parent
 * of the item before and just before it, as rrweb adds a node's children), or
 * [content, idStep = 1, idMinusParent = 0 (the parent of the item before, none
 * at the chunk's start), idMinusNext = idStep (the item before) when
 * idMinusParent is 0, else 0 (none)]. An item of `a` (the tracker up to
 * f4c9884, read as then): the same with idMinusParent = 1, always a
 * difference, and idMinusNext = 0; an event with both is not the tracker's.
 * Content is an index or new: a string (a text
 * node), [tagName, attributes?] (a childless element) or an object (the node
 * as rrweb serialized it, without its id). An item of `t`: [idStep, value]; of
 * `at`: [idStep, attributes], attributes an index (a whole {name: value} object
 * again) or {name: value}. A value is an index, or the value itself, which
 * takes the next index when it is a string or an object whose JSON is at least
 * MIN_VALUE_JSON characters; a {name: value} object written out takes the next
 * index after its values by the same rule. Indexes are taken in the order `A`,
 * `t`, `at`; `t` and `at` share a last id of their own.
 */

import { MAX_EVENT_BYTES } from './limits.js'

/** The start every mutation event has as the tracker serializes it. */
const MUTATION = Buffer.from('{"type":3,"data":{"source":0,')
/** Where an event carries lists the tracker wrote compactly. */
const COMPACT = ['"a":[', '"A":[', '"t":[', '"at":['].map((key) => Buffer.from(key))
/** The tracker's DICT_MIN_VALUE_JSON (tracker/src/config.ts): a value this long or longer takes an index. Part of the wire form. */
export const MIN_VALUE_JSON = 10
/**
 * What one page view's dictionary may hold while a recording is read: 16 times the tracker's
 * DICT_MAX_CHARS and 8 times its entries, least recently used out first (the tracker names none older).
 */
const READ_MAX_CHARS = 16_000_000
const READ_MAX_ENTRIES = 64_000
/** Page views whose dictionaries are kept at once (tabs of a session interleave their chunks). */
const READ_MAX_PAGES = 8

type Node = Record<string, unknown>
/** A node's content or a value, and its JSON's length, to bound what an event expands to before building it. */
type Entry = { node: Node; size: number } | { value: unknown; size: number }
/** What an item reads as: what it puts back, the index of a content not read, or undefined for what the tracker does not write. */
type Read<T> = { put: T; size: number } | number | undefined

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
  /** The dictionary this chunk reads and adds to: settled by its first event with `a`, `t` or `at`. */
  private contents?: Contents
  private next = 0
  /** The last id and parent of `a`'s (or `A`'s) items, and the last id of `t`'s and `at`'s. */
  private last = 0
  private lastParent?: number
  private lastChange = 0

  constructor(
    private readonly maxEventBytes: number,
    private readonly dictionary: (restart: boolean) => Contents = () => new Contents(),
  ) {}

  /** The event with its lists put back; as it is when it has none written compactly, or is not what the tracker writes. */
  expand(event: Buffer): Expanded {
    if (!event.subarray(0, MUTATION.length).equals(MUTATION) || !COMPACT.some((key) => event.indexOf(key) >= 0)) return { event }
    let parsed: { timestamp?: unknown; data: { a?: unknown; A?: unknown; t?: unknown; at?: unknown; d?: unknown; [key: string]: unknown } }
    try {
      parsed = JSON.parse(event.toString('utf8'))
    } catch {
      return { event }
    }
    const { a, A, t, at, d: base, ...data } = parsed.data ?? {}
    // `A` is `a` with ids written against the item before (since issue 47's ids); both at once is not the tracker's.
    const lists = [A ?? a, t, at]
    if (a !== undefined && A !== undefined) return { event }
    if (lists.every((list) => list === undefined) || !lists.every((list) => list === undefined || Array.isArray(list))) return { event }
    if (base !== undefined && !Number.isSafeInteger(base)) return { event }
    // Without `d` (the tracker before issue 47), the chunk's first event starts a dictionary of the chunk's own.
    if (typeof base === 'number') {
      this.contents = this.dictionary(base === 0)
      this.next = base
    }
    const contents = (this.contents ??= new Contents())
    const before = { next: this.next, last: this.last, lastParent: this.lastParent, lastChange: this.lastChange }
    let size = event.length
    const put: Record<string, unknown[]> = {}
    // In the tracker's order: indexes are taken as contents come.
    for (const [i, key] of (['adds', 'texts', 'attributes'] as const).entries()) {
      const items = lists[i] as unknown[] | undefined
      if (!items) continue
      const read = i === 0 ? (item: unknown) => this.one(item, A !== undefined) : (item: unknown) => this.change(item, i === 1)
      put[key] = []
      for (const item of items) {
        const got = read(item)
        if (typeof got !== 'object') {
          // What it defined is forgotten. Not the tracker's writing: the event is answered as stored. A content this
          // answer never read (a part that does not start at its page view's checkpoint): a marker, which a replayer skips.
          for (let index = before.next; index < this.next; index++) contents.delete(index)
          Object.assign(this, before)
          return got === undefined ? { event } : { event: unread(got, parsed) }
        }
        // Past the bound the rest is still read: contents it writes first are named by later events.
        size += got.size
        if (size <= this.maxEventBytes) put[key].push(got.put)
      }
    }
    if (size > this.maxEventBytes) return { tooLarge: size }
    return { event: Buffer.from(JSON.stringify({ ...parsed, data: { ...data, ...put } })) }
  }

  /**
   * An item of `a` or (`sibling`) of `A` put back as an add. In `A`, idMinusParent 0 (the default) is the parent of
   * the item before, and idMinusNext's default is then the item before (rrweb adds siblings last first), else none.
   */
  private one(item: unknown, sibling: boolean): Read<unknown> {
    const written = typeof item === 'number' ? [item] : Array.isArray(item) ? item : []
    const [ref, idStep = 1, minusParent = sibling ? 0 : 1, minusNext = sibling && minusParent === 0 ? idStep : 0] = written
    if (![idStep, minusParent, minusNext].every(Number.isSafeInteger)) return undefined
    if (sibling && minusParent === 0 && this.lastParent === undefined) return undefined // no item before in the chunk
    let entry: Entry | undefined
    if (typeof ref === 'number') entry = this.contents!.get(ref)
    else {
      const node = contentNode(ref)
      if (node) this.contents!.set(this.next++, (entry = { node, size: JSON.stringify(node).length }))
    }
    if (!entry) return typeof ref === 'number' && Number.isSafeInteger(ref) ? ref : undefined
    if (!('node' in entry)) return undefined // a value where a node belongs: not the tracker's writing
    const id = this.last + idStep
    const parentId = sibling && minusParent === 0 ? this.lastParent! : id - minusParent
    this.last = id
    this.lastParent = parentId
    // The node's JSON and about what its ids and keys add.
    return { put: { parentId, nextId: minusNext === 0 ? null : id - minusNext, node: { ...entry.node, id } }, size: entry.size + 60 }
  }

  /** An item of `t` ([idStep, value]) or `at` ([idStep, {name: value}]) put back as rrweb's text or attribute change. */
  private change(item: unknown, text: boolean): Read<unknown> {
    if (!Array.isArray(item) || item.length !== 2 || !Number.isSafeInteger(item[0])) return undefined
    const id = this.lastChange + item[0]
    let size = 20
    let put: unknown
    if (text) {
      const value = this.value(item[1])
      if (typeof value !== 'object') return value
      put = { id, value: value.put }
      size += value.size
    } else {
      const named = item[1]
      if (typeof named === 'number') {
        // The whole object again.
        const whole = this.value(named)
        if (typeof whole !== 'object') return whole
        if (!isObject(whole.put)) return undefined
        put = { id, attributes: whole.put }
        size += whole.size
      } else {
        if (!isObject(named)) return undefined
        const read: [string, unknown][] = []
        for (const [name, written] of Object.entries(named)) {
          const value = this.value(written)
          if (typeof value !== 'object') return value
          read.push([name, value.put])
          size += value.size
        }
        const attributes = Object.fromEntries(read)
        // After its values, the object takes the next index, as the tracker's.
        const json = JSON.stringify(attributes)
        if (json.length >= MIN_VALUE_JSON) this.contents!.set(this.next++, { value: attributes, size: json.length })
        put = { id, attributes }
      }
    }
    this.lastChange = id
    return { put, size }
  }

  /** A value as written: an index, or itself (defining the next index when long enough). */
  private value(written: unknown): Read<unknown> {
    if (typeof written === 'number') {
      if (!Number.isSafeInteger(written)) return undefined
      const entry = this.contents!.get(written)
      if (!entry) return written
      return 'value' in entry ? { put: entry.value, size: entry.size } : undefined
    }
    if (written !== null && (typeof written === 'string' || typeof written === 'object')) {
      const json = JSON.stringify(written)
      if (json.length >= MIN_VALUE_JSON) this.contents!.set(this.next++, { value: written, size: json.length })
    }
    // Inline, it is counted in the event's own length.
    return { put: written, size: 0 }
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

const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value)

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
