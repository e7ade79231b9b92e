/**
 * Added nodes, texts and attribute values written once per session (issues 32
 * and 47). A page that re-renders (an editor's suggestion list on every
 * keystroke, a grid's rows as it scrolls) makes rrweb add the same nodes again
 * and again under new ids, and set the same texts and attribute values again,
 * in every chunk of the session. So, when a chunk is sent, each mutation
 * event's `adds` becomes `A`: a node's content (without its id) is written the
 * first time and takes the next index of the page view's dictionary; later adds
 * of the same content, in this chunk or a later one, name the index; ids are
 * differences, mostly 1, and parents and next siblings are written against the
 * item before. Its `texts` become `t` and its `attributes` `at` the
 * same way: a value whose JSON is at least DICT_MIN_VALUE_JSON characters (a
 * string, or rrweb's style object) is written the first time and takes the next
 * index of the same dictionary, and is named by it afterwards; a shorter value,
 * null, or any value of a list that is not rrweb's plain shape, stays inline.
 * rrweb masks before it emits, so what enters is what the chunk would carry.
 * The first event with `A`, `t` or `at` in each chunk carries `d`, the index
 * its first new content takes, so a lost chunk shifts nothing.
 *
 * The rule that keeps every reference readable: a chunk names only contents
 * it wrote itself or that a chunk the server acknowledged wrote (`settle`);
 * a chunk lost, refused or split again takes its contents out, and they are
 * written whole again. The dictionary restarts (`d` 0) at every checkpoint
 * and page view, so a part read from its checkpoint needs nothing before it,
 * and keeps at most DICT_MAX_ENTRIES contents and DICT_MAX_CHARS of their
 * JSON, values included, the least recently used out first.
 *
 * Item of `A`: a number n (content n, id + 1, under the parent of the item
 * before, just before it), or [content, idStep = 1, idMinusParent = 0 (the
 * parent of the item before; never so for a chunk's first item), idMinusNext
 * = idStep (the item before) when idMinusParent is 0, else 0 (none)]: rrweb
 * adds a node's children last first, one after another. (`a`, up to f4c9884:
 * idMinusParent = 1, always a difference, and idMinusNext = 0; still read by
 * the server.) Content is an index or new: a string (a text node),
 * [tagName, attributes?] (a childless element) or the node as rrweb
 * serialized it, without `id`. Item of `t`: [idStep, value]; of `at`:
 * [idStep, attributes], attributes an index (the whole {name: value} object
 * again) or {name: value}, which, when its JSON is long enough, takes the next
 * index after its values; a value is an index (a number) or the value itself.
 * `t` and `at` share a last id of their own (0 at the chunk's start), taken in
 * that order, after `A`. The events API (src/recordings/compact-mutations.ts)
 * puts back `adds`, `texts` and `attributes`.
 */
import { DICT_MAX_CHARS, DICT_MAX_ENTRIES, DICT_MIN_VALUE_JSON } from './config.js'

interface Add {
  parentId: number
  nextId: number | null
  node: { id: number; type: number; [key: string]: unknown }
}
type Change = { id: number; value?: unknown; attributes?: Record<string, unknown> }

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

// A parent or next sibling that is the node itself (never from rrweb) would read as the same parent, or none.
const plain = (add: Add) =>
  Object.keys(add).length === 3 && typeof add.parentId === 'number' && typeof add.node?.id === 'number' && add.parentId !== add.node.id && add.nextId !== add.node.id

/** rrweb's text and attribute changes, exactly; a number as a value would read as an index. */
const plainText = (x: Change) => Object.keys(x).join() === 'id,value' && typeof x.id === 'number' && typeof x.value !== 'number'
const plainAttributes = (x: Change) =>
  Object.keys(x).join() === 'id,attributes' &&
  typeof x.id === 'number' &&
  !!x.attributes &&
  typeof x.attributes === 'object' &&
  !Array.isArray(x.attributes) &&
  Object.values(x.attributes).every((v) => typeof v !== 'number')

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
      let lastParent: number | undefined
      let lastChange = 0
      let base: number | undefined = next
      /** The entry of `key`, known (defined by this write or an acknowledged one) or defined now, as the last used. */
      const use = (key: string, n: number): [Entry, boolean] => {
        let entry = map.get(key)
        const known = !!entry && (!entry.by || entry.by === mine)
        forget(key)
        if (!known) {
          entry = { i: next++, n, by: mine }
          defined.push(key)
        }
        // Set again: the Map's order is the order of last use, oldest first out.
        map.set(key, entry!)
        chars += entry!.n
        while (map.size > maxEntries || chars > maxChars) forget(map.keys().next().value!)
        return [entry!, known]
      }
      const one = (add: Add): unknown => {
        const { id, ...node } = add.node
        const key = JSON.stringify(node)
        const [entry, known] = use(key, key.length)
        const step = id - last
        const sibling = add.parentId === lastParent
        const item = [known ? entry.i : content(node), step, sibling ? 0 : id - add.parentId, add.nextId === null ? 0 : id - add.nextId]
        last = id
        lastParent = add.parentId
        // Defaults of idStep, parent and next: 1, the same parent, the item before (a sibling's) or none.
        const defaults = [1, 0, sibling ? step : 0]
        while (item.length > 1 && item[item.length - 1] === defaults[item.length - 2]) item.pop()
        return item.length === 1 && known ? item[0] : item
      }
      // A value's key starts with `v`, a whole attributes object's with `o`, a node's with `{`: they never meet.
      const value = (v: unknown): unknown => {
        if (v === null || (typeof v !== 'string' && typeof v !== 'object')) return v
        const json = JSON.stringify(v)
        if (json.length < DICT_MIN_VALUE_JSON) return v
        const [entry, known] = use('v' + json, json.length)
        return known ? entry.i : v
      }
      // A node's attributes set again all alike (a toolbar's role, a row's class and style) are one index: the
      // object's key starts with `o`. Written out, its values come first, then the object takes the next index.
      const attributes = (x: Change): unknown[] => {
        const json = JSON.stringify(x.attributes)
        const id = step(x.id)
        if (json.length < DICT_MIN_VALUE_JSON) return [id, x.attributes] // every value shorter still
        const entry = map.get('o' + json)
        const named = entry && (!entry.by || entry.by === mine) ? undefined : Object.fromEntries(Object.entries(x.attributes!).map(([k, v]) => [k, value(v)]))
        const [whole] = use('o' + json, json.length)
        return [id, named ?? whole.i]
      }
      const step = (id: number) => {
        const difference = id - lastChange
        lastChange = id
        return difference
      }
      const out = parts.map((part) => {
        if (!part.startsWith('{"type":3,"data":{"source":0,')) return part
        const event = JSON.parse(part)
        const data = event.data
        // Something rrweb may add one day (previousId, …) leaves its list as it is.
        const lists = [data.adds?.length && data.adds.every(plain), data.texts?.length && data.texts.every(plainText), data.attributes?.length && data.attributes.every(plainAttributes)]
        if (!lists.some(Boolean)) return part
        const compact: Record<string, unknown> = { d: base }
        // In this order, which the reader follows: indexes are taken as contents come.
        if (lists[0]) compact.A = (data.adds as Add[]).map(one)
        if (lists[1]) compact.t = (data.texts as Change[]).map((x) => [step(x.id), value(x.value)])
        if (lists[2]) compact.at = (data.attributes as Change[]).map(attributes)
        for (const [i, key] of ['adds', 'texts', 'attributes'].entries()) if (lists[i]) delete data[key]
        event.data = { ...data, ...compact }
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
