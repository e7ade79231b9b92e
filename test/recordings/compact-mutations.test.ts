/**
 * Added nodes written once per chunk: the tracker's writing (tracker/src/compact.ts)
 * and the events API's reading (src/recordings/compact-mutations.ts) give back
 * the events rrweb emitted, chunk by chunk, whatever the adds are.
 */
import { gzipSync } from 'node:zlib'
import fc from 'fast-check'
import t from 'tap'
import { compactAdds } from '../../tracker/src/compact.js'
import { AddsExpander } from '../../src/recordings/compact-mutations.js'
import { recordingEvents, type StoredChunk } from '../../src/recordings/events.js'

/** A mutation event as rrweb emits it and the tracker serializes it (keys in this order). */
const mutation = (adds: unknown[], timestamp: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 3, data: { source: 0, texts: [], attributes: [], removes: [], adds, ...extra }, timestamp })

const element = (id: number, parentId: number, nextId: number | null, tagName = 'span', attributes: Record<string, string> = {}) => ({
  parentId,
  nextId,
  node: { type: 2, tagName, attributes, childNodes: [], id },
})
const text = (id: number, parentId: number, textContent: string) => ({ parentId, nextId: null, node: { type: 3, textContent, id } })

/** A suggestion row re-rendered under new ids, as an editor does on every keystroke. */
const row = (base: number, parent: number, label: string) => [
  element(base, parent, null, 'div', { class: 'monaco-list-row', role: 'option' }),
  element(base + 1, base, null, 'span', { class: 'suggest-icon codicon' }),
  element(base + 2, base, base + 1, 'span', { class: 'label-name' }),
  text(base + 3, base + 2, label),
]

async function readBack(chunks: string[][]): Promise<unknown[]> {
  const stored: StoredChunk[] = chunks.map((parts, seq) => ({ seq, encoding: 'gzip', load: () => gzipSync('[' + compactAdds(parts).join(',') + ']') }))
  const out: Buffer[] = []
  for await (const piece of recordingEvents(stored)) out.push(piece as Buffer)
  return JSON.parse(Buffer.concat(out).toString('utf8'))
}

t.test('a re-rendered row is written once per chunk and read back as rrweb emitted it', async (t) => {
  const parts = [JSON.stringify({ type: 4, data: { href: 'https://example.test/' }, timestamp: 1 })]
  for (let i = 0; i < 50; i++) parts.push(mutation(row(100 + i * 4, 7, i % 2 ? 'const' : 'let'), 10 + i, { removes: i ? [{ parentId: 7, id: 96 + i * 4 }] : [] }))
  const written = compactAdds(parts)
  t.equal(written[0], parts[0], 'other events are left as they are')
  t.notOk(written[1].includes('"adds"'), 'mutations carry `a` instead of `adds`')
  const before = parts.join(',').length
  const after = written.join(',').length
  t.ok(after < before / 3, `the JSON shrinks to under a third (${before} to ${after} bytes)`)
  t.ok(written[2].includes('"a":[[0,1,97],1,[2,1,2,1],["const"]]'), 'the second row names the first row\'s nodes by index and writes its new text')
  t.ok(written[3].includes('"a":[[0,1,101],1,[2,1,2,1],3]'), 'the third row is indexes alone')
  t.same(await readBack([parts, parts.slice(3)]), [...parts, ...parts.slice(3)].map((p) => JSON.parse(p)), 'both chunks read back whole, the second on its own state')
})

t.test('any adds come back as they were, in chunks read on their own', async (t) => {
  const tag = fc.constantFrom('div', 'span', 'a', 'li')
  const attributes = fc.dictionary(fc.constantFrom('class', 'style', 'id', 'role', '_svcCss'), fc.string({ maxLength: 12 }), { maxKeys: 3 })
  // Unusual shapes go through as whole objects: isSVG, children, rootId, and ids in any order.
  const node = fc.oneof(
    fc.record({ type: fc.constant(2), tagName: tag, attributes, childNodes: fc.constant([]) }),
    fc.record({ type: fc.constant(3), textContent: fc.string({ maxLength: 10 }) }),
    fc.record({ type: fc.constant(2), tagName: tag, attributes, childNodes: fc.constant([]), isSVG: fc.constant(true) }),
    fc.record({ type: fc.constant(3), textContent: fc.string({ maxLength: 10 }), rootId: fc.nat(50) }),
  )
  const add = fc.record({ parentId: fc.integer({ min: 1, max: 5000 }), nextId: fc.option(fc.integer({ min: 1, max: 5000 })), node, id: fc.integer({ min: 1, max: 5000 }) })
  const event = fc.array(add, { minLength: 0, maxLength: 8 }).map((adds) => adds.map(({ id, node, ...rest }) => ({ ...rest, node: { ...node, id } })))
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(event, { maxLength: 6 }), { minLength: 1, maxLength: 3 }), async (chunks) => {
      const parts = chunks.map((events) => events.map((adds, i) => mutation(adds, i)))
      const back = await readBack(parts)
      const sent = parts.flat().map((p) => JSON.parse(p))
      // Key order aside (an expanded object node has its id last), the events are those sent.
      return JSON.stringify(back.map(sorted)) === JSON.stringify(sent.map(sorted))
    }),
    { numRuns: 300 },
  )
  t.pass('300 sessions of random adds')
})

t.test('an add of a shape rrweb does not emit today leaves its event as it was', async (t) => {
  const odd = mutation([{ parentId: 1, nextId: null, previousId: 3, node: { type: 3, textContent: 'x', id: 9 } }], 5)
  t.same(compactAdds([odd]), [odd])
})

t.test('reading refuses what the tracker does not write, and bounds what an event expands to', async (t) => {
  const expander = new AddsExpander(1_000_000)
  const bad = [
    mutation([], 1, { adds: undefined, a: [[5]] }), // an index never written
    mutation([], 1, { adds: undefined, a: [['div', 'not attributes']] }),
    mutation([], 1, { adds: undefined, a: [[null]] }),
    mutation([], 1, { adds: undefined, a: [[{ type: 3, textContent: 'ok' }, 1.5]] }),
    mutation([], 1, { adds: undefined, a: 'not a list' }),
  ]
  for (const event of bad) t.same(expander.expand(Buffer.from(event)), { event: Buffer.from(event) }, `answered as stored: ${event.slice(30, 90)}`)
  // A node written once and named 100,000 times: a small event that would expand past the bound.
  const big = 'x'.repeat(1000)
  const bomb = mutation([], 1, { adds: undefined, a: [[big], ...Array(100_000).fill(0)] })
  const bounded = new AddsExpander(1_000_000).expand(Buffer.from(bomb))
  t.ok('tooLarge' in bounded && bounded.tooLarge > 1_000_000, `refused at ${'tooLarge' in bounded ? bounded.tooLarge : 0} bytes`)
  const stored: StoredChunk[] = [{ seq: 0, encoding: 'json', load: () => Buffer.from(`[${bomb},${mutation([], 2, { adds: undefined, a: [[0, 7]] })}]`) }]
  const out: Buffer[] = []
  for await (const piece of recordingEvents(stored)) out.push(piece as Buffer)
  const events = JSON.parse(Buffer.concat(out).toString('utf8'))
  t.equal(events[0].data.tag, 'svc.event_dropped', 'the answer says the event was left out')
  t.same(events[1].data.adds, [{ parentId: 100_007, nextId: null, node: { type: 3, textContent: big, id: 100_008 } }], 'and the next event still finds the nodes the dropped one wrote')
})

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, sorted(v)]))
  return value
}
