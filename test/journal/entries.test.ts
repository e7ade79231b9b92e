/** Log entries carry an ingest item's bytes untouched and refuse what they did not frame. */
import t from 'tap'
import type { WriteItem } from '../../src/cluster/messages.js'
import { decodeEntry, encodeEntry } from '../../src/journal/entries.js'

t.test('a chunk and a signals body come back as they went in, bytes included', async (t) => {
  const body = new Uint8Array(70_000).map((_, i) => (i * 7) % 256)
  const chunk: WriteItem = { kind: 'chunk', projectId: 'p1', receivedAt: 1_700_000_000_123, meta: { sk: 's', vid: 'v', seq: 3, encoding: 'gzip', url: 'https://a.test/é' }, body }
  const back = decodeEntry(encodeEntry(chunk))
  t.same({ ...back, body: undefined }, { ...chunk, body: undefined })
  t.equal(Buffer.compare(Buffer.from(back.body), Buffer.from(body)), 0, 'body byte-identical')
  const signals: WriteItem = { kind: 'signals-body', projectId: 'p1', receivedAt: 5, body: new TextEncoder().encode('{"sk":"s"}') }
  t.same(Buffer.from(decodeEntry(encodeEntry(signals)).body).toString(), '{"sk":"s"}')
})

t.test('a truncated or foreign entry is refused', async (t) => {
  const entry = encodeEntry({ kind: 'chunk', projectId: 'p', receivedAt: 1, meta: { sk: 's', vid: 'v', seq: 0, encoding: 'json' }, body: new Uint8Array(4) })
  t.throws(() => decodeEntry(entry.subarray(0, 3)), /shorter/)
  t.throws(() => decodeEntry(entry.subarray(0, 10)), /past its end/)
  const foreign = Buffer.alloc(4 + 13)
  foreign.writeUInt32BE(13, 0)
  foreign.write('{"kind":"zz"}', 4)
  t.throws(() => decodeEntry(foreign), /unknown kind/)
})
