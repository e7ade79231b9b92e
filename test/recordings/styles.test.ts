/**
 * Stylesheets sent once per project, on the server (src/recordings/styles.ts):
 * an upload is stored only when its text has the hash it claims, under a bound
 * once inflated; reading puts the text back where the reference was, leaving
 * everything else of the event as stored.
 */
import { createHash } from 'node:crypto'
import { gunzipSync, gzipSync } from 'node:zlib'
import t from 'tap'
import { checkStyle, MAX_STYLE_BYTES, MAX_STYLE_STORED_BYTES_PER_PROJECT, MAX_STYLES_PER_PROJECT, restoreStyles, styleLookup, styleQuotaRefusal } from '../../src/recordings/styles.js'

const CSS = '.banner { background: #283593; content: "\\"quoted\\" ünïcode" }\n'.repeat(100)
const HASH = createHash('sha256').update(CSS).digest('hex')

t.test('an upload is kept gzipped when its text has the claimed SHA-256, raw or gzipped', async (t) => {
  for (const body of [Buffer.from(CSS), gzipSync(CSS)]) {
    const checked = checkStyle(body, HASH)
    t.ok(checked.ok, 'accepted')
    if (checked.ok) t.equal(gunzipSync(checked.gzipped).toString(), CSS, 'the text, gzipped')
  }
})

t.test('an upload whose text is not its hash, a corrupt gzip body or a bomb is refused', async (t) => {
  t.match(checkStyle(Buffer.from(CSS + ' '), HASH), { ok: false }, 'one byte more')
  t.match(checkStyle(Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3]), HASH), { ok: false }, 'gzip magic, no gzip')
  const bomb = gzipSync(Buffer.alloc(MAX_STYLE_BYTES + 1, 0x20))
  t.match(checkStyle(bomb, createHash('sha256').update(Buffer.alloc(MAX_STYLE_BYTES + 1, 0x20)).digest('hex')), { ok: false, error: /inflates past/ }, 'past the bound once inflated, even with the right hash')
})

t.test('reading puts the text back in place of each known reference and leaves the rest as stored', async (t) => {
  const lookup = styleLookup((hash) => (hash === HASH ? gzipSync(CSS) : undefined))
  const unknown = 'b'.repeat(64)
  const event = Buffer.from(`{"type":2,"data":{"node":{"childNodes":[{"attributes":{"_svcCss":"${HASH}"}},{"attributes":{"_svcCss":"${unknown}"}},{"attributes":{"_svcCss":"${HASH}"}}]}},"timestamp":5}`)
  const restored = JSON.parse(restoreStyles(event, lookup, 1e9).toString())
  t.same(
    restored.data.node.childNodes.map((n: { attributes: object }) => n.attributes),
    [{ _cssText: CSS }, { _svcCss: unknown }, { _cssText: CSS }],
    'both references to the known text restored, the unknown one left',
  )
  t.equal(restored.timestamp, 5)
  const plain = Buffer.from('{"type":3,"data":{"source":1},"timestamp":6}')
  t.equal(restoreStyles(plain, lookup, 1e9), plain, 'an event without references is the same buffer')
  // Each restored reference grows the event by the quoted text less the reference's 76 bytes: room for one and a half.
  const grows = '"_cssText":'.length + Buffer.byteLength(JSON.stringify(CSS)) - 76
  const capped = restoreStyles(event, lookup, event.length + grows * 1.5)
  t.equal(JSON.parse(capped.toString()).data.node.childNodes.filter((n: { attributes: { _cssText?: string } }) => n.attributes._cssText).length, 1, 'past the event bound, the rest stay references')
})

t.test('a project has room for a stylesheet while under both bounds, count and stored bytes', async (t) => {
  t.equal(styleQuotaRefusal({}, 1_000), undefined, 'a project with none')
  t.equal(styleQuotaRefusal({ styleCount: MAX_STYLES_PER_PROJECT - 1, styleBytes: 0 }, 1_000), undefined, 'one short of the count')
  t.match(styleQuotaRefusal({ styleCount: MAX_STYLES_PER_PROJECT, styleBytes: 0 }, 1), /holds 500 stylesheets/, 'at the count')
  t.equal(styleQuotaRefusal({ styleCount: 1, styleBytes: MAX_STYLE_STORED_BYTES_PER_PROJECT - 10 }, 10), undefined, 'exactly filling the bytes')
  t.match(styleQuotaRefusal({ styleCount: 1, styleBytes: MAX_STYLE_STORED_BYTES_PER_PROJECT - 10 }, 11), /would pass 52428800 stored bytes/, 'one byte past them')
})
