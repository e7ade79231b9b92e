/**
 * A frame of another origin recorded in place (tracker/src/frames.ts): the
 * page's tracker keeps each event of the frame's tracker as a custom event
 * `svc.frame` with payload `{f, r, e}`: `f` the frame element's id in the
 * page's recording, `r` the id of the frame's document in the frame's own, `e`
 * the frame's rrweb event. This answers what rrweb's replayer reads for a
 * frame's document, as rrweb's own cross-origin recording would have written
 * it: the frame's full snapshot becomes a document added under the frame
 * element (`isAttachIframe`), and every id of the frame's recording (nodes and
 * style sheets) moves to a range of its own, f × FRAME_IDS + id, so that it
 * meets none of the page's. Nothing is kept between events: a part read alone,
 * or a live feed, reads the same.
 */
import type { Expanded } from './compact-mutations.js'

/** The ids of one frame's recording: the page's ids stay below it (a page adds far fewer nodes in a session). */
const FRAME_IDS = 2 ** 26
const CUSTOM = Buffer.from('{"type":5,')
const TAG = Buffer.from('"tag":"svc.frame"')

type Node = { id?: unknown; rootId?: unknown; type?: unknown; childNodes?: Node[] }
type Data = Record<string, any>

/** Whether `event` is one the page's tracker kept for a frame (its tag within the event's first bytes). */
export function isFrameEvent(event: Buffer): boolean {
  if (!event.subarray(0, CUSTOM.length).equals(CUSTOM)) return false
  const at = event.indexOf(TAG)
  return at >= 0 && at < 64
}

/** The frame's event as the replayer reads it; the event unchanged when it is not one the tracker writes. */
export function frameEventInPlace(event: Buffer, maxEventBytes: number): Expanded {
  let parsed: { timestamp?: unknown; data?: { payload?: { f?: unknown; r?: unknown; e?: unknown } } }
  try {
    parsed = JSON.parse(event.toString('utf8'))
  } catch {
    return { event }
  }
  const { f, r, e } = parsed.data?.payload ?? {}
  if (!Number.isSafeInteger(f) || (f as number) <= 0 || !e || typeof e !== 'object') return { event }
  const translated = inPlace(e as { type?: unknown; timestamp?: unknown; data?: Data }, f as number, r)
  if (!translated) return { event }
  const bytes = Buffer.from(JSON.stringify(translated))
  return bytes.length > maxEventBytes ? { tooLarge: bytes.length } : { event: bytes }
}

function inPlace(e: { type?: unknown; timestamp?: unknown; data?: Data }, frame: number, rootId: unknown): object | undefined {
  const data = e.data
  if (!data || typeof data !== 'object' || typeof e.timestamp !== 'number') return undefined
  // Whatever a frame writes stays in its own range: it can name none of the page's nodes, nor another frame's.
  const id = (n: unknown) => (Number.isSafeInteger(n) && (n as number) > 0 ? frame * FRAME_IDS + ((n as number) % FRAME_IDS) : n)
  const ids = (o: Data | undefined, keys: string[]) => {
    if (o && typeof o === 'object') for (const key of keys) o[key] = Array.isArray(o[key]) ? o[key].map(id) : id(o[key])
  }
  const each = (list: unknown, keys: string[]) => Array.isArray(list) && list.forEach((o) => ids(o, keys))
  const root = id(rootId)
  // Every node of the frame's document names that document as its root, as rrweb's own frames do.
  const node = (n: Node) => {
    if (!n || typeof n !== 'object') return
    ids(n, ['id', 'rootId'])
    if (n.type !== 0 && n.rootId === undefined) n.rootId = root
    if (Array.isArray(n.childNodes)) n.childNodes.forEach(node)
  }
  if (e.type === 2) {
    node(data.node)
    return { type: 3, timestamp: e.timestamp, data: { source: 0, adds: [{ parentId: frame, nextId: null, node: data.node }], removes: [], texts: [], attributes: [], isAttachIframe: true } }
  }
  if (e.type !== 3) return undefined
  switch (data.source) {
    case 0: // mutation
      each(data.adds, ['parentId', 'nextId', 'previousId'])
      if (Array.isArray(data.adds)) for (const add of data.adds) node(add?.node)
      each(data.removes, ['parentId', 'id'])
      each(data.texts, ['id'])
      each(data.attributes, ['id'])
      break
    case 1: // mouse move
    case 6: // touch move
    case 12: // drag
      each(data.positions, ['id'])
      break
    case 8: // style sheet rule
    case 13: // style declaration
      ids(data, ['id', 'styleId'])
      break
    case 14: // selection
      each(data.ranges, ['start', 'end'])
      break
    case 15: // adopted style sheets
      ids(data, ['id', 'styleIds'])
      each(data.styles, ['styleId'])
      break
    case 4: // the frame's viewport: its element's size, which the page's recording has
      return undefined
    default: // mouse interaction, scroll, input, media, canvas; fonts, logs and custom elements name no node
      ids(data, ['id'])
  }
  return e
}
