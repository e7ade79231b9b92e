import fc from 'fast-check'
import t from 'tap'
import { groupUrl, RulesCache } from '../../src/grouping/group.js'
import { URL_MAX_LENGTH } from '../../src/grouping/limits.js'
import { compileRules } from '../../src/grouping/rules.js'

const page = (url: string, patterns: string[] = []) => groupUrl(url, compileRules(patterns).rules)

t.test('query strings and fragments are not part of the page; host case and trailing slashes are normalised', async (t) => {
  const key = page('https://Shop.Example.COM/products/42/?utm=1#reviews').key
  t.equal(key, 'shop.example.com/products/:id')
  t.equal(page('https://shop.example.com/products/43').key, key)
  t.equal(page('https://shop.example.com/products/44#x').key, key)
  t.equal(page('https://shop.example.com:443/products/45').key, key, 'default port')
  t.equal(page('https://shop.example.com/').key, 'shop.example.com/')
  t.equal(page('https://shop.example.com').key, 'shop.example.com/')
  t.equal(page('https://shop.example.com//a//b/').path, '/a/b')
})

t.test('the host is part of the page: one project may record several hosts', async (t) => {
  t.not(page('https://a.test/pricing').key, page('https://b.test/pricing').key)
  t.equal(page('https://a.test/pricing').path, page('https://b.test/pricing').path)
  t.equal(page('http://localhost:3000/x').host, 'localhost:3000')
})

t.test('display form names placeholders and collapsed segments', async (t) => {
  const p = page('https://app.test/acme/settings/123?tab=2', ['/{tenant}/settings/*'])
  t.same(p, { key: 'app.test/{tenant}/settings/:id', host: 'app.test', path: '/{tenant}/settings/:id' })
  t.equal(page('https://app.test/u/550e8400-e29b-41d4-a716-446655440000/posts/2026-11-21').path, '/u/:uuid/posts/:date')
  t.equal(page('https://app.test/a/cus_9QxA7bC2dE/p/8f14e45fceea167a').path, '/a/cus_9QxA7bC2dE/p/:hash')
})

t.test('strings that are not URLs are grouped as paths, never thrown on', async (t) => {
  t.equal(page('/just/a/path/7').key, '/just/a/path/:id')
  t.equal(page('').key, '/')
  t.equal(page('%E0%A4%A').key, '/%E0%A4%A')
  t.equal(page(undefined as unknown as string).key, '/')
})

t.test('compiled rules are cached per project and recompiled when the rules change', async (t) => {
  const cache = new RulesCache()
  const first = cache.rulesFor('p1', ['/{a}/*'])
  t.equal(cache.rulesFor('p1', ['/{a}/*']), first, 'same rules: same compiled array')
  t.not(cache.rulesFor('p1', ['/{b}/*']), first, 'changed rules: compiled again')
  const small = new RulesCache(2)
  const a = small.rulesFor('a', ['/x'])
  small.rulesFor('b', ['/x'])
  small.rulesFor('c', ['/x'])
  t.not(small.rulesFor('a', ['/x']), a, 'the oldest entry was evicted')
})

const segment = fc.oneof(
  fc.stringMatching(/^[a-z0-9-]{1,20}$/),
  fc.stringMatching(/^[0-9]{1,12}$/),
  fc.uuid(),
  fc.stringMatching(/^[a-f0-9]{12,40}$/),
  fc.string({ maxLength: 30 }),
)
const urlArb = fc.tuple(fc.constantFrom('https://a.test', 'http://B.test:8080', ''), fc.array(segment, { maxLength: 12 }), fc.string({ maxLength: 20 })).map(
  ([origin, segments, tail]) => `${origin}/${segments.map(encodeURIComponent).join('/')}${tail ? `?${encodeURIComponent(tail)}` : ''}`,
)
const rulesArb = fc.array(fc.constantFrom('/{a}/*', '/docs/*', '/{tenant}/settings/*', '/blog/{slug}', '/{a}/{b}', '/x/{id}/edit', 'bad{'), { maxLength: 5 })

t.test('properties: deterministic, idempotent on its output, total, bounded', async (t) => {
  fc.assert(
    fc.property(urlArb, rulesArb, (url, patterns) => {
      const rules = compileRules(patterns).rules
      const once = groupUrl(url, rules)
      const again = groupUrl(url, rules)
      if (once.key !== again.key) return false
      const origin = once.host ? `https://${once.host}` : ''
      return groupUrl(origin + once.path, rules).key === once.key
    }),
    { numRuns: 3000 },
  )
  fc.assert(
    fc.property(fc.string({ maxLength: 5000 }), rulesArb, (text, patterns) => {
      const p = groupUrl(text, compileRules(patterns).rules)
      return typeof p.key === 'string' && p.key.length <= URL_MAX_LENGTH && p.path.startsWith('/')
    }),
    { numRuns: 3000 },
  )
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 3000 }), (text) => {
      const p = groupUrl(`https://h.test/${text}`, [])
      return p.key.length <= URL_MAX_LENGTH
    }),
    { numRuns: 1000 },
  )
  t.pass('properties held')
})
