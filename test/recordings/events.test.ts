/** Joining stored chunks into one JSON array of events (src/recordings/events.ts), without a cluster. */
import { gzipSync } from 'node:zlib'
import fc from 'fast-check'
import t from 'tap'
import { ArraySplitter, recordingEvents, type EventLimits, type StoredChunk } from '../../src/recordings/events.js'

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

const MARK = (tag: string) => (e: any) => e.type === 5 && e.data?.tag === tag

t.test('an element over the limit is reported by size, never emitted nor held, whatever the pieces', async (t) => {
  const limit = 100
  const splitter = new ArraySplitter(limit)
  const out: string[] = []
  const dropped: number[] = []
  const big = JSON.stringify({ type: 2, data: { s: 'a\\"'.repeat(400) }, timestamp: 7 })
  const bytes = Buffer.from(`[{"n":0},${big},"${'x'.repeat(150)}",{"n":1}]`)
  for (let i = 0; i < bytes.length; i += 33) {
    splitter.push(Buffer.from(bytes.subarray(i, i + 33)), (e) => out.push(e.toString()), (size, tail) => {
      dropped.push(size)
      if (size === big.length) t.ok(tail.toString().endsWith('"timestamp":7}'), 'the dropped element\'s end is passed on')
    })
    t.ok((splitter as any).parts.reduce((n: number, p: Buffer) => n + p.length, 0) <= limit, `at most ${limit} bytes held after ${i + 33}`)
  }
  t.same(out, ['{"n":0}', '{"n":1}'])
  t.same(dropped, [big.length, 152], 'the long object and the long string, by their exact sizes')
  t.ok(splitter.complete)
})

t.test('with a limit, emits exactly the elements that fit and reports the others, however cut', async (t) => {
  await fc.assert(
    fc.property(fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 10 }), fc.nat(120), fc.array(fc.nat(400), { maxLength: 6 }), (elements, limit, cuts) => {
      const bytes = Buffer.from(JSON.stringify(elements))
      const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
      const splitter = new ArraySplitter(limit)
      const out: string[] = []
      const dropped: number[] = []
      let from = 0
      for (const p of [...points, bytes.length]) {
        splitter.push(bytes.subarray(from, p), (e) => out.push(e.toString('utf8')), (size) => dropped.push(size))
        from = p
      }
      const texts = elements.map((e) => JSON.stringify(e))
      const fits = texts.filter((s) => Buffer.byteLength(s) <= limit)
      const over = texts.filter((s) => Buffer.byteLength(s) > limit).map((s) => Buffer.byteLength(s))
      return JSON.stringify(out) === JSON.stringify(fits) && JSON.stringify(dropped) === JSON.stringify(over)
    }),
    { numRuns: 300 },
  )
  t.pass('300 arrays with random limits and cuts')
})

t.test('scanning is linear in the bytes: four times the string, escaped or plain, takes about four times as long', async (t) => {
  const time = (body: string) => {
    const bytes = Buffer.from(`[{"s":"${body}"}]`)
    const started = performance.now()
    const splitter = new ArraySplitter(1024)
    let dropped = 0
    for (let i = 0; i < bytes.length; i += 16_384) splitter.push(bytes.subarray(i, i + 16_384), () => {}, () => dropped++)
    t.equal(dropped, 1)
    return performance.now() - started
  }
  for (const unit of ['a', '\\"', 'a\\"']) {
    const small = time(unit.repeat(4_000_000 / unit.length))
    const large = time(unit.repeat(16_000_000 / unit.length))
    // Generous against a shared machine's noise; a quadratic scan would take 16 times as long.
    t.ok(large < 8 * small + 50 && large < 2000, `${JSON.stringify(unit)}: 4 MB in ${small.toFixed(0)} ms, 16 MB in ${large.toFixed(0)} ms`)
  }
})

t.test('an event over the limit becomes a svc.event_dropped marker; the events around it are byte-identical', async (t) => {
  const before = '{"type":3,"data":{"n":1},"timestamp":1000}'
  const big = `{"type":2,"data":{"pad":"${'p'.repeat(5000)}"},"timestamp":1001}`
  const after = '{"type":3,"data":{"n":2},"timestamp":1002}'
  const text = await joinedWith([stored(0, 'gzip', gzipSync(`[${before},${big},${after}]`)), stored(1, 'json', Buffer.from(`[${after}]`))], { maxEventBytes: 4096 })
  const events = JSON.parse(text)
  t.equal(events.length, 4)
  t.ok(text.startsWith(`[${before},`) && text.endsWith(`,${after},${after}]`), 'neighbours as stored')
  t.ok(MARK('svc.event_dropped')(events[1]), 'a marker in the dropped event\'s place')
  t.same(events[1].data.payload, { seq: 0, bytes: Buffer.byteLength(big), limit: 4096 })
  t.equal(events[1].timestamp, 1001, 'at the dropped event\'s own timestamp')
})

t.test('a gzip chunk is inflated only up to its limit: a bomb is cut, the events before it and the next chunks are kept', async (t) => {
  const before = '{"type":3,"data":{"n":1},"timestamp":5}'
  const bomb = gzipSync(`[${before},{"type":3,"data":{"pad":"${'a'.repeat(20_000_000)}"},"timestamp":6},{"n":"lost"}]`, { level: 9 })
  t.ok(bomb.length < 40_000, `${bomb.length} bytes of gzip for 20 MB`)
  const next = '{"type":3,"data":{"n":2},"timestamp":7}'
  const text = await joinedWith([stored(0, 'gzip', bomb), stored(1, 'gzip', gzipSync(`[${next}]`))], { maxEventBytes: 1_000_000, maxChunkInflatedBytes: 2_000_000 })
  const events = JSON.parse(text)
  t.equal(events.length, 3)
  t.ok(text.startsWith(`[${before},`) && text.endsWith(`,${next}]`))
  t.ok(MARK('svc.chunk_cut')(events[1]))
  t.same(events[1].data.payload, { seq: 0, limit: 2_000_000 })
  t.equal(events[1].timestamp, 5, 'at the last timestamp seen')
})

t.test('maxAnswerBytes ends the array after the last whole event that fits, with a svc.answer_truncated marker', async (t) => {
  const all = Array.from({ length: 200 }, (_, n) => ({ type: 3, data: { n, pad: 'y'.repeat(50) }, timestamp: n }))
  const text = await joinedWith([stored(0, 'gzip', gzipSync(JSON.stringify(all.slice(0, 100)))), stored(1, 'json', Buffer.from(JSON.stringify(all.slice(100))))], { maxAnswerBytes: 4096 })
  t.ok(Buffer.byteLength(text) <= 4096, `${Buffer.byteLength(text)} bytes`)
  const events = JSON.parse(text)
  const last = events.pop()
  t.ok(MARK('svc.answer_truncated')(last))
  t.same(last.data.payload, { maxBytes: 4096 })
  t.equal(last.timestamp, events.length - 1)
  t.same(events, all.slice(0, events.length), 'a prefix of the recording')
  t.ok(events.length > 30)
  t.equal(JSON.parse(await joinedWith([stored(0, 'json', Buffer.from(JSON.stringify(all)))], { maxAnswerBytes: 1_000_000 })).length, 200, 'no marker when it all fits')
})

async function joinedWith(chunks: StoredChunk[], limits: EventLimits): Promise<string> {
  const parts: Buffer[] = []
  for await (const part of recordingEvents(chunks, limits)) parts.push(part as Buffer)
  return Buffer.concat(parts).toString('utf8')
}
