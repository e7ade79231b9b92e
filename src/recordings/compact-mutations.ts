/**
 * Puts back the `adds` of mutation events the tracker wrote compactly
 * (tracker/src/compact.ts, issue 32): in a chunk, an added node's content is
 * written the first time and is its index afterwards, and ids are differences.
 * The state lives for one chunk, in the order its events are read, so a chunk
 * read on its own (from a checkpoint, or after one that was lost) expands the
 * same. sessions.chunk answers the bytes as stored; sessions.events answers
 * ordinary rrweb events.
 *
 * An item of `a`: a number n (node n of the chunk, id one past the last, under
 * the node added just before, no next sibling), or [node, idStep = 1,
 * idMinusParent = 1, idMinusNext = 0 (none)], `node` an index or new content:
 * a string (a text node), [tagName, attributes?] (a childless element) or an
 * object (the node as rrweb serialized it, without its id).
 */

import { MAX_EVENT_BYTES } from './limits.js'

/** The start every mutation event has as the tracker serializes it. */
const MUTATION = Buffer.from('{"type":3,"data":{"source":0,')
const COMPACT = Buffer.from('"a":[')

type Node = Record<string, unknown>

/** An event with its adds put back, or the size it would have passed the caller's bound with. */
export type Expanded = { event: Buffer } | { tooLarge: number }

export class AddsExpander {
  private readonly nodes: Node[] = []
  /** By node index: its JSON's length, to bound what an event expands to before building it. */
  private readonly sizes: number[] = []
  private last = 0

  constructor(private readonly maxEventBytes: number) {}

  /** The event with its adds put back; as it is when it has none written compactly, or is not what the tracker writes. */
  expand(event: Buffer): Expanded {
    if (!event.subarray(0, MUTATION.length).equals(MUTATION) || event.indexOf(COMPACT) < 0) return { event }
    let parsed: { data: { a?: unknown; [key: string]: unknown } }
    try {
      parsed = JSON.parse(event.toString('utf8'))
    } catch {
      return { event }
    }
    const items = parsed.data?.a
    if (!Array.isArray(items)) return { event }
    const before = { nodes: this.nodes.length, last: this.last }
    const adds: unknown[] = []
    let size = event.length
    for (const item of items) {
      const add = this.one(item)
      if (!add) {
        // Not the tracker's writing: the event is answered as stored, and this chunk's state as before it.
        this.nodes.length = this.sizes.length = before.nodes
        this.last = before.last
        return { event }
      }
      // Past the bound the rest is still read: nodes it writes first are named by later events.
      size += add.size
      if (size <= this.maxEventBytes) adds.push(add.add)
    }
    if (size > this.maxEventBytes) return { tooLarge: size }
    const { a, ...data } = parsed.data
    return { event: Buffer.from(JSON.stringify({ ...parsed, data: { ...data, adds } })) }
  }

  private one(item: unknown): { add: unknown; size: number } | undefined {
    const [ref, idStep = 1, minusParent = 1, minusNext = 0] = typeof item === 'number' ? [item] : Array.isArray(item) ? item : []
    if (![idStep, minusParent, minusNext].every(Number.isSafeInteger)) return undefined
    const index = typeof ref === 'number' ? ref : this.nodes.length
    if (typeof ref !== 'number') {
      const content = contentNode(ref)
      if (!content) return undefined
      this.nodes.push(content)
      this.sizes.push(JSON.stringify(content).length)
    }
    const node = this.nodes[index]
    if (!node) return undefined
    const id = this.last + idStep
    this.last = id
    // The node's JSON and about what its ids and keys add.
    const size = this.sizes[index] + 60
    return { add: { parentId: id - minusParent, nextId: minusNext === 0 ? null : id - minusNext, node: { ...node, id } }, size }
  }
}

/** One chunk's events, parsed, as sessions.events answers them (an event past the bound stays as stored). */
export function expandedEvents<T>(events: T[], maxEventBytes = MAX_EVENT_BYTES): T[] {
  const expander = new AddsExpander(maxEventBytes)
  return events.map((event) => {
    const expanded = expander.expand(Buffer.from(JSON.stringify(event)))
    return 'event' in expanded ? (JSON.parse(expanded.event.toString('utf8')) as T) : event
  })
}

/** A node's content as the tracker wrote it the first time, as rrweb's serialized node without its id. */
function contentNode(content: unknown): Node | undefined {
  if (typeof content === 'string') return { type: 3, textContent: content }
  if (Array.isArray(content)) {
    const [tagName, attributes = {}] = content
    if (typeof tagName !== 'string' || typeof attributes !== 'object' || attributes === null || Array.isArray(attributes)) return undefined
    return { type: 2, tagName, attributes, childNodes: [] }
  }
  return content && typeof content === 'object' ? (content as Node) : undefined
}
