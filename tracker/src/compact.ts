/**
 * Added nodes written once per session (issues 32 and 47). A page that
 * re-renders (an editor's suggestion list on every keystroke, a grid's rows
 * as it scrolls) makes rrweb add the same nodes again and again under new
 * ids, in every chunk of the session. So, when a chunk is sent, each mutation
 * event's `adds` becomes `a`: a node's content (without its id) is written the
 * first time and takes the next index of the page view's dictionary; later adds
 * of the same content, in this chunk or a later one, name the index; ids are
 * differences, mostly 1. The first event with `a` in each chunk carries `d`,
 * the index its first new content takes, so a lost chunk shifts nothing.
 *
 * The rule that keeps every reference readable: a chunk names only contents
 * it wrote itself or that a chunk the server acknowledged wrote (`settle`);
 * a chunk lost, refused or split again takes its contents out, and they are
 * written whole again. The dictionary restarts (`d` 0) at every checkpoint
 * and page view, so a part read from its checkpoint needs nothing before it,
 * and keeps at most DICT_MAX_ENTRIES contents and DICT_MAX_CHARS of their
 * JSON, the least recently used out first.
 *
 * Item of `a`: a number n (content n, id + 1, under the node added just
 * before, no next sibling), or [content, idStep = 1, idMinusParent = 1,
 * idMinusNext = 0 (none)], content an index or new: a string (a text node),
 * [tagName, attributes?] (a childless element) or the node as rrweb
 * serialized it, without `id`. The events API (src/recordings/
 * compact-mutations.ts) puts back `adds`.
 */
import { DICT_MAX_CHARS, DICT_MAX_ENTRIES } from './config.js'

interface Add {
  parentId: number
  nextId: number | null
  node: { id: number; type: number; [key: string]: unknown }
}

/** A content's index and JSON length; `by` is the write that defined it until the server acknowledges that. */
interface Entry {
  i: number
  n: number
  by?: object
}

export interface Written {
  parts: string[]
  /** The chunk's upload was answered: ok keeps what it defined for later chunks, else it is forgotten. */
  settle(ok: boolean): void
}

export interface Dictionary {
  /** `scope` names the page view; `restart` is a checkpoint. */
  write(parts: string[], scope: string, restart?: boolean): Written
  readonly size: number
  readonly chars: number
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

export function createDictionary(maxEntries = DICT_MAX_ENTRIES, maxChars = DICT_MAX_CHARS): Dictionary {
  let entries = new Map<string, Entry>()
  let next = 0
  let chars = 0
  let scope = ''
  const forget = (key: string) => {
    chars -= entries.get(key)?.n ?? 0
    entries.delete(key)
  }
  return {
    get size() {
      return entries.size
    },
    get chars() {
      return chars
    },
    write(parts, at, restart) {
      if (restart || at !== scope) {
        entries = new Map()
        next = chars = 0
        scope = at
      }
      const mine = {}
      const map = entries
      const defined: string[] = []
      let last = 0
      let base: number | undefined = next
      const one = (add: Add): unknown => {
        const { id, ...node } = add.node
        const key = JSON.stringify(node)
        let entry = map.get(key)
        const known = entry && (!entry.by || entry.by === mine)
        forget(key)
        if (!known) {
          entry = { i: next++, n: key.length, by: mine }
          defined.push(key)
        }
        // Set again: the Map's order is the order of last use, oldest first out.
        map.set(key, entry!)
        chars += entry!.n
        while (map.size > maxEntries || chars > maxChars) forget(map.keys().next().value!)
        const item = [known ? entry!.i : content(node), id - last, id - add.parentId, add.nextId === null ? 0 : id - add.nextId]
        last = id
        while (item.length > 1 && item[item.length - 1] === (item.length > 3 ? 0 : 1)) item.pop()
        return item.length === 1 && known ? item[0] : item
      }
      const out = parts.map((part) => {
        if (!part.startsWith('{"type":3,"data":{"source":0,')) return part
        const event = JSON.parse(part)
        const { adds, ...data } = event.data
        // Something rrweb may add one day (previousId, …) leaves the event as it is.
        if (!adds?.length || !adds.every(plain)) return part
        event.data = { ...data, d: base, a: adds.map(one) }
        base = undefined
        return JSON.stringify(event)
      })
      return {
        parts: out,
        settle(ok) {
          if (map !== entries) return // restarted meanwhile: nothing of it is named again
          for (const key of defined) {
            const entry = map.get(key)
            if (entry?.by !== mine) continue
            if (ok) entry.by = undefined
            else forget(key)
          }
        },
      }
    },
  }
}

/** One chunk's events written on a dictionary of their own (tests, and the benchmark's "before"). */
export const compactAdds = (parts: string[]): string[] => createDictionary().write(parts, '').parts
