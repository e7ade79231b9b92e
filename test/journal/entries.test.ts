/** Log entries carry an item's bytes untouched and refuse what they did not frame. */
import t from 'tap'
import { logSeal } from '../../src/journal/seal.js'
import { decodeControl, decodeIngest, encodeControl, encodeIngest } from '../../src/journal/entries.js'
import type { IngestItem } from '../../src/store/store.js'

t.test('a chunk, a signals batch and a stylesheet come back as they went in, bytes included', async (t) => {
  const body = new Uint8Array(70_000).map((_, i) => (i * 7) % 256)
  const page = { key: 'a.test/x', host: 'a.test', path: '/x', firstSeenAt: 1 }
  const chunk: IngestItem = { kind: 'chunk', projectId: 'p1', receivedAt: 1_700_000_000_123, meta: { sk: 's', vid: 'v', seq: 3, encoding: 'gzip', url: 'https://a.test/é' }, body, page }
  const back = decodeIngest(encodeIngest({ item: chunk, after: 42 }))
  t.equal(back.after, 42)
  t.same({ ...back.item, body: undefined }, { ...chunk, body: undefined })
  t.equal(Buffer.compare(Buffer.from((back.item as typeof chunk).body), Buffer.from(body)), 0, 'body byte-identical')
  const signals: IngestItem = { kind: 'signals', projectId: 'p1', receivedAt: 5, batch: { sk: 's', vid: 'v', dropped: 0, views: [], clicks: [{ url: 'https://a.test/x', page: 'a.test/x', ts: 1, xRatio: 0.5, yDoc: 10 }], errors: [] }, pages: [page] }
  t.same(decodeIngest(encodeIngest({ item: signals, after: 0 })).item, signals)
  const style: IngestItem = { kind: 'style', projectId: 'p1', receivedAt: 6, hash: 'c'.repeat(64), body }
  const styleBack = decodeIngest(encodeIngest({ item: style, after: 7 })).item as typeof style
  t.same({ ...styleBack, body: undefined }, { ...style, body: undefined })
  t.equal(Buffer.compare(Buffer.from(styleBack.body), Buffer.from(body)), 0, 'the stylesheet\'s bytes byte-identical')
})

t.test('a truncated or foreign entry is refused', async (t) => {
  const frame = encodeIngest({ after: 0, item: { kind: 'chunk', projectId: 'p', receivedAt: 1, meta: { sk: 's', vid: 'v', seq: 0, encoding: 'json' }, body: new Uint8Array(4) } })
  t.throws(() => decodeIngest(frame.subarray(0, 3)), /shorter/)
  t.throws(() => decodeIngest(frame.subarray(0, 10)), /past its end/)
  const head = '{"after":0,"item":{"kind":"zz"}}'
  const foreign = Buffer.alloc(4 + head.length)
  foreign.writeUInt32BE(head.length, 0)
  foreign.write(head, 4)
  t.throws(() => decodeIngest(foreign), /unknown kind/)
  t.throws(() => decodeControl(Buffer.from('{"args":[]}')), /without id, op and args/)
  t.throws(() => decodeControl(Buffer.from('{"op":"putOrg","args":[]}')), /without id, op and args/, 'an entry without its id cannot be told from a replay')
  const entry = { id: 'ctl:n:1', op: 'putOrg', args: [{ id: 'o' }], node: 'n', ticket: 1 }
  t.same(decodeControl(encodeControl(entry)), entry)
})

t.test('sealed entries open only with the secret and for the kind they were sealed for', async (t) => {
  const seal = logSeal(Buffer.from('s'.repeat(32)))
  const plain = encodeControl({ id: 'ctl:n:1', op: 'putOrg', args: [{ id: 'o' }], node: 'n', ticket: 1 })
  const sealed = seal.seal('control', plain)
  t.notOk(Buffer.from(sealed).includes(Buffer.from('putOrg')), 'nothing of it in clear')
  t.same(Buffer.from(seal.open('control', sealed)), Buffer.from(plain))
  t.throws(() => seal.open('ingest', sealed), { name: 'UnsealedEntry' }, 'not as another kind')
  t.throws(() => logSeal(Buffer.from('t'.repeat(32))).open('control', sealed), { name: 'UnsealedEntry' }, 'not with another secret')
  const flipped = Buffer.from(sealed)
  flipped[flipped.length - 20] ^= 1
  t.throws(() => seal.open('control', flipped), { name: 'UnsealedEntry' }, 'not once a byte changed')
  t.throws(() => seal.open('control', plain), { name: 'UnsealedEntry' }, 'not in clear')
  t.throws(() => logSeal(Buffer.from('short')), /at least 32 bytes/)
})
