/**
 * Added nodes written once per chunk (issue 32). A page that re-renders (an
 * editor's suggestion list on every keystroke) makes rrweb add the same nodes
 * again and again under new ids; gzip's 32 KB window misses most repeats in a
 * chunk of 256 KB, and the fresh ids between them defeat it anyway. So, at the
 * moment a chunk is sent, each mutation event's `adds` becomes `a`: a node's
 * content (without its id) is written the first time the chunk adds it and is
 * its index in the chunk afterwards, and the ids are differences, mostly 1.
 *
 * Item of `a`: a number n (node n of this chunk, id + 1, under the node added
 * just before, no next sibling), or [node, idStep = 1, idMinusParent = 1,
 * idMinusNext = 0 (none)] with `node` an index or new content: a string (a
 * text node), [tagName, attributes?] (a childless element) or the node as
 * rrweb serialized it, without `id`. The events API (src/recordings/
 * compact-mutations.ts) puts back `adds`; a chunk needs nothing outside it.
 */

interface Add {
  parentId: number
  nextId: number | null
  node: { id: number; type: number; [key: string]: unknown }
}

/** The shortest form of a node's content: the two shapes that make nearly every add, else the object. */
function content(node: Record<string, unknown>): unknown {
  const keys = Object.keys(node).join()
  if (keys === 'type,textContent') return node.textContent
  if (keys === 'type,tagName,attributes,childNodes' && !(node.childNodes as unknown[]).length) {
    return Object.keys(node.attributes as object).length ? [node.tagName, node.attributes] : [node.tagName]
  }
  return node
}

// A next sibling that is the node itself (never from rrweb) would read as none.
const plain = (add: Add) => Object.keys(add).length === 3 && typeof add.parentId === 'number' && typeof add.node?.id === 'number' && add.nextId !== add.node.id

/** The chunk's events (JSON texts) with every mutation's adds written compactly; others as they are. */
export function compactAdds(parts: string[]): string[] {
  const seen = new Map<string, number>()
  let last = 0
  const one = (add: Add): unknown => {
    const { id, ...node } = add.node
    const key = JSON.stringify(node)
    const index = seen.get(key)
    if (index === undefined) seen.set(key, seen.size)
    const item = [index ?? content(node), id - last, id - add.parentId, add.nextId === null ? 0 : id - add.nextId]
    last = id
    while (item.length > 1 && item[item.length - 1] === (item.length > 3 ? 0 : 1)) item.pop()
    return item.length === 1 && index !== undefined ? index : item
  }
  return parts.map((part) => {
    if (!part.startsWith('{"type":3,"data":{"source":0,')) return part
    const event = JSON.parse(part)
    const { adds, ...data } = event.data
    // Something rrweb may add one day (previousId, …) leaves the event as it is.
    if (!adds?.length || !adds.every(plain)) return part
    event.data = { ...data, a: adds.map(one) }
    return JSON.stringify(event)
  })
}
