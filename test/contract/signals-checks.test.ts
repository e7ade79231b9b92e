/**
 * Validation of a signals batch: the envelope decides whether the batch is
 * recorded at all; each entry is then kept or dropped (and counted) alone.
 */
import t from 'tap'
import { LIMITS } from '../../src/config.js'
import { clampStartedAt, parseSignals } from '../../src/contract/signals-checks.js'

const NOW = 1_800_000_000_000
const bytes = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value))
const view = { url: 'https://shop.test/', startedAt: NOW - 5_000, title: 'Home', vw: 1280, vh: 720, docH: 4000, endedAt: NOW, activeMs: 4000, maxScrollPct: 55.5, exit: false, quickBack: false }
const click = { url: 'https://shop.test/', ts: NOW - 1_000, xRatio: 0.25, yDoc: 812, vw: 1280, docH: 4000, selector: 'button.buy', label: 'Buy', tag: 'button', interactive: true, kind: 'click', n: 1 }
const error = { url: 'https://shop.test/', ts: NOW - 500, message: 'TypeError: x is undefined' }

function parsed(value: unknown) {
  const result = parseSignals(bytes(value), NOW)
  if (!result.ok) throw new Error(`expected a batch, got ${result.error}`)
  return result.batch
}

t.test('keeps a valid batch whole, with the client\'s dropped count', async (t) => {
  t.same(parsed({ sk: 's', vid: 'v', dropped: 4, views: [view], clicks: [click], errors: [error] }), { sk: 's', vid: 'v', dropped: 4, views: [view], clicks: [click], errors: [error] })
  t.same(parsed({ sk: 's', vid: 'v' }), { sk: 's', vid: 'v', dropped: 0, views: [], clicks: [], errors: [] })
})

t.test('keeps console texts, failed requests and a referrer within their bounds; drops and counts the rest alone', async (t) => {
  const line = { ts: NOW - 400, level: 'error', text: 'Cart failed to load' }
  const request = { ts: NOW - 300, method: 'POST', url: 'https://api.shop.test/cart', status: 503 }
  const from = { ...view, referrer: 'https://www.google.com' }
  t.same(parsed({ sk: 's', vid: 'v', views: [from], console: [line], requests: [request] }), { sk: 's', vid: 'v', dropped: 0, views: [from], clicks: [], errors: [], console: [line], requests: [request] })
  const bad = parsed({
    sk: 's',
    vid: 'v',
    views: [from, { ...view, referrer: 'https://www.google.com/search?q=secret' }, { ...view, referrer: 'google.com' }, { ...view, referrer: 'h'.repeat(257) }],
    console: [line, { ...line, text: 'x'.repeat(257) }, { ...line, level: 'log' }, { ts: NOW }, { ...line, ts: 'now' }],
    requests: [request, { ...request, url: 'u'.repeat(257) }, { ...request, method: 'M'.repeat(17) }, { ...request, status: 1000 }, { ts: NOW, url: 'x' }],
  })
  t.same([bad.views, bad.console, bad.requests], [[from], [line], [request]], 'a referrer with a path or query, or not an origin, drops its view; a bad text or request drops alone')
  t.equal(bad.dropped, 11, 'each counted')
  const many = parsed({ sk: 's', vid: 'v', console: Array.from({ length: 12 }, () => line), requests: Array.from({ length: 11 }, () => request) })
  t.same([many.console?.length, many.requests?.length, many.dropped], [10, 10, 3], 'past 10 of each, dropped and counted')
  t.same(parseSignals(bytes({ sk: 's', vid: 'v', console: {} }), NOW).ok, false, 'console not an array: the batch is refused, as views would be')
  t.same(parseSignals(bytes({ sk: 's', vid: 'v', requests: 'x' }), NOW).ok, false, 'requests not an array: refused')
  t.notOk('console' in parsed({ sk: 's', vid: 'v', console: [] }), 'none: absent from the batch')
})

t.test('refuses a body that is not JSON', async (t) => {
  for (const body of ['', '{', 'sk=s&vid=v', '{"sk":"s","vid":"v"', '\u0000']) t.match(parseSignals(bytes(body), NOW), { ok: false, error: String }, JSON.stringify(body))
})

t.test('refuses JSON that is not a signals batch', async (t) => {
  const bad: unknown[] = [null, [], 'batch', 3, { vid: 'v' }, { sk: 's' }, { sk: '', vid: 'v' }, { sk: 's'.repeat(257), vid: 'v' }, { sk: 's', vid: 'v'.repeat(257) }, { sk: 's', vid: 'v', views: {} }, { sk: 's', vid: 'v', clicks: 'x' }, { sk: 's', vid: 'v', errors: null }, { sk: 's', vid: 'v', dropped: -1 }, { sk: 's', vid: 'v', startedAt: 'now' }]
  for (const value of bad) t.match(parseSignals(bytes(value), NOW), { ok: false }, JSON.stringify(value).slice(0, 60))
})

t.test('drops one bad click alone and counts it; the good ones are kept', async (t) => {
  const batch = parsed({ sk: 's', vid: 'v', clicks: [click, { ...click, xRatio: 'left' }, { ...click, ts: NOW }] })
  t.same(batch.clicks, [click, { ...click, ts: NOW }])
  t.equal(batch.dropped, 1)
})

t.test('adds the entries it drops to the client\'s dropped count', async (t) => {
  t.equal(parsed({ sk: 's', vid: 'v', dropped: 3, views: [{ url: 'x' }], errors: [{ url: 'x', ts: 1 }] }).dropped, 5)
})

t.test('keeps the four click kinds and drops any other', async (t) => {
  const kinds = ['click', 'rage', 'dead', 'error']
  const batch = parsed({ sk: 's', vid: 'v', clicks: [...kinds, 'Rage', 'hover', '', 7].map((kind) => ({ ...click, kind })) })
  t.same(batch.clicks.map((c) => c.kind), kinds)
  t.equal(batch.dropped, 4)
})

t.test('drops entries with a missing required field or a value out of bounds', async (t) => {
  const clicks = [
    { url: 'x', ts: 1, xRatio: 0.5 },
    { ...click, xRatio: 1.5 },
    { ...click, yDoc: -1 },
    { ...click, url: 'u'.repeat(2001) },
    { ...click, selector: 's'.repeat(257) },
    { ...click, label: 'l'.repeat(257) },
    { ...click, tag: 't'.repeat(41) },
    { ...click, ts: 1.5 },
    { ...click, n: 0 },
    'click',
    null,
    [click],
  ]
  const views = [{ ...view, url: 'u'.repeat(2001) }, { ...view, title: 't'.repeat(257) }, { ...view, maxScrollPct: 101 }, { url: 'x' }]
  const errors = [{ ...error, message: 'm'.repeat(257) }, { ...error, url: 'u'.repeat(2001) }, { url: 'x', ts: 1 }]
  const batch = parsed({ sk: 's', vid: 'v', views, clicks, errors })
  t.same([batch.views, batch.clicks, batch.errors], [[], [], []])
  t.equal(batch.dropped, clicks.length + views.length + errors.length)
})

t.test('keeps strings at their maximum length', async (t) => {
  const batch = parsed({
    sk: 's'.repeat(256),
    vid: 'v'.repeat(256),
    views: [{ ...view, url: 'u'.repeat(2000), title: 't'.repeat(256) }],
    clicks: [{ ...click, url: 'u'.repeat(2000), selector: 's'.repeat(256), label: 'l'.repeat(256), tag: 't'.repeat(40) }],
    errors: [{ ...error, url: 'u'.repeat(2000), message: 'm'.repeat(256) }],
  })
  t.equal(batch.views.length + batch.clicks.length + batch.errors.length, 3)
  t.equal(batch.dropped, 0)
})

t.test('truncates arrays over their bounds and counts what it cut as dropped', async (t) => {
  const batch = parsed({
    sk: 's',
    vid: 'v',
    views: Array.from({ length: LIMITS.views + 5 }, (_, i) => ({ ...view, startedAt: i })),
    clicks: Array.from({ length: LIMITS.clicks + 1 }, (_, i) => ({ ...click, ts: i })),
    errors: Array.from({ length: LIMITS.errors + 2 }, (_, i) => ({ ...error, ts: i })),
  })
  t.equal(LIMITS.views, 200)
  t.equal(LIMITS.clicks, 2000)
  t.equal(LIMITS.errors, 100)
  t.equal(batch.views.length, 200)
  t.equal(batch.clicks.length, 2000)
  t.equal(batch.errors.length, 100)
  // The first entries are the ones kept.
  t.equal(batch.views[199].startedAt, 199)
  t.equal(batch.clicks[1999].ts, 1999)
  t.equal(batch.dropped, 5 + 1 + 2)
})

t.test('invalid entries do not use up the bound', async (t) => {
  const batch = parsed({ sk: 's', vid: 'v', errors: [{ bad: true }, ...Array.from({ length: 100 }, () => error)] })
  t.equal(batch.errors.length, 100)
  t.equal(batch.dropped, 1)
})

t.test('clamps startedAt to a window around the server clock', async (t) => {
  t.equal(parsed({ sk: 's', vid: 'v', startedAt: NOW - 60_000 }).startedAt, NOW - 60_000)
  t.equal(parsed({ sk: 's', vid: 'v', startedAt: 0 }).startedAt, NOW - LIMITS.clampPastMs)
  t.equal(parsed({ sk: 's', vid: 'v', startedAt: NOW + 365 * 86_400_000 }).startedAt, NOW + LIMITS.clampFutureMs)
  t.equal(parsed({ sk: 's', vid: 'v', startedAt: -1 }).startedAt, NOW - LIMITS.clampPastMs)
  t.notOk('startedAt' in parsed({ sk: 's', vid: 'v' }))
  t.equal(clampStartedAt(NOW, NOW), NOW)
})

t.test('stores only the documented fields of an entry: unknown members and __proto__ keys are left out', async (t) => {
  const body = `{"sk":"s","vid":"v","__proto__":{"polluted":true},"clicks":[{"url":"u","ts":1,"xRatio":0.5,"yDoc":1,"extra":"x","__proto__":{"kind":"bogus"}}],"views":[{"__proto__":{"url":"u","startedAt":1}}]}`
  const result = parseSignals(bytes(body), NOW)
  if (!result.ok) throw new Error(result.error)
  t.same(result.batch.clicks, [{ url: 'u', ts: 1, xRatio: 0.5, yDoc: 1 }])
  t.notOk(Object.hasOwn(result.batch.clicks[0], '__proto__'))
  t.notOk(Object.hasOwn(result.batch, '__proto__'))
  t.equal(Object.getPrototypeOf(result.batch.clicks[0]), Object.prototype)
  // A view whose fields sit only under __proto__ has none of its own: dropped.
  t.same(result.batch.views, [])
  t.equal(result.batch.dropped, 1)
  t.equal(({} as Record<string, unknown>).polluted, undefined)
  t.equal(({} as Record<string, unknown>).kind, undefined)
})

t.test('deep nesting is refused or dropped, never thrown', async (t) => {
  const deep = '['.repeat(100_000) + ']'.repeat(100_000)
  t.match(parseSignals(bytes(deep), NOW), { ok: false })
  const inside = parseSignals(bytes(`{"sk":"s","vid":"v","clicks":[${deep}],"views":[{"url":"u","startedAt":1,"title":${deep}}]}`), NOW)
  t.match(inside, { ok: true, batch: { clicks: [], views: [], dropped: 2 } })
  const objects = '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000)
  t.match(parseSignals(bytes(objects), NOW), { ok: false })
})

t.test('invalid UTF-8 is refused when it breaks the JSON, and replaced by U+FFFD inside a string', async (t) => {
  t.match(parseSignals(Buffer.from([0xff, 0xfe, 0x7b, 0x7d]), NOW), { ok: false })
  const inString = Buffer.concat([Buffer.from('{"sk":"s'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('","vid":"v"}')])
  t.match(parseSignals(inString, NOW), { ok: true, batch: { sk: 's\ufffd(\ufffd' } })
})

t.test('counts an entry\'s string lengths in characters, as the contract does, not in UTF-16 units', async (t) => {
  const emoji = '\u{1F600}' // one character, two UTF-16 units
  const batch = parsed({ sk: 's', vid: 'v', clicks: [{ ...click, label: emoji.repeat(256) }, { ...click, label: emoji.repeat(257) }, { ...click, label: 'é'.repeat(256) }] })
  t.same(batch.clicks.map((c) => [...(c.label ?? '')].length), [256, 256], 'the 256-character labels kept, astral or not')
  t.equal(batch.dropped, 1, 'the 257-character label dropped')
  const errors = parsed({ sk: 's', vid: 'v', errors: [{ ...error, message: emoji.repeat(256) }, { ...error, message: `${emoji.repeat(256)}x` }] })
  t.same([errors.errors.length, errors.dropped], [1, 1], 'a message over 256 characters dropped, one of 256 kept')
})

t.test('no entry field is named like an Object.prototype member, and no entry schema asks for more than one character', async (t) => {
  // Both are what the entry checks rely on: pick() reads fields plainly, and lengths are checked in UTF-16 units first.
  const { clickSchema, consoleEntrySchema, errorEntrySchema, requestEntrySchema, viewSchema } = await import('../../src/schemas/tracker-payloads.js')
  for (const schema of [viewSchema, clickSchema, errorEntrySchema, consoleEntrySchema, requestEntrySchema]) {
    for (const [field, property] of Object.entries(schema.properties)) {
      t.notOk(field in Object.prototype, `${schema.$id}.${field}`)
      t.ok(((property as { minLength?: number }).minLength ?? 0) <= 1, `${schema.$id}.${field} minLength`)
    }
  }
})
