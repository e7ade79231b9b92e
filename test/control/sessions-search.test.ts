/**
 * sessions.list search by what happened (issue 35): sessions that visited a
 * path pattern, clicked an element by its label or selector, hit a JavaScript
 * error by message, logged a console message or had a request fail by its
 * text, came from a referrer, or from a device class; each result says the first
 * matching moment and lists every match. Through the real cluster, posting as
 * the tracker posts.
 */
import t from 'tap'
import { call } from '../helpers/api.js'
import { clusterFor } from '../helpers/cluster.js'
import { postChunk, postSignals } from '../helpers/read.js'
import { seedProject } from '../helpers/seed.js'

const NOW = Date.now()
const body = Buffer.from('[{"type":3,"timestamp":1,"data":{}}]')

t.test('finds sessions by what they did, with the first matching moment, combined with the other filters', async (t) => {
  const cluster = await clusterFor(t, { workers: 1 })
  const a = await seedProject(cluster.dataDir)
  const b = await seedProject(cluster.dataDir, 'Other', 'owner@other.test')
  const projectId = a.project.id
  const list = (filters: Record<string, unknown>, token = a.apiKey) => call(cluster.url, '/cli/sessions.list', { token, body: { projectId, ...filters } })
  const found = async (filters: Record<string, unknown>) => {
    const answer = await list(filters)
    t.equal(answer.status, 200, JSON.stringify(filters))
    return answer.body.sessions.map((s: any) => [s.sessionKey, s.match?.ts === undefined ? null : s.match.ts - NOW])
  }

  const at = (ms: number) => NOW + ms
  const view = (url: string, ms: number, vw = 1280) => ({ url, startedAt: at(ms), vw })
  const click = (url: string, ms: number, selector: string, label?: string) => ({ url, ts: at(ms), xRatio: 0.5, yDoc: 100, selector, tag: 'button', ...(label ? { label } : {}) })
  const error = (url: string, ms: number, message: string) => ({ url, ts: at(ms), message })
  // s1 (desktop): pays on a product page, twice; s2 (phone): hits an error at checkout; s3 (desktop): only browses.
  const sessions: [string, number, number, Record<string, unknown>[]][] = [
    ['s1', -50_000, 1280, [
      { views: [view('https://shop.test/product/7?ref=mail', -49_000)], clicks: [click('https://shop.test/product/7', -45_000, 'button.pay', 'Pay now')] },
      { views: [view('https://shop.test/checkout/done', -40_000)], clicks: [click('https://shop.test/product/7', -47_000, 'button.pay', 'Pay now')] },
    ]],
    ['s2', -30_000, 390, [
      { views: [view('https://shop.test/checkout', -29_000, 390)], errors: [error('https://shop.test/checkout', -25_000, 'TypeError: cart is undefined')] },
      { errors: [error('https://shop.test/checkout', -27_000, 'TypeError: cart is undefined'), error('https://shop.test/checkout', -20_000, 'ReferenceError: pay')] },
      {
        console: [{ ts: at(-26_000), level: 'warn', text: 'Cart is empty after reload' }],
        requests: [{ ts: at(-24_000), method: 'POST', url: 'https://api.shop.test/cart', status: 502 }, { ts: at(-23_000), method: 'GET', url: 'https://cdn.shop.test/app.js', status: 0 }],
      },
    ]],
    ['s3', -10_000, 1280, [{ views: [{ ...view('https://shop.test/', -9_000), referrer: 'https://news.example' }, view('https://shop.test/about', -8_000)], clicks: [click('https://shop.test/', -8_500, 'a.nav', 'About us')] }]],
  ]
  for (const [sk, ms, w, batches] of sessions) {
    t.equal(await postChunk(cluster.url, a.project.publicKey, { sk, seq: 0, startedAt: at(ms), firstTs: at(ms), lastTs: at(ms + 5_000), viewport: { w, h: 800 } }, body), 200)
    for (const batch of batches) t.equal(await postSignals(cluster.url, a.project.publicKey, { sk, vid: `v-${sk}`, views: [], clicks: [], errors: [], ...batch }), 200)
  }

  t.same(await found({ clicked: 'pay now' }), [['s1', -47_000]], 'by label, ignoring case: the first click, from the later batch')
  t.same(await found({ clicked: 'button.pay' }), [['s1', -47_000]], 'by selector')
  t.same(await found({ clicked: 'a.nav' }), [['s3', -8_500]])
  t.same(await found({ clicked: 'no such element' }), [])
  t.same(await found({ visited: '/checkout/*' }), [['s2', -29_000], ['s1', -40_000]], 'a trailing * matches the bare prefix and deeper paths')
  t.same(await found({ visited: '/product/{id}' }), [['s1', -49_000]], 'a placeholder matches one segment; the query string is not part of the path')
  t.same(await found({ visited: '/about' }), [['s3', -8_000]])
  t.same(await found({ visited: '/' }), [['s3', -9_000]])
  t.same(await found({ error: 'cart is undefined' }), [['s2', -27_000]], 'by message text: the first occurrence')
  t.same(await found({ error: 'typeerror' }), [['s2', -27_000]])
  t.same(await found({ console: 'CART IS EMPTY' }), [['s2', -26_000]], 'by console text, ignoring case')
  t.same(await found({ request: 'post https://api.shop.test/cart 502' }), [['s2', -24_000]], 'by a failed request: method, URL and status')
  t.same(await found({ request: 'app.js failed' }), [['s2', -23_000]], 'a network failure reads failed')
  t.same(await found({ request: 'cart', console: 'cart', error: 'cart' }), [['s2', -27_000]], 'combined: the first moment any of them matched')
  t.same(await found({ referrer: 'news.example' }), [['s3', -9_000]], 'by the referrer\'s origin, at its view')
  t.same(await found({ referrer: 'https://news' }), [['s3', -9_000]], 'a scheme is part of the origin')
  t.same(await found({ referrer: 'google' }), [])
  t.same(await found({ device: 'mobile' }), [['s2', null]], 'a device class alone is no search: no match moment')
  t.same(await found({ device: 'desktop' }), [['s3', null], ['s1', null]])
  t.same(await found({ device: 'tablet' }), [])
  t.same(await found({ visited: '/checkout/*', device: 'desktop' }), [['s1', -40_000]], 'combined: every filter holds')
  t.same(await found({ visited: '/checkout/*', clicked: 'pay' }), [['s1', -47_000]], 'combined searches: the first moment any of them matched')
  t.same(await found({ error: 'cart', hasRage: true }), [], 'with an existing filter that excludes it')
  t.same(await found({ clicked: 'pay', since: at(-20_000) }), [], 'within a time range')

  const both = await list({ visited: '/checkout/*', clicked: 'pay' })
  t.same(both.body.sessions[0].matches, [
    { ts: at(-47_000), kind: 'click', label: 'Pay now (button.pay)' },
    { ts: at(-40_000), kind: 'visit', label: '/checkout/done' },
  ], 'every match, in time order')
  t.same((await list({ request: 'shop.test' })).body.sessions[0].matches, [
    { ts: at(-24_000), kind: 'request', label: 'POST https://api.shop.test/cart 502' },
    { ts: at(-23_000), kind: 'request', label: 'GET https://cdn.shop.test/app.js failed' },
  ], 'every failed request that matched')
  const errors = await list({ error: 'Error' })
  t.same(errors.body.sessions[0].matches.map((m: any) => m.label), ['TypeError: cart is undefined', 'ReferenceError: pay'])
  t.notOk((await list({})).body.sessions[0].match, 'no search: no match member')

  const paged: string[] = []
  let cursor: string | undefined
  do {
    const answer = await list({ visited: '/*', limit: 1, ...(cursor ? { cursor } : {}) })
    t.equal(answer.status, 200)
    paged.push(...answer.body.sessions.map((s: any) => s.sessionKey))
    cursor = answer.body.nextCursor ?? undefined
  } while (cursor && paged.length < 10)
  t.same(paged, ['s3', 's2', 's1'], 'a page at a time')

  const invalid: [string, Record<string, unknown>][] = [
    ['a pattern not starting with /', { visited: 'checkout' }],
    ['* inside a pattern', { visited: '/a/*/b' }],
    ['a pattern past 2000 characters', { visited: '/' + 'a'.repeat(2000) }],
    ['an empty pattern', { visited: '' }],
    ['clicked past 256 characters', { clicked: 'x'.repeat(257) }],
    ['an empty clicked', { clicked: '' }],
    ['error past 256 characters', { error: 'x'.repeat(257) }],
    ['error not a string', { error: 3 }],
    ['an unknown device', { device: 'watch' }],
    ['console past 256 characters', { console: 'x'.repeat(257) }],
    ['an empty console', { console: '' }],
    ['request past 256 characters', { request: 'x'.repeat(257) }],
    ['request not a string', { request: ['GET'] }],
    ['referrer past 256 characters', { referrer: 'x'.repeat(257) }],
    ['an empty referrer', { referrer: '' }],
    ['a referrer with a path', { referrer: 'https://www.google.com/search' }],
    ['a referrer with a query', { referrer: 'google?q=shoes' }],
  ]
  for (const [what, filters] of invalid) {
    const answer = await list(filters)
    t.same([answer.status, answer.body.code], [400, 'invalid_request'], what)
    t.ok(answer.body.error, `${what}: says why`)
  }
  t.match((await list({ visited: 'checkout' })).body.error, /visited/, 'names the member')
  t.match((await list({ referrer: 'google.com/search' })).body.error, /referrer/, 'names the member')

  const foreign = await list({ clicked: 'pay' }, b.apiKey)
  const missing = await list({ clicked: 'pay', projectId: 'prj_missing' })
  t.same([foreign.status, foreign.body.code], [404, 'not_found'], 'another organisation cannot search into the project')
  t.same(foreign.body, missing.body, 'answered exactly like a project that does not exist')
})
