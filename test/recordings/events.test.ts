/** Joining stored chunks into one JSON array of events (src/recordings/events.ts), without a cluster. */
import { gzipSync } from 'node:zlib'
import fc from 'fast-check'
import t from 'tap'
import { ArraySplitter, recordingEvents, type StoredChunk } from '../../src/recordings/events.js'

function split(pieces: Buffer[]): string[] {
  const splitter = new ArraySplitter()
  const out: string[] = []
  for (const piece of pieces) splitter.push(piece, (e) => out.push(e.toString('utf8')))
  return out
}

async function joined(chunks: StoredChunk[]): Promise<string> {
  const parts: Buffer[] = []
  for await (const part of recordingEvents(chunks)) parts.push(part as Buffer)
  return Buffer.concat(parts).toString('utf8')
}

const stored = (seq: number, encoding: 'gzip' | 'json', bytes: Uint8Array | undefined): StoredChunk => ({ seq, encoding, load: () => bytes })

t.test('cuts an array into its elements whatever the strings, escapes and nesting hold', async (t) => {
  const tricky = [{ a: '] } , [ {' }, { b: 'say \\"hi\\" \\\\' }, [1, [2, { c: [] }]], 'plain', 42, -1.5e3, true, null, { d: { e: { f: '\u2603 ☕' } } }]
  t.same(split([Buffer.from(JSON.stringify(tricky))]).map((e) => JSON.parse(e)), tricky)
  t.same(split([Buffer.from(' \n [ {"x":1} ,\t{"y":2}\r\n] trailing')]), ['{"x":1}', '{"y":2}'])
  t.same(split([Buffer.from('[]')]), [])
  t.same(split([Buffer.from('{"lone":true}')]), ['{"lone":true}'], 'a chunk that is one event object')
  t.same(split([Buffer.from('nonsense')]), [], 'neither array nor object: nothing')
})

t.test('finds the same elements however the bytes are cut into pieces', async (t) => {
  const json = fc.jsonValue({ maxDepth: 4 })
  await fc.assert(
    fc.asyncProperty(fc.array(json, { maxLength: 12 }), fc.array(fc.nat(400), { maxLength: 8 }), async (elements, cuts) => {
      const bytes = Buffer.from(JSON.stringify(elements))
      const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
      const pieces: Buffer[] = []
      let from = 0
      for (const p of [...points, bytes.length]) {
        pieces.push(bytes.subarray(from, p))
        from = p
      }
      const found = split(pieces).map((e) => JSON.parse(e))
      return JSON.stringify(found) === JSON.stringify(elements)
    }),
    { numRuns: 300 },
  )
  t.pass('300 arrays, each cut at up to 8 random places')
})

t.test('joins gzip and raw chunks into one valid array; a corrupt or missing chunk loses only its own events', async (t) => {
  const a = [{ n: 0 }, { n: 1 }]
  const b = [{ n: 2 }]
  const c = [{ n: 3 }, { n: 4 }]
  const corruptGzip = gzipSync(JSON.stringify([{ n: 99 }, { n: 98 }]))
  corruptGzip.fill(0x41, 12, corruptGzip.length - 8)
  const text = await joined([
    stored(0, 'gzip', gzipSync(JSON.stringify(a))),
    stored(1, 'json', Buffer.from('[]')),
    stored(2, 'gzip', corruptGzip),
    stored(3, 'json', Buffer.from(JSON.stringify(b))),
    stored(4, 'json', undefined), // purged while the answer streamed
    stored(5, 'json', Buffer.from('[{"n":5},{"n":')), // cut off: its unfinished event is left out
    stored(6, 'gzip', gzipSync(JSON.stringify(c))),
  ])
  t.same(JSON.parse(text), [...a, ...b, { n: 5 }, ...c])
  t.equal(await joined([]), '[]', 'no chunks: an empty array')
})

t.test('a large recording goes out in batches, not one piece per event nor one piece in all', async (t) => {
  const events = Array.from({ length: 20_000 }, (_, n) => ({ type: 3, data: { n, pad: 'x'.repeat(40) } }))
  const parts: number[] = []
  for await (const part of recordingEvents([stored(0, 'gzip', gzipSync(JSON.stringify(events)))])) parts.push((part as Buffer).length)
  t.ok(parts.length > 5 && parts.length < 200, `${parts.length} writes for ${events.length} events`)
})
