/**
 * Added nodes, texts and attribute values written once per session (issues 32
 * and 47): the tracker's
 * writing (tracker/src/compact.ts, with tracker/src/chunks.ts settling each
 * chunk on its answer) and the events API's reading
 * (src/recordings/compact-mutations.ts) give back the events rrweb emitted,
 * whatever the adds, texts and attributes are, across chunks, checkpoints, evictions and chunks
 * lost or sent again; a part read from its checkpoint reads on its own.
 */
import { gzipSync } from 'node:zlib'
import fc from 'fast-check'
import t from 'tap'
import { compactAdds, createDictionary, type Dictionary } from '../../tracker/src/compact.js'
import { DICT_MIN_VALUE_JSON } from '../../tracker/src/config.js'
import { AddsExpander, MIN_VALUE_JSON } from '../../src/recordings/compact-mutations.js'
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
  t.notOk(written[1].includes('"adds"') || written[1].includes('"a"'), 'mutations carry `A` instead of `adds`')
  const before = parts.join(',').length
  const after = written.join(',').length
  t.ok(after < before / 3, `the JSON shrinks to under a third (${before} to ${after} bytes)`)
  // The row under 7; the icon under the row; the label under the row too (its parent, 0), before the icon (the item before).
  t.ok(written[2].includes('"A":[[0,1,97],[1,1,1],2,["const",1,1]]'), 'the second row names the first row\'s nodes by index and writes its new text')
  t.ok(written[3].includes('"A":[[0,1,101],[1,1,1],2,[3,1,1]]'), 'the third row is indexes alone')
  t.same(await readBack([parts, parts.slice(3)]), [...parts, ...parts.slice(3)].map((p) => JSON.parse(p)), 'both chunks read back whole, the second on its own state')
})

/** Reads stored chunks (JSON arrays of events) through sessions.events' code: one answer, one dictionary. */
async function read(stored: { text: string; pageIndex?: number }[]): Promise<any[]> {
  const chunks: StoredChunk[] = stored.map((c, seq) => ({ seq, encoding: 'json', pageIndex: c.pageIndex ?? 0, load: () => Buffer.from(c.text) }))
  const out: Buffer[] = []
  for await (const piece of recordingEvents(chunks)) out.push(piece as Buffer)
  return JSON.parse(Buffer.concat(out).toString('utf8'))
}

/** The tracker's side of one chunk: written on the session's dictionary, then answered (`ok`), or never (undefined). */
function send(dictionary: Dictionary, parts: string[], ok: boolean | undefined, checkpoint = false, pageIndex = 0) {
  const written = dictionary.write(parts, `sk:${pageIndex}`, checkpoint)
  if (ok !== undefined) written.settle(ok)
  return { text: '[' + written.parts.join(',') + ']', pageIndex, parts }
}

const meta = (timestamp: number) => JSON.stringify({ type: 4, data: { href: 'https://example.test/', width: 800, height: 600 }, timestamp })
const rows = (from: number, count: number, base: number) => Array.from({ length: count }, (_, i) => mutation(row(base + i * 4, 7, `label ${i % 5}`), from + i))
const plainEvents = (...chunks: { parts: string[] }[]) => chunks.flatMap((c) => c.parts.map((p) => JSON.parse(p)))

t.test('a node written in one chunk is named by index in the later chunks of the session', async (t) => {
  const dictionary = createDictionary()
  const first = send(dictionary, [meta(1), ...rows(2, 5, 100)], true, true)
  const second = send(dictionary, rows(10, 5, 200), true)
  t.ok(first.text.includes('monaco-list-row') && first.text.includes('"d":0'), 'the first chunk writes the row whole, its first index 0')
  t.notOk(second.text.includes('monaco-list-row') || second.text.includes('label'), 'the second writes none of it again')
  t.same(await read([first, second]), plainEvents(first, second), 'both read back as rrweb emitted them')
  t.equal(dictionary.size, 8, 'the dictionary holds each content once: row, icon, label and five texts')
})

t.test('the dictionary restarts at a checkpoint: a part read from it needs nothing before it', async (t) => {
  const dictionary = createDictionary()
  const before = send(dictionary, [meta(1), ...rows(2, 3, 100)], true, true)
  const checkpoint = send(dictionary, [meta(20), ...rows(21, 3, 300)], true, true)
  const after = send(dictionary, rows(30, 3, 400), true)
  t.ok(checkpoint.text.includes('"d":0') && checkpoint.text.includes('monaco-list-row'), 'the checkpoint\'s chunk writes its contents whole, from index 0')
  t.same(await read([checkpoint, after]), plainEvents(checkpoint, after), 'read from the checkpoint, the part is whole')
  t.same(await read([before, checkpoint, after]), plainEvents(before, checkpoint, after), 'and read from the start too')
})

t.test('at the cap the least recently used content goes, and is written whole again under a new index', async (t) => {
  const dictionary = createDictionary(3, 10_000)
  const texts = (from: number, labels: string[]) => labels.map((label, i) => mutation([text(from + i, 7, label)], from + i))
  const first = send(dictionary, [meta(1), ...texts(10, ['ant', 'bee', 'cat', 'ant', 'dog'])], true, true)
  t.equal(dictionary.size, 3, 'never more than 3 contents')
  // 'bee' was the least recently used when 'dog' came: gone; 'ant' was used again and stays.
  const second = send(dictionary, texts(20, ['ant', 'bee']), true)
  t.ok(second.text.includes('"bee"') && !second.text.includes('"ant"'), 'an evicted content is written whole again, a kept one named')
  t.ok(second.text.includes('"d":4'), 'under the next index')
  // Each content's JSON is 37 characters ({"type":3,"textContent":"xxxxxxxxxx"}): two fit in 100.
  const bytes = createDictionary(100, 100)
  send(bytes, texts(1, ['x'.repeat(10), 'y'.repeat(10), 'z'.repeat(10)]), true)
  t.ok(bytes.chars === 74 && bytes.size === 2, `the characters bound holds too (${bytes.chars} characters in ${bytes.size} contents)`)
  t.same(await read([first, second]), plainEvents(first, second), 'and the session reads back whole')
})

t.test('a chunk lost or refused: the next chunks never name what it wrote, and read back without it', async (t) => {
  for (const lost of [false, undefined] as const) {
    const dictionary = createDictionary()
    const first = send(dictionary, [meta(1), mutation([text(5, 7, 'kept')], 2)], true, true)
    // Failed after its retries (false), or still unanswered when the next one is written (flushNow at unload).
    const gone = send(dictionary, rows(10, 2, 100), lost)
    const next = send(dictionary, [...rows(20, 2, 200), mutation([text(300, 7, 'kept')], 30)], true)
    t.ok(next.text.includes('monaco-list-row'), `${lost === false ? 'lost' : 'unanswered'}: the next chunk writes the row whole again`)
    t.notOk(next.text.includes('"kept"'), 'and still names what an acknowledged chunk wrote')
    t.notOk(next.text.includes('"d":0'), 'under new indexes')
    t.same(await read([first, next]), plainEvents(first, next), 'the session without the lost chunk reads back whole')
    t.same(await read([first, gone, next]), plainEvents(first, gone, next), 'and with it, had it arrived after all')
  }
})

t.test('a chunk split after it was written: what it wrote is forgotten, and its halves write it again', async (t) => {
  const dictionary = createDictionary()
  const first = send(dictionary, [meta(1)], true, true)
  const parts = rows(10, 4, 100)
  send(dictionary, parts, false) // over the cap: chunks.ts settles it as not sent, then splits
  const halves = [send(dictionary, parts.slice(0, 2), true), send(dictionary, parts.slice(2), true)]
  t.ok(halves[0].text.includes('monaco-list-row'), 'the first half writes the row whole')
  t.same(await read([first, ...halves]), plainEvents(first, ...halves), 'and both halves read back')
})

t.test('the page views of two tabs interleave their chunks: each names its own contents', async (t) => {
  const dictionary = [createDictionary(), createDictionary()]
  const a1 = send(dictionary[0], [meta(1), ...rows(2, 2, 100)], true, true, 1)
  const b1 = send(dictionary[1], [meta(3), mutation([text(50, 7, 'other')], 4)], true, true, 2)
  const a2 = send(dictionary[0], rows(10, 2, 200), true, false, 1)
  const b2 = send(dictionary[1], [mutation([text(60, 7, 'other')], 12)], true, false, 2)
  t.same(await read([a1, b1, a2, b2]), plainEvents(a1, b1, a2, b2), 'read in seq order, each page view on its own dictionary')
})

/** Monaco's hint line: a text and spans under one parent, last first (each before the add before it), then texts in two spans. */
const line = (b: number, p: number, word: string) => [text(b, p, word), element(b + 1, p, b), text(b + 2, p, 'x'), element(b + 3, p, b + 2), text(b + 4, b + 3, 'i'), text(b + 5, b + 1, 'f')]
const lines = (timestamp: number, ...at: [number, number, string][]) => at.map(([b, p, word], i) => mutation(line(b, p, word), timestamp + i))
/** `a` as the tracker wrote it up to f4c9884 (ids against the item's own id) for lines(2, [100, 7, 'const'], [106, 9, 'let']), then lines(10, [200, 7, 'const']). */
const f4c9884 = [
  [[['const', 100, 93], [['span'], 1, 94, 1], ['x', 1, 95], [1, 1, 96, 1], ['i'], ['f', 1, 4]], [['let', 1, 97], [1, 1, 98, 1], [2, 1, 99], [1, 1, 100, 1], 3, [4, 1, 4]]],
  [[[0, 200, 193], [1, 1, 194, 1], [2, 1, 195], [1, 1, 196, 1], 3, [4, 1, 4]]],
]
const oldChunk = (chunk: number, d: boolean) =>
  '[' + (chunk ? [] : [meta(1)]).concat(f4c9884[chunk].map((a, i) => mutation([], (chunk ? 10 : 2) + i, { adds: undefined, ...(d && !i ? { d: chunk ? 6 : 0 } : {}), a }))).join(',') + ']'

t.test('siblings under one parent: `A` names the parent of the item before, and the item before as their next sibling', async (t) => {
  const dictionary = createDictionary()
  const first = send(dictionary, [meta(1), ...lines(2, [100, 7, 'const'], [106, 9, 'let'])], true, true)
  const lost = send(dictionary, lines(5, [150, 7, 'lost']), false)
  const second = send(dictionary, lines(10, [200, 7, 'const']), true)
  t.ok(first.text.includes('"A":[["const",100,93],[["span"]],["x",1,0,0],1,["i",1,1],["f",1,4]]'), 'a span after a text under 7 is a bare content; the text after it ends its run (next sibling none)')
  t.ok(first.text.includes('"A":[["let",1,97],1,[2,1,0,0],1,[3,1,1],[4,1,4]]'), 'the same line under 9, by indexes')
  t.ok(second.text.includes('"d":7,"A":[[0,200,193],1,[2,1,0,0],1,[3,1,1],[4,1,4]]'), 'the next chunk names them; the lost chunk\'s word took index 6, not named again')
  t.same(await read([first, second]), plainEvents(first, second), 'read back without the lost chunk')
  t.same(await read([first, lost, second]), plainEvents(first, lost, second), 'and with it')
  const checkpoint = send(dictionary, [meta(20), ...lines(21, [300, 7, 'let'])], true, true)
  const after = send(dictionary, lines(30, [400, 9, 'const'], [406, 9, 'const']), true)
  t.ok(checkpoint.text.includes('"d":0,"A":[["let",300,293]'), 'a checkpoint starts the dictionary again')
  t.same(await read([checkpoint, after]), plainEvents(checkpoint, after), 'a part read from its checkpoint alone is whole')
})

t.test('chunks of f4c9884 and before (`a`, ids against the item\'s own id) read as then', async (t) => {
  const plain = [[meta(1), ...lines(2, [100, 7, 'const'], [106, 9, 'let'])], lines(10, [200, 7, 'const'])].map((parts) => ({ parts }))
  t.same(await read([{ text: oldChunk(0, true) }, { text: oldChunk(1, true) }]), plainEvents(...plain), 'with `d`: the second chunk names the first\'s contents')
  // Before issue 47 (no `d`): each chunk on a dictionary of its own.
  t.same(await read([{ text: oldChunk(0, false) }, { text: oldChunk(0, false) }]), plainEvents(plain[0], plain[0]), 'without `d`')
})

/** An editor's line and cursor changing: text and attribute values that repeat, long and short. */
const changes = (timestamp: number, line: number, extra: { id: number; value: string }[] = []) =>
  mutation([], timestamp, {
    texts: [{ id: 40, value: `const answer = ${line}` }, { id: 41, value: 'ok' }, ...extra],
    attributes: [
      { id: 50, attributes: { class: 'cursor monaco-mouse-cursor-text', style: { top: `${19 * line}px` } } },
      { id: 51, attributes: { role: 'toolbar' } },
    ],
  })

t.test('text and attribute values sent before are named by index in later chunks; short ones stay inline', async (t) => {
  const dictionary = createDictionary()
  const first = send(dictionary, [meta(1), changes(2, 1), changes(3, 2)], true, true)
  const second = send(dictionary, [changes(10, 1), changes(11, 2)], true)
  t.ok(first.text.includes('"t":[[40,"const answer = 1"],[1,"ok"]]'), 'the first chunk writes each text whole, ids as differences')
  t.ok(first.text.includes('"at":[[9,{"class":"cursor monaco-mouse-cursor-text","style":{"top":"19px"}}],[1,{"role":"toolbar"}]]'), 'and each attribute value')
  t.notOk(/"texts"|"attributes"/.test(second.text), 'the lists are written compactly')
  t.notOk(second.text.includes('const answer') || second.text.includes('cursor monaco') || second.text.includes('toolbar'), 'the second chunk writes no long value again')
  // Chunk 1 took 0 'const answer = 1', 1 the class, 2 {"top":"19px"}, 3 the cursor's attributes, 4 {"role":"toolbar"}; 5 to 7 for line 2.
  t.ok(second.text.includes('"d":8,"t":[[40,0],[1,"ok"]],"at":[[9,3],[1,4]]'), 'it names them by index, the short "ok" inline')
  t.ok(second.text.includes('"t":[[-11,5],[1,"ok"]],"at":[[9,7],[1,4]]'), 'line 2 as well (ids from the last change, 51)')
  t.same(await read([first, second]), plainEvents(first, second), 'both read back as rrweb emitted them')
  t.equal(dictionary.size, 8, 'each value once')
  t.equal(MIN_VALUE_JSON, DICT_MIN_VALUE_JSON, 'the events API reads by the tracker\'s rule for what takes an index')
})

t.test('values restart at a checkpoint: a part read from it needs nothing before it', async (t) => {
  const dictionary = createDictionary()
  const before = send(dictionary, [meta(1), changes(2, 1)], true, true)
  const checkpoint = send(dictionary, [meta(20), changes(21, 1)], true, true)
  const after = send(dictionary, [changes(30, 1)], true)
  t.ok(checkpoint.text.includes('"d":0') && checkpoint.text.includes('"const answer = 1"'), 'the checkpoint\'s chunk writes its values whole, from index 0')
  t.notOk(after.text.includes('const answer'), 'the chunk after it names them')
  t.same(await read([checkpoint, after]), plainEvents(checkpoint, after), 'read from the checkpoint, the part is whole')
  t.same(await read([before, checkpoint, after]), plainEvents(before, checkpoint, after), 'and read from the start too')
  const alone = await read([after])
  t.same(alone.map((e) => e.data.tag), ['svc.adds_unread'], 'read without its checkpoint, a value it cannot know is a marker')
})

t.test('values at the cap: the least recently used goes and is written whole again; the characters count', async (t) => {
  const dictionary = createDictionary(2, 10_000)
  const texts = (from: number, values: string[]) => values.map((value, i) => mutation([], from + i, { texts: [{ id: 9, value }] }))
  const first = send(dictionary, [meta(1), ...texts(10, ['value one', 'value two', 'value one', 'value three'])], true, true)
  t.equal(dictionary.size, 2, 'never more than 2 values')
  // 'value two' was the least recently used when 'value three' came: gone; 'value one' stays.
  const second = send(dictionary, texts(20, ['value one', 'value two']), true)
  t.ok(second.text.includes('"value two"') && !second.text.includes('"value one"'), 'an evicted value is written whole again, a kept one named')
  t.ok(second.text.includes('"d":3'), 'under the next index')
  const bytes = createDictionary(100, 30)
  send(bytes, texts(1, ['value AAAA', 'value BBBB', 'value CCCC']), true) // each 12 characters of JSON: two fit in 30
  t.ok(bytes.chars === 24 && bytes.size === 2, `the characters bound counts values (${bytes.chars} characters in ${bytes.size} values)`)
  t.same(await read([first, second]), plainEvents(first, second), 'and the session reads back whole')
})

t.test('a value first sent by a chunk lost or unanswered is written whole again', async (t) => {
  for (const lost of [false, undefined] as const) {
    const dictionary = createDictionary()
    const first = send(dictionary, [meta(1), changes(2, 1)], true, true)
    const gone = send(dictionary, [changes(10, 1, [{ id: 42, value: 'sent by the lost chunk' }])], lost)
    const next = send(dictionary, [changes(20, 1, [{ id: 42, value: 'sent by the lost chunk' }])], true)
    t.notOk(gone.text.includes('const answer'), 'the lost chunk named what the first wrote')
    t.ok(next.text.includes('"sent by the lost chunk"'), `${lost === false ? 'lost' : 'unanswered'}: the next chunk writes its value whole again`)
    t.notOk(next.text.includes('const answer'), 'and still names what an acknowledged chunk wrote')
    t.same(await read([first, next]), plainEvents(first, next), 'the session without the lost chunk reads back whole')
    t.same(await read([first, gone, next]), plainEvents(first, gone, next), 'and with it, had it arrived after all')
  }
})

t.test('chunks of the tracker before values were written once (plain texts and attributes) read as they were', async (t) => {
  const plainChanges = '"texts":[{"id":7,"value":"a text long enough"}],"attributes":[{"id":7,"attributes":{"class":"a class long enough"}}]'
  const previous = oldChunk(0, true).replaceAll('"texts":[],"attributes":[]', plainChanges)
  const expected = plainEvents({ parts: [meta(1), ...lines(2, [100, 7, 'const'], [106, 9, 'let'])].map((p) => p.replace('"texts":[],"attributes":[]', plainChanges)) })
  t.ok(previous.includes('"d":0') && previous.includes('"a":['), 'with `d` and `a`, as the tracker of issue 47 wrote them')
  t.same(await read([{ text: previous }]), expected, 'its adds are put back, its texts and attributes left as sent')
})

t.test('a part that does not start at its page view\'s checkpoint: a marker stands for an add it cannot read', async (t) => {
  const dictionary = createDictionary()
  send(dictionary, [meta(1), ...rows(2, 2, 100)], true, true)
  const later = send(dictionary, rows(10, 1, 200), true)
  const events = await read([later])
  t.same(events.map((e) => [e.type, e.data.tag]), [[5, 'svc.adds_unread']], 'a custom event, which a replayer skips')
  t.equal(events[0].timestamp, 10, 'at the event\'s time')
})

t.test('any adds, texts and attributes come back as they were, whichever chunks are lost, split or checkpoints', async (t) => {
  const tag = fc.constantFrom('div', 'span', 'a', 'li')
  const nodeAttributes = fc.dictionary(fc.constantFrom('class', 'style', 'id', 'role', '_svcCss'), fc.string({ maxLength: 12 }), { maxKeys: 3 })
  // Unusual shapes go through as whole objects: isSVG, children, rootId, and ids in any order.
  const node = fc.oneof(
    fc.record({ type: fc.constant(2), tagName: tag, attributes: nodeAttributes, childNodes: fc.constant([]) }),
    fc.record({ type: fc.constant(3), textContent: fc.string({ maxLength: 10 }) }),
    fc.record({ type: fc.constant(2), tagName: tag, attributes: nodeAttributes, childNodes: fc.constant([]), isSVG: fc.constant(true) }),
    fc.record({ type: fc.constant(3), textContent: fc.string({ maxLength: 10 }), rootId: fc.nat(50) }),
  )
  const add = fc.record({ parentId: fc.integer({ min: 1, max: 5000 }), nextId: fc.option(fc.integer({ min: 1, max: 5000 })), node, id: fc.integer({ min: 1, max: 5000 }) })
  const scattered = fc.array(add, { minLength: 0, maxLength: 8 }).map((adds) => adds.map(({ id, node, ...rest }) => ({ ...rest, node: { ...node, id } })))
  // As rrweb adds a subtree: runs of siblings under one parent, last first (or not), children of earlier adds, ids mostly in sequence.
  const family = fc
    .record({ parentId: fc.integer({ min: 1, max: 5000 }), id: fc.integer({ min: 1, max: 5000 }), shape: fc.array(fc.tuple(fc.nat(4), fc.constantFrom(1, 1, 1, 2, -3), fc.nat(2), node), { maxLength: 10 }) })
    .map(({ parentId, id, shape }) => {
      const out: { parentId: number; nextId: number | null; node: Record<string, unknown> }[] = []
      let previous: (typeof out)[number] | undefined
      for (const [under, step, next, node] of shape) {
        id += step
        // 0: a sibling of the add before; 1: its child; 2: a child of an earlier add; else the first parent. Next: none, the add before, id - 1.
        const parent = under === 0 && previous ? previous.parentId : under === 1 && previous ? (previous.node.id as number) : under === 2 && out.length ? (out[0].node.id as number) : parentId
        const nextId = next === 1 && previous ? (previous.node.id as number) : next === 2 ? id - 1 : null
        out.push((previous = { parentId: parent, nextId, node: { ...node, id } }))
      }
      return out
    })
  const adds = fc.oneof(scattered, family)
  // Values from a small pool, so that they repeat: short and long strings, null, rrweb's style objects.
  const value = fc.oneof(fc.constantFrom('ab', 'monaco-list-row focused', 'top: 19px; height: 19px;', 'x'.repeat(8), null, { width: '1193px' }, { display: 'none' }), fc.string({ maxLength: 12 }))
  const texts = fc.array(fc.record({ id: fc.integer({ min: 1, max: 5000 }), value: value.filter((v) => typeof v !== 'object' || v === null) }), { maxLength: 4 })
  const attributeChanges = fc.array(fc.record({ id: fc.integer({ min: 1, max: 5000 }), attributes: fc.dictionary(fc.constantFrom('class', 'style', 'role', 'aria-label'), value, { maxKeys: 3 }) }), { maxLength: 4 })
  const event = fc.record({ adds, texts, attributes: attributeChanges })
  // A chunk's fate: acknowledged and stored, lost, unanswered (unload) but stored, or a checkpoint.
  const fate = fc.constantFrom('ok', 'ok', 'ok', 'lost', 'unanswered', 'checkpoint')
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(fc.array(event, { maxLength: 6 }), fate), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 12 }), async (chunks, cap) => {
      const dictionary = createDictionary(cap, cap * 40)
      const stored = chunks.flatMap(([events, fate], c) => {
        const sent = send(dictionary, events.map(({ adds, ...changes }, i) => mutation(adds, c * 10 + i, changes)), fate === 'lost' ? false : fate === 'unanswered' ? undefined : true, fate === 'checkpoint' || c === 0)
        return fate === 'lost' ? [] : [sent]
      })
      const back = await read(stored)
      // Key order aside (an expanded object node has its id last), the events are those sent.
      return JSON.stringify(back.map(sorted)) === JSON.stringify(plainEvents(...stored).map(sorted))
    }),
    { numRuns: 300 },
  )
  t.pass('300 sessions of random adds, texts and attributes')
})

t.test('an add of a shape rrweb does not emit today leaves its event as it was', async (t) => {
  const odd = mutation([{ parentId: 1, nextId: null, previousId: 3, node: { type: 3, textContent: 'x', id: 9 } }], 5)
  t.same(compactAdds([odd]), [odd])
})

t.test('reading refuses what the tracker does not write, and bounds what an event expands to', async (t) => {
  const expander = new AddsExpander(1_000_000)
  const bad = [
    mutation([], 1, { adds: undefined, d: 'x', a: [['div']] }), // a base that is no index
    mutation([], 1, { adds: undefined, a: [['div', 'not attributes']] }),
    mutation([], 1, { adds: undefined, a: [[null]] }),
    mutation([], 1, { adds: undefined, a: [[{ type: 3, textContent: 'ok' }, 1.5]] }),
    mutation([], 1, { adds: undefined, a: 'not a list' }),
    mutation([], 1, { texts: undefined, t: [[1]] }), // no value
    mutation([], 1, { texts: undefined, t: [[1.5, 'a value']] }),
    mutation([], 1, { texts: undefined, t: 'not a list' }),
    mutation([], 1, { attributes: undefined, at: [[1, 'not attributes']] }),
    mutation([], 1, { attributes: undefined, at: [[1, ['class']]] }),
    mutation([], 1, { attributes: undefined, at: [[1, { class: 2.5 }]] }),
    mutation([], 1, { adds: undefined, d: 0, a: [[['div', { class: 'a node, not a value' }]]], texts: undefined, t: [[1, 0]] }), // a node where a value belongs
    mutation([], 1, { texts: undefined, d: 0, t: [[1, 'a text long enough']], attributes: undefined, at: [[1, 0]] }), // a value where attributes belong
    mutation([], 1, { adds: undefined, a: [[['div']]], A: [[['div'], 1, 5]] }), // both forms in one event
    mutation([], 1, { adds: undefined, A: [[['div'], 1, 0]] }), // the parent of the item before the first
  ]
  for (const event of bad) t.same(expander.expand(Buffer.from(event)), { event: Buffer.from(event) }, `answered as stored: ${event.slice(30, 90)}`)
  // A node written once and named 100,000 times: a small event that would expand past the bound.
  const sequence = new AddsExpander(1_000_000)
  const value = mutation([], 1, { texts: undefined, d: 0, t: [[1, 'a text long enough']] })
  const asNode = mutation([], 2, { adds: undefined, a: [0] })
  t.same(JSON.parse((sequence.expand(Buffer.from(value)) as { event: Buffer }).event.toString()).data.texts, [{ id: 1, value: 'a text long enough' }], 'a value defined')
  t.same(sequence.expand(Buffer.from(asNode)), { event: Buffer.from(asNode) }, 'then named where a node belongs: answered as stored')
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
