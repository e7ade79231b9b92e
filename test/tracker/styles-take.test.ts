/**
 * Where the tracker sets stylesheet texts aside (tracker/src/styles.ts), run
 * in Node: `take` finds `_cssText` wherever an event holds nodes (a full
 * snapshot's tree, a change's added nodes and attributes, a frame's event)
 * and leaves the rest alone; `link` falls back to rrweb's text where the file
 * cannot be read from the cache. The browser's side (the cache read, the
 * replay) is test/tracker/stylesheets-once.test.ts.
 */
import t from 'tap'
import { createStyles } from '../../tracker/src/styles.js'
import type { Transport } from '../../tracker/src/transport.js'

const transport: Transport = { send: async () => 'ok', beacon: () => true, stopped: false, counters: { sent: 0, retries: 0, failed: 0, refused: 0 } }
const big = (name: string) => `.${name} { color: red }`.repeat(200)
const marks = (event: object) => JSON.stringify(event).match(/"_svcCss":"\\u0001\d+"/g) ?? []

t.test('take sets large texts aside wherever an event holds nodes, and nothing else', async (t) => {
  const styles = createStyles(transport)
  const snapshot = { type: 2, data: { node: { type: 0, childNodes: [{ type: 2, tagName: 'head', attributes: {}, childNodes: [{ type: 2, tagName: 'style', attributes: { _cssText: big('a') }, childNodes: [] }] }] } } }
  const change = {
    type: 3,
    data: { source: 0, adds: [{ parentId: 1, node: { type: 2, tagName: 'style', attributes: { _cssText: big('b') }, childNodes: [] } }], attributes: [{ id: 4, attributes: { _cssText: big('c') } }], texts: [], removes: [] },
  }
  const frame = { type: 5, data: { tag: 'svc.frame', payload: { f: 3, r: 1, e: { type: 2, data: { node: { type: 2, tagName: 'style', attributes: { _cssText: big('d') }, childNodes: [] } } } } } }
  const small = { type: 3, data: { source: 0, adds: [{ parentId: 1, node: { type: 2, tagName: 'style', attributes: { _cssText: '.e { color: blue }' }, childNodes: [] } }], attributes: [], texts: [], removes: [] } }
  const move = { type: 3, data: { source: 1, positions: [{ x: 1, y: 2, id: 3, timeOffset: 0 }] } }
  // A mouse move holds no nodes: taken like the rest, without a fault.
  for (const event of [snapshot, change, frame, small, move]) styles.take(event)
  t.equal(marks(snapshot).length, 1, "the snapshot's `<style>`")
  t.equal(marks(change).length, 2, "an added node's and a changed attribute's")
  t.equal(marks(frame).length, 1, "a frame's snapshot")
  t.same(small.data.adds[0].node.attributes, { _cssText: '.e { color: blue }' }, 'a small text stays inline')
  const text = styles.inline(JSON.stringify(change))
  t.ok(text.includes(JSON.stringify(big('b'))) && text.includes(JSON.stringify(big('c'))), 'inline puts each text back')
})

t.test("link takes rrweb's text for a sheet of another origin and for one changed through the CSSOM", async (t) => {
  Object.assign(globalThis, { location: { origin: 'http://site.test' } })
  t.teardown(() => void delete (globalThis as { location?: unknown }).location)
  const styles = createStyles(transport)
  const stringified: string[] = []
  const stringify = (sheet: CSSStyleSheet) => (stringified.push(sheet.href!), `rrweb's text of ${sheet.href}`)
  const absolutify = (text: string) => text
  const foreign = { href: 'http://cdn.test/site.css' } as CSSStyleSheet
  t.equal(styles.link(foreign, stringify, absolutify), "rrweb's text of http://cdn.test/site.css", 'another origin: rrweb reads it')
  const own = { href: 'http://site.test/site.css' } as CSSStyleSheet
  styles.changed(own)
  t.equal(styles.link(own, stringify, absolutify), "rrweb's text of http://site.test/site.css", 'changed through the CSSOM: rrweb reads it')
  t.same(stringified, ['http://cdn.test/site.css', 'http://site.test/site.css'])
})
