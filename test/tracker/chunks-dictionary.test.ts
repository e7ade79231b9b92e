/**
 * The tracker's recording buffer (tracker/src/chunks.ts) and its session
 * dictionary of added nodes and of text and attribute values
 * (tracker/src/compact.ts, issue 47), run in Node
 * against a scripted transport: a chunk names only contents that an
 * acknowledged chunk wrote, and a chunk sent again at unload is the same
 * bytes. Every stored chunk read back through the events API's reader gives
 * the events pushed. No browser: the page's globals the buffer reads are set here.
 */
import { gunzipSync } from 'node:zlib'
import t from 'tap'
import { createChunks, type Batch } from '../../tracker/src/chunks.js'
import { createGuard } from '../../tracker/src/guard.js'
import type { Outcome, Transport } from '../../tracker/src/transport.js'
import { recordingEvents, type StoredChunk } from '../../src/recordings/events.js'

Object.assign(globalThis, { innerWidth: 800, innerHeight: 600, devicePixelRatio: 1, screen: { width: 800, height: 600 } })
if (typeof navigator === 'undefined') Object.assign(globalThis, { navigator: {} })

interface Sent {
  seq: number
  text: string
}

/** A transport that answers each chunk with the next outcome of `answers` ('hang': never answers). */
function scripted(answers: (Outcome | 'hang')[]) {
  const sent: Sent[] = []
  const transport: Transport = {
    async send(path, body, options) {
      if (path !== 'ingest') return 'ok'
      const meta = JSON.parse(options!.headers!['X-Svc-Meta'])
      const bytes = Buffer.from(body as Uint8Array)
      sent.push({ seq: meta.seq, text: (meta.encoding === 'gzip' ? gunzipSync(bytes) : bytes).toString('utf8') })
      const answer = options?.unloading ? 'ok' : answers.shift() ?? 'ok'
      return answer === 'hang' ? new Promise<Outcome>(() => {}) : answer
    },
    beacon: () => true,
    stopped: false,
    counters: { sent: 0, retries: 0, failed: 0, refused: 0 },
  }
  return { transport, sent }
}

function buffer(transport: Transport) {
  let seq = 0
  const ctx = { sk: 'sk', vid: 'vid', startedAt: 1, pageIndex: 0, url: 'https://example.test/', u: 0 }
  return createChunks({ transport, guard: createGuard(), nextSeq: () => ++seq, identity: () => undefined, ctx, verdict: () => 0, keep: (_: Batch[]) => {}, lost: () => {} })
}

/** A mutation event that only adds nodes, as rrweb writes one. */
const adding = (timestamp: number, adds: unknown[]) => ({ type: 3, data: { source: 0, texts: [], attributes: [], removes: [], adds }, timestamp })

/** A re-rendered row: the same four nodes under new ids. */
const row = (id: number, timestamp: number) =>
  adding(timestamp, [
    { parentId: 7, nextId: null, node: { type: 2, tagName: 'div', attributes: { class: 'grid-row', role: 'row' }, childNodes: [], id } },
    { parentId: id, nextId: null, node: { type: 3, textContent: 'Ada Lovelace', id: id + 1 } },
  ])

const until = async (what: () => boolean) => {
  for (let i = 0; i < 200 && !what(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
}

async function read(sent: Sent[]): Promise<unknown[]> {
  // The server keeps the first copy of a seq.
  const kept = [...new Map([...sent].reverse().map((s) => [s.seq, s])).values()].sort((a, b) => a.seq - b.seq)
  const chunks: StoredChunk[] = kept.map((s) => ({ seq: s.seq, encoding: 'json', pageIndex: 0, load: () => Buffer.from(s.text) }))
  const out: Buffer[] = []
  for await (const piece of recordingEvents(chunks)) out.push(piece as Buffer)
  return JSON.parse(Buffer.concat(out).toString('utf8'))
}

t.test('a chunk names what an acknowledged chunk wrote, and writes again what a failed one did', async (t) => {
  const { transport, sent } = scripted(['ok', 'failed', 'ok', 'ok'])
  const chunks = buffer(transport)
  const pushed: any[] = []
  const push = (event: any) => (pushed.push(event), chunks.push(event))
  push({ type: 4, data: { href: 'https://example.test/', width: 800, height: 600 }, timestamp: 1 })
  push(row(100, 2))
  for (const [n, id] of [[1, 200], [2, 300], [3, 400]]) {
    chunks.flush()
    await until(() => sent.length === n)
    push(row(id, 10 * n))
  }
  chunks.flush()
  await until(() => sent.length === 4)
  const [first, second, third, fourth] = sent.map((s) => s.text)
  t.ok(first.includes('grid-row') && first.includes('"d":0'), 'the first chunk writes the row whole')
  t.notOk(second.includes('grid-row'), 'the second, after the first was acknowledged, names it')
  t.ok(second.includes('"A":[[0,200,193],[1,1,1]]'), 'by its indexes alone (ids as differences: 200, under 7; 201, under 200, not its sibling)')
  t.notOk(third.includes('grid-row'), 'a failed chunk wrote nothing new: the third names the first\'s row too')
  t.notOk(fourth.includes('grid-row'), 'and so does the fourth')
  const stored = sent.filter((_, i) => i !== 1)
  t.same(await read(stored), pushed.filter((e) => e.timestamp !== 10), 'read back without the lost chunk, the events pushed')
})

t.test('a row first written in a chunk that fails is written again by the next one', async (t) => {
  const { transport, sent } = scripted(['ok', 'refused', 'ok'])
  const chunks = buffer(transport)
  const meta = { type: 4, data: { href: 'https://example.test/', width: 800, height: 600 }, timestamp: 1 }
  chunks.push(meta)
  chunks.flush()
  await until(() => sent.length === 1)
  chunks.push(row(100, 2))
  chunks.flush()
  await until(() => sent.length === 2)
  chunks.push(row(200, 3))
  chunks.flush()
  await until(() => sent.length === 3)
  t.ok(sent[2].text.includes('grid-row'), 'the refused chunk\'s row is written whole again')
  t.same(await read([sent[0], sent[2]]), [meta, row(200, 3)], 'read back without the refused chunk, the events pushed')
})

t.test('at unload the chunk still unanswered is sent again as the same events, and the chunks after it name nothing it wrote', async (t) => {
  const { transport, sent } = scripted(['ok', 'hang'])
  const chunks = buffer(transport)
  const pushed: any[] = [{ type: 4, data: { href: 'https://example.test/', width: 800, height: 600 }, timestamp: 1 }]
  chunks.push(pushed[0])
  chunks.flush()
  await until(() => sent.length === 1)
  pushed.push(row(100, 2))
  chunks.push(pushed[1])
  chunks.flush()
  await until(() => sent.length === 2)
  pushed.push(row(200, 3))
  chunks.push(pushed[2])
  chunks.flushNow(() => {})
  t.equal(sent.length, 4, 'the hanging chunk again, and the last one')
  t.equal(sent[2].seq, sent[1].seq, 'under the seq it had')
  t.equal(sent[2].text, sent[1].text, 'the same events, written the same')
  t.ok(sent[3].text.includes('grid-row'), 'the last chunk writes the row whole: the one before it was never acknowledged')
  t.same(await read(sent), pushed, 'read back, the events pushed')
})

/**
 * Three chunks, one event each after the page's Meta: the first acknowledged, the second failed, the third
 * acknowledged. Answers what was sent and every event pushed.
 */
async function acknowledgedFailedAcknowledged(events: any[]): Promise<{ sent: ReturnType<typeof scripted>['sent']; pushed: any[] }> {
  const { transport, sent } = scripted(['ok', 'failed', 'ok'])
  const chunks = buffer(transport)
  const pushed: any[] = [{ type: 4, data: { href: 'https://example.test/', width: 800, height: 600 }, timestamp: 1 }, events[0]]
  pushed.forEach((event) => chunks.push(event))
  for (const [n, event] of [[1, events[1]], [2, events[2]]] as const) {
    chunks.flush()
    await until(() => sent.length === n)
    pushed.push(event)
    chunks.push(event)
  }
  chunks.flush()
  await until(() => sent.length === 3)
  return { sent, pushed }
}

/** The editor's cursor moved: an attribute change whose class repeats, and a text. */
const cursor = (timestamp: number, value: string) => ({
  type: 3,
  data: { source: 0, texts: [{ id: 9, value }], attributes: [{ id: 8, attributes: { class: 'cursor monaco-mouse-cursor-text' } }], removes: [], adds: [] },
  timestamp,
})

t.test('text and attribute values: named once acknowledged, written whole again after a failed chunk', async (t) => {
  const { sent, pushed } = await acknowledgedFailedAcknowledged([cursor(2, 'the first line'), cursor(3, 'a line the failed chunk sent'), cursor(4, 'a line the failed chunk sent')])
  t.ok(sent[0].text.includes('"t":[[9,"the first line"]],"at":[[-1,{"class":"cursor monaco-mouse-cursor-text"}]]'), 'the first chunk writes the values whole')
  t.ok(sent[1].text.includes('"at":[[-1,2]]') && !sent[1].text.includes('monaco-mouse-cursor'), 'the next names the acknowledged attributes by index')
  t.ok(sent[2].text.includes('"a line the failed chunk sent"'), 'the value the failed chunk wrote is written whole again')
  t.same(await read([sent[0], sent[2]]), pushed.filter((e) => e.timestamp !== 3), 'read back without the failed chunk, the events pushed')
})

/** A grid row's cells, as rrweb adds them: siblings under the row, last first, each before the add before it. */
const cells = (id: number, timestamp: number) =>
  adding(timestamp, [
    { parentId: 7, nextId: null, node: { type: 2, tagName: 'div', attributes: { class: 'grid-row' }, childNodes: [], id } },
    ...['Ada', 'Lovelace', '1815'].map((label, i) => ({ parentId: id, nextId: i ? id + i : null, node: { type: 3, textContent: label, id: id + 1 + i } })),
  ])

t.test('siblings under one parent are written `A`: one index each, across chunks, a failed one aside', async (t) => {
  const { sent, pushed } = await acknowledgedFailedAcknowledged([cells(100, 2), cells(200, 3), cells(300, 4)])
  t.ok(sent[0].text.includes('"A":[[["div",{"class":"grid-row"}],100,93],["Ada",1,1],["Lovelace"],["1815"]]'), 'the first chunk: the row, its first cell under it, the others its siblings')
  t.ok(sent[2].text.includes('"A":[[0,300,293],[1,1,1],2,3]'), 'a later one names them, the cells after the first by a bare index')
  t.notOk(sent.some((s) => s.text.includes('"a":')), 'never the old `a`')
  t.same(await read([sent[0], sent[2]]), pushed.filter((e) => e.timestamp !== 3), 'read back without the failed chunk, the events pushed')
})
