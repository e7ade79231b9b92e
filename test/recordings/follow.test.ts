/**
 * The live feed (src/recordings/follow.ts) on a source it is handed, with
 * short timings: the history from the last checkpoint, then each chunk as it
 * appears (a late one too), once; each look reads only the last few chunks;
 * added nodes named by index across looks are put back (issue 47); and each
 * way a feed ends, with its reason.
 */
import t from 'tap'
import { followEvents, type FollowSource } from '../../src/recordings/follow.js'
import type { ChunkInfo } from '../../src/store/records.js'
import { createDictionary } from '../../tracker/src/compact.js'

const info = (seq: number, extra: Partial<ChunkInfo> = {}): ChunkInfo => ({ seq, pageIndex: 0, url: 'https://shop.test/', firstTs: 1000 + seq, lastTs: 1000 + seq, eventCount: 1, encoding: 'json', size: 10, receivedAt: Date.now(), ...extra })
const body = (seq: number) => Buffer.from(JSON.stringify([{ type: 3, timestamp: 1000 + seq, data: { mark: `m-${seq}` } }]))

function source(initial: ChunkInfo[]) {
  const chunks = [...initial]
  const asked: number[] = []
  let gone = false
  const src: FollowSource = {
    chunks(fromSeq = 0) {
      asked.push(fromSeq)
      return gone ? undefined : chunks.filter((c) => c.seq >= fromSeq).sort((a, b) => a.seq - b.seq)
    },
    load: (c) => () => body(c.seq),
  }
  return { src, chunks, asked, goAway: () => (gone = true) }
}

/** Reads the feed until `until` holds or it ends; not `for await`, whose break would end the feed. */
async function read(feed: AsyncGenerator<Buffer>, until: (lines: any[]) => boolean, lines: any[] = []) {
  while (!until(lines)) {
    const next = await feed.next()
    if (next.done) break
    for (const line of next.value.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line))
  }
  return lines
}

const marks = (lines: any[]) => lines.filter((l) => l.type === 3).map((l) => l.data.mark)
const ended = (lines: any[]) => lines.find((l) => l.data?.tag === 'svc.live_ended')?.data.payload.reason

t.test('history from the last checkpoint, then new and late chunks once each, each look reading the last few', async (t) => {
  const s = source([info(0, { checkpoint: true }), info(1), info(2, { checkpoint: true }), info(3)])
  const stop = new AbortController()
  // A heartbeat at every look: the reads below wait for the feed's lines, and a quiet feed would keep them waiting.
  const feed = followEvents(s.src, { pollMs: 5, heartbeatMs: 1, idleMs: 60_000, maxMs: 60_000, signal: stop.signal })
  const lines = await read(feed, (l) => l.some((x) => x.data?.tag === 'svc.live'))
  t.same(marks(lines), ['m-2', 'm-3'], 'the history starts at the last checkpoint')
  s.chunks.push(info(5))
  await read(feed, (l) => marks(l).includes('m-5'), lines)
  s.chunks.push(info(4)) // a retry that landed late
  await read(feed, (l) => marks(l).includes('m-4'), lines)
  t.same(marks(lines), ['m-2', 'm-3', 'm-5', 'm-4'], 'in the order they landed, none twice')
  for (let seq = 6; seq < 200; seq++) s.chunks.push(info(seq))
  await read(feed, (l) => marks(l).includes('m-199'), lines)
  const before = s.asked.length
  await read(feed, () => s.asked.length > before + 2, lines)
  t.ok(s.asked.slice(before).every((from) => from === 199 - 64), `then each look reads from seq ${199 - 64}, not from 0`)
  stop.abort()
  await feed.return(undefined)
})

t.test('a feed ends when the visitor leaves, goes idle, the recording goes, or its time is up', async (t) => {
  const left = source([info(0, { checkpoint: true })])
  const leaving = followEvents(left.src, { pollMs: 5, heartbeatMs: 10_000, idleMs: 60_000, maxMs: 60_000, signal: new AbortController().signal })
  const leftLines = await read(leaving, (l) => l.some((x) => x.data?.tag === 'svc.live'))
  left.chunks.push(info(1, { left: true }))
  await read(leaving, () => false, leftLines)
  t.same([marks(leftLines), ended(leftLines)], [['m-0', 'm-1'], 'left'], 'the last chunk\'s events, then left')
  const already = source([info(0, { checkpoint: true }), info(1, { left: true })])
  const late = await read(followEvents(already.src, { pollMs: 5, heartbeatMs: 10_000, idleMs: 60_000, maxMs: 60_000, signal: new AbortController().signal }), () => false)
  t.same([marks(late), ended(late)], [['m-0', 'm-1'], 'left'], 'a visit that had left before the follow began: its history, then left')

  const idle = source([info(0, { checkpoint: true, receivedAt: Date.now() - 10_000 })])
  t.equal(ended(await read(followEvents(idle.src, { pollMs: 5, heartbeatMs: 10_000, idleMs: 1_000, maxMs: 60_000, signal: new AbortController().signal }), () => false)), 'idle')

  const gone = source([info(0, { checkpoint: true })])
  const going = followEvents(gone.src, { pollMs: 5, heartbeatMs: 10_000, idleMs: 60_000, maxMs: 60_000, signal: new AbortController().signal })
  gone.goAway()
  t.equal(ended(await read(going, () => false)), 'gone')

  const limited = source([info(0, { checkpoint: true })])
  t.equal(ended(await read(followEvents(limited.src, { pollMs: 5, heartbeatMs: 10_000, idleMs: 60_000, maxMs: 20, signal: new AbortController().signal }), () => false)), 'limit')
})

t.test('a chunk that arrives in a later look names added nodes an earlier look read: the feed puts back plain adds', async (t) => {
  const dictionary = createDictionary()
  const row = (id: number, timestamp: number) => ({ type: 3, data: { source: 0, texts: [], attributes: [], removes: [], adds: [{ parentId: 7, nextId: null, node: { type: 2, tagName: 'li', attributes: { class: 'row' }, childNodes: [], id } }] }, timestamp })
  const written = (events: object[], checkpoint = false) => {
    const out = dictionary.write(events.map((e) => JSON.stringify(e)), 'sk:0', checkpoint)
    out.settle(true)
    return Buffer.from('[' + out.parts.join(',') + ']')
  }
  const bodies = [written([{ type: 4, data: { href: 'https://shop.test/' }, timestamp: 1000 }, row(10, 1001)], true), written([row(20, 1002)])]
  t.notOk(bodies[1].toString().includes('"row"'), 'the second chunk names the row by index')
  const chunks = [info(0, { checkpoint: true })]
  const src: FollowSource = { chunks: () => chunks, load: (c) => () => bodies[c.seq] }
  const stop = new AbortController()
  const feed = followEvents(src, { pollMs: 5, heartbeatMs: 1, idleMs: 60_000, maxMs: 60_000, signal: stop.signal })
  const lines = await read(feed, (l) => l.some((x) => x.data?.tag === 'svc.live'))
  chunks.push(info(1))
  await read(feed, (l) => l.filter((x) => x.type === 3).length === 2, lines)
  t.same(lines.filter((l) => l.type === 3), [row(10, 1001), row(20, 1002)], 'both rows as rrweb emitted them')
  stop.abort()
  await feed.return(undefined)
})
