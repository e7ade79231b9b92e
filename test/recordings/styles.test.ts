/**
 * Stylesheets sent once per project, on the server (src/recordings/styles.ts):
 * an upload is stored only when its text has the hash it claims and fits the
 * bound as the JSON string a replay restores; reading puts the text back
 * where the reference was, sizes checked before anything is inflated, and one
 * answer restores at most its budget.
 */
import { createHash } from 'node:crypto'
import { gunzipSync, gzipSync } from 'node:zlib'
import t from 'tap'
import { admitStyle, checkStyle, MAX_STYLE_BYTES, MAX_STYLE_BYTES_PER_PROJECT, MAX_STYLES_PER_PROJECT, RestoreBudget, restoreStyles, styleLookup, styleQuotaRefusal, type StyleText } from '../../src/recordings/styles.js'
import { recordingEvents } from '../../src/recordings/events.js'

const CSS = '.banner { background: #283593; content: "\\"quoted\\" ünïcode" }\n'.repeat(100)
const HASH = createHash('sha256').update(CSS).digest('hex')
const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex')
const joined = (parts: Buffer[]) => Buffer.concat(parts)

async function stored(text: string | Buffer): Promise<Uint8Array> {
  const checked = await checkStyle(Buffer.from(text), sha256(text))
  if (!checked.ok) throw new Error(checked.error)
  return checked.stored
}

t.test('an upload is kept as its JSON string, gzipped by the service, raw or gzipped when sent, its restored size counted', async (t) => {
  for (const body of [Buffer.from(CSS), gzipSync(CSS)]) {
    const checked = await checkStyle(body, HASH)
    if (!t.ok(checked.ok, 'accepted') || !checked.ok) continue
    t.equal(checked.stored[0], 0x01, 'the literal format')
    t.equal(gunzipSync(checked.stored.subarray(1)).toString(), JSON.stringify(CSS), 'the JSON string, gzipped')
    t.equal(checked.bytes, Buffer.byteLength(JSON.stringify(CSS)), 'its size as restored')
    // A front's body pool takes a committed body back: it must not be a slice of memory that others share.
    t.ok(checked.stored.byteOffset === 0 && checked.stored.buffer.byteLength === checked.stored.byteLength, 'in memory of its own')
  }
  t.match(await checkStyle(Buffer.from(CSS), HASH, true), { ok: true, bytes: 0 }, 'a hash the project holds: only the hash checked')
  t.match(await checkStyle(Buffer.from(CSS + ' '), HASH, true), { ok: false }, 'a body that is not the held hash is refused as a new one would be')
})

t.test('an upload whose text is not its hash, a corrupt gzip body, a bomb or a text that escapes past the bound is refused', async (t) => {
  t.match(await checkStyle(Buffer.from(CSS + ' '), HASH), { ok: false }, 'one byte more')
  t.match(await checkStyle(Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3]), HASH), { ok: false }, 'gzip magic, no gzip')
  const spaces = Buffer.alloc(MAX_STYLE_BYTES + 1, 0x20)
  t.match(await checkStyle(gzipSync(spaces), sha256(spaces)), { ok: false, error: /inflates past/ }, 'past the bound once inflated, even with the right hash')
  // A control character is 6 bytes once quoted: 1 MiB of them restores as 6 MiB, and gzips to 1 KB.
  const controls = Buffer.alloc(1024 * 1024, 0x01)
  t.match(await checkStyle(gzipSync(controls), sha256(controls)), { ok: false, error: /as a JSON string/ }, 'past the bound as restored')
})

t.test('reading puts the text back in place of each known reference, in pieces, and leaves the rest as stored', async (t) => {
  const kept = await stored(CSS)
  const lookup = styleLookup((hash) => (hash === HASH ? kept : undefined))
  const unknown = 'b'.repeat(64)
  const event = Buffer.from(`{"type":2,"data":{"node":{"childNodes":[{"attributes":{"_svcCss":"${HASH}"}},{"attributes":{"_svcCss":"${unknown}"}},{"attributes":{"_svcCss":"${HASH}"}}]}},"timestamp":5}`)
  const restored = JSON.parse(joined(await restoreStyles(event, lookup, 1e9)).toString())
  t.same(
    restored.data.node.childNodes.map((n: { attributes: object }) => n.attributes),
    [{ _cssText: CSS }, { _svcCss: unknown }, { _cssText: CSS }],
    'both references to the known text restored, the unknown one left',
  )
  t.equal(restored.timestamp, 5)
  const plain = Buffer.from('{"type":3,"data":{"source":1},"timestamp":6}')
  t.same(await restoreStyles(plain, lookup, 1e9), [plain], 'an event without references is the same buffer')
  // Each restored reference grows the event by the quoted text less the reference's 76 bytes: room for one and a half.
  const grows = '"_cssText":'.length + Buffer.byteLength(JSON.stringify(CSS)) - 76
  const capped = joined(await restoreStyles(event, lookup, event.length + grows * 1.5))
  t.equal(JSON.parse(capped.toString()).data.node.childNodes.filter((n: { attributes: { _cssText?: string } }) => n.attributes._cssText).length, 1, 'past the event bound, the rest stay references')
  const legacy = styleLookup((hash) => (hash === HASH ? gzipSync(CSS) : undefined))
  t.same(joined(await restoreStyles(event, legacy, 1e9)), joined(await restoreStyles(event, lookup, 1e9)), 'a text stored before literals (gzip of the text) reads back the same')
})

t.test('sizes are checked before a text is inflated, and one answer restores at most its budget', async (t) => {
  let inflated = 0
  const big: StyleText = { bytes: 3_000_000, literal: async () => (inflated++, Buffer.from(JSON.stringify('x'.repeat(2_999_998)))) }
  const event = Buffer.from(`[{"_svcCss":"${'c'.repeat(64)}"},{"_svcCss":"${'c'.repeat(64)}"}]`)
  t.same(await restoreStyles(event, () => big, 1_000_000), [event], 'past the event bound: as stored')
  t.equal(inflated, 0, 'and nothing inflated for it')
  const budget = new RestoreBudget(4_000_000)
  const once = joined(await restoreStyles(event, () => big, 16_000_000, budget))
  t.equal(inflated, 1, 'the second reference is past the answer\'s budget: not inflated')
  t.equal(once.toString().split('_cssText').length - 1, 1, 'one restored, one left a reference')
  t.ok(budget.spent, 'the budget says a reference was left')
  t.equal(budget.left, 1_000_000, 'what was restored is counted')
})

t.test('an answer whose stylesheets pass its budget keeps the rest as references, says so once, and materialises no more', async (t) => {
  const texts = [0, 1, 2].map((i) => `.t${i} { color: red }`.repeat(20_000))
  const held = new Map(await Promise.all(texts.map(async (text) => [sha256(text), await stored(text)] as const)))
  const lookup = styleLookup((hash) => held.get(hash))
  const events = texts.map((text, i) => ({ type: 2, data: { node: { attributes: { _svcCss: sha256(text) } } }, timestamp: 1_000 + i }))
  const chunk = { seq: 0, encoding: 'json' as const, load: () => Buffer.from(JSON.stringify(events)) }
  const size = Buffer.byteLength(JSON.stringify(texts[0]))
  let out = ''
  for await (const piece of recordingEvents([chunk], { styles: lookup, maxRestoredBytes: size * 2 + 10 })) out += piece
  const answer = JSON.parse(out) as Array<{ type: number; data: { tag?: string; node?: { attributes: Record<string, string> } } }>
  t.same(answer.filter((e) => e.type === 2).map((e) => Object.keys(e.data.node!.attributes)[0]), ['_cssText', '_cssText', '_svcCss'], 'two restored, the third left as stored')
  t.same(answer.filter((e) => e.type === 5).map((e) => e.data.tag), ['svc.styles_cut'], 'one marker says why')
})

t.test('a project has room for a stylesheet while under both bounds, count and restored bytes, checked where it is stored', async (t) => {
  t.equal(styleQuotaRefusal({}, 1_000), undefined, 'a project with none')
  t.equal(styleQuotaRefusal({ styleCount: MAX_STYLES_PER_PROJECT - 1, styleBytes: 0 }, 1_000), undefined, 'one short of the count')
  t.match(styleQuotaRefusal({ styleCount: MAX_STYLES_PER_PROJECT, styleBytes: 0 }, 1), /holds 500 stylesheets/, 'at the count')
  t.equal(styleQuotaRefusal({ styleCount: 1, styleBytes: MAX_STYLE_BYTES_PER_PROJECT - 10 }, 10), undefined, 'exactly filling the bytes')
  t.match(styleQuotaRefusal({ styleCount: 1, styleBytes: MAX_STYLE_BYTES_PER_PROJECT - 10 }, 11), /would pass 52428800 bytes/, 'one byte past them')
  const counters = { styleCount: 1, styleBytes: MAX_STYLE_BYTES_PER_PROJECT - 10 }
  const body = new Uint8Array(3)
  t.notOk(admitStyle(counters, { body, bytes: 11 }), 'an upload past the quota is not admitted')
  t.same(counters, { styleCount: 1, styleBytes: MAX_STYLE_BYTES_PER_PROJECT - 10 }, 'and counts nothing')
  t.ok(admitStyle(counters, { body, bytes: 10 }), 'one that fills it is')
  t.ok(admitStyle(counters, { body, bytes: 11, acknowledged: true }), 'one a front acknowledged is stored whatever the counters say')
  t.same(counters, { styleCount: 3, styleBytes: MAX_STYLE_BYTES_PER_PROJECT + 11 }, 'both counted')
})
