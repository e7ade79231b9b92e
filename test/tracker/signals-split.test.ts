/**
 * The signals queue's bodies (tracker/src/signals.ts), on Node: a batch goes
 * as one body stringified once; one over the server's byte cap (counted in
 * UTF-8, not in characters) is halved until each part fits, every entry sent
 * exactly once, each part under its own batch id, and what is not an entry
 * (the dropped count, the loss reports) with the first part only.
 */
import t from 'tap'
import { createSignals } from '../../tracker/src/signals.js'
import { SIGNALS_CAP_BYTES } from '../../tracker/src/config.js'
import type { Guard } from '../../tracker/src/guard.js'
import type { Transport } from '../../tracker/src/transport.js'

const guard = { wrap: (fn: any) => fn, run: (fn: any) => fn(), fault: () => {} } as unknown as Guard

function queue() {
  const sent: string[] = []
  const transport = {
    stopped: false,
    counters: { sent: 0, retries: 0, failed: 0, refused: 0 },
    send: async (path: string, body: string) => (path === 'signals' && sent.push(body), 'ok'),
    beacon: () => true,
  } as unknown as Transport
  const signals = createSignals(transport, guard, () => ({ sk: 's1', vid: 'v1', startedAt: 1 }))
  const parsed = () => sent.map((body) => JSON.parse(body))
  return { signals, sent, parsed }
}

const bytes = (body: string) => Buffer.byteLength(body, 'utf8')
const error = (i: number, text: string) => ({ at: i, message: `${i} ${text}` }) as any

t.test('a batch under the cap goes as one body with its batch id', async (t) => {
  const { signals, sent, parsed } = queue()
  signals.view({ url: 'https://example.com/a' } as any)
  signals.click({ t: 1, x: 2 } as any)
  signals.flush()
  t.equal(sent.length, 1)
  const [batch] = parsed()
  t.match(batch, { sk: 's1', vid: 'v1', views: [{ url: 'https://example.com/a' }], clicks: [{ t: 1, x: 2 }], errors: [] })
  t.match(batch.batchId, /^[0-9a-f]{12}\.0$/)
  signals.flush()
  t.equal(sent.length, 1, 'nothing queued, nothing sent')
})

t.test('a body whose length times three passes the cap but whose UTF-8 does not is measured, not split', async (t) => {
  const { signals, sent } = queue()
  // 100 ASCII messages of 1,000 characters: 100 kB, under the cap; three bytes a character would be 300 kB, over it.
  for (let i = 0; i < 100; i++) signals.error(error(i, 'a'.repeat(1000)))
  signals.flush()
  t.equal(sent.length, 1, 'one body')
  t.ok(sent[0].length * 3 > SIGNALS_CAP_BYTES && bytes(sent[0]) <= SIGNALS_CAP_BYTES, 'the case the length alone cannot decide')
})

t.test('a batch over the cap in UTF-8 is halved until every part fits, each entry sent once', async (t) => {
  const { signals, sent, parsed } = queue()
  // 100 messages of 1,000 euro signs: 100,000 characters, 300 kB of UTF-8.
  for (let i = 0; i < 100; i++) signals.error(error(i, '€'.repeat(1000)))
  signals.lost({ reason: 'queue-full', events: 3 } as any)
  signals.flush()
  t.ok(sent.length >= 2, `split in ${sent.length}`)
  for (const body of sent) t.ok(bytes(body) <= SIGNALS_CAP_BYTES, `a part of ${bytes(body)} bytes fits`)
  const batches = parsed()
  t.same(batches.flatMap((b) => b.errors.map((e: { at: number }) => e.at)), Array.from({ length: 100 }, (_, i) => i), 'every entry once, in order')
  t.equal(new Set(batches.map((b) => b.batchId)).size, batches.length, 'a batch id per part')
  t.same(batches.map((b) => Boolean(b.lost)), batches.map((_, i) => i === 0), 'the loss report with the first part only')
})
