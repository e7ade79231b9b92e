/**
 * The events a page's tracker kept for a frame of another origin (`svc.frame`)
 * put where rrweb's replayer reads a frame's document: every id of the frame's
 * recording moved by the frame element's id, its full snapshot an added
 * document, its viewport dropped; anything else left as it was.
 */
import t from 'tap'
import { frameEventInPlace, isFrameEvent } from '../../src/recordings/frame-events.js'

const SPAN = 2 ** 26
const F = 7
const moved = (id: number) => F * SPAN + id
const kept = (e: unknown, f: unknown = F, r: unknown = 1) => Buffer.from(JSON.stringify({ type: 5, timestamp: 1000, data: { tag: 'svc.frame', payload: { f, r, e } } }))
const read = (e: unknown, max = 1_000_000) => {
  const out = frameEventInPlace(kept(e), max)
  return 'event' in out ? JSON.parse(out.event.toString('utf8')) : out
}

t.test('recognised by its first bytes only', async (t) => {
  t.ok(isFrameEvent(kept({ type: 3 })))
  t.notOk(isFrameEvent(Buffer.from(JSON.stringify({ type: 5, timestamp: 1, data: { tag: 'svc.live', payload: { note: '"tag":"svc.frame"' } } }))), 'another custom event naming it in its payload')
  t.notOk(isFrameEvent(Buffer.from('{"type":3,"timestamp":1,"data":{"tag":"svc.frame"}}')), 'not a custom event')
})

t.test('the full snapshot: a document added under the frame element, every node naming it as root', async (t) => {
  const node = { type: 0, id: 1, childNodes: [{ type: 2, tagName: 'html', id: 2, attributes: {}, childNodes: [{ type: 3, textContent: 'Pay', id: 3 }] }] }
  const out = read({ type: 2, timestamp: 900, data: { node, initialOffset: { top: 0, left: 0 } } })
  t.same(out, {
    type: 3,
    timestamp: 900,
    data: {
      source: 0,
      adds: [{ parentId: F, nextId: null, node: { type: 0, id: moved(1), childNodes: [{ type: 2, tagName: 'html', id: moved(2), attributes: {}, rootId: moved(1), childNodes: [{ type: 3, textContent: 'Pay', id: moved(3), rootId: moved(1) }] }] } }],
      removes: [],
      texts: [],
      attributes: [],
      isAttachIframe: true,
    },
  })
})

t.test('every id of an incremental event moves; -1 and null stay', async (t) => {
  const mutation = read({
    type: 3,
    timestamp: 950,
    data: { source: 0, adds: [{ parentId: 2, nextId: null, node: { type: 3, textContent: 'x', id: 9 } }], removes: [{ parentId: 2, id: 8 }], texts: [{ id: 9, value: 'y' }], attributes: [{ id: 2, attributes: { class: 'a' } }] },
  })
  t.same(mutation.data.adds, [{ parentId: moved(2), nextId: null, node: { type: 3, textContent: 'x', id: moved(9), rootId: moved(1) } }])
  t.same(mutation.data.removes, [{ parentId: moved(2), id: moved(8) }])
  t.same([mutation.data.texts[0].id, mutation.data.attributes[0].id], [moved(9), moved(2)])
  t.same(read({ type: 3, timestamp: 1, data: { source: 1, positions: [{ x: 1, y: 2, id: 4, timeOffset: 0 }, { x: 1, y: 2, id: -1, timeOffset: 0 }] } }).data.positions.map((p: { id: number }) => p.id), [moved(4), -1])
  t.equal(read({ type: 3, timestamp: 1, data: { source: 2, type: 2, id: 5, x: 1, y: 1 } }).data.id, moved(5), 'a click')
  t.equal(read({ type: 3, timestamp: 1, data: { source: 2, type: 2, id: 3 * SPAN + 5, x: 1, y: 1 } }).data.id, moved(5), 'an id past the range stays in the frame\'s (a frame names no node of the page\'s nor of another frame)')
  t.equal(read({ type: 3, timestamp: 1, data: { source: 5, id: 6, text: '***', isChecked: false } }).data.id, moved(6), 'an input')
  t.same(read({ type: 3, timestamp: 1, data: { source: 14, ranges: [{ start: 3, startOffset: 0, end: 4, endOffset: 1 }] } }).data.ranges[0], { start: moved(3), startOffset: 0, end: moved(4), endOffset: 1 })
  const adopted = read({ type: 3, timestamp: 1, data: { source: 15, id: 1, styleIds: [1, 2], styles: [{ styleId: 2, rules: [] }] } }).data
  t.same([adopted.id, adopted.styleIds, adopted.styles[0].styleId], [moved(1), [moved(1), moved(2)], moved(2)], 'adopted style sheets: node and style ids')
  const rule = read({ type: 3, timestamp: 1, data: { source: 8, styleId: 3, adds: [{ rule: 'a{}' }] } }).data
  t.same([rule.styleId, rule.id], [moved(3), undefined], 'a rule of a constructed sheet: its style id')
})

t.test('what has no place is left as it was', async (t) => {
  const viewport = kept({ type: 3, timestamp: 1, data: { source: 4, width: 400, height: 200 } })
  t.same(frameEventInPlace(viewport, 1e6), { event: viewport }, 'the frame\'s viewport: its element\'s size, which the page has')
  const meta = kept({ type: 4, timestamp: 1, data: { href: 'x' } })
  t.same(frameEventInPlace(meta, 1e6), { event: meta }, 'a Meta event')
  for (const f of [0, -3, 'x', 1.5]) {
    const bad = kept({ type: 3, timestamp: 1, data: { source: 2, id: 5 } }, f)
    t.same(frameEventInPlace(bad, 1e6), { event: bad }, `a frame id of ${JSON.stringify(f)}`)
  }
  const broken = Buffer.from('{"type":5,"timestamp":1,"data":{"tag":"svc.frame","payload":{')
  t.same(frameEventInPlace(broken, 1e6), { event: broken }, 'bytes that are not JSON')
  t.same(read({ type: 2, timestamp: 1, data: { node: { type: 0, id: 1, childNodes: [] } } }, 50), { tooLarge: 193 }, 'past the event bound: its size, for the caller to leave it out')
})
