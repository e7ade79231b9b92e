import t from 'tap'
import { groupUrl } from '../../src/grouping/group.js'
import { compileRule, compileRules } from '../../src/grouping/rules.js'

t.test('patterns that do not compile, each with its reason', async (t) => {
  const invalid = ['', 'settings', '/{}', '/{tenant', '/tenant}', '/a{b}', '/{a}/{a}', '/*/x', '/a/**', '/a//b', '/a b', '/{1abc}', '/a/*x', '/' + 'a/'.repeat(40)]
  for (const pattern of invalid) {
    const result = compileRule(pattern)
    t.equal(result.ok, false, JSON.stringify(pattern))
    if (!result.ok) t.type(result.reason, 'string')
  }
  t.equal(compileRule(42).ok, false, 'not a string')
})

t.test('patterns that compile', async (t) => {
  for (const pattern of ['/', '/*', '/{tenant}', '/{tenant}/settings/*', '/blog/{slug}', '/app/{org}/projects/{id}/', '/a-b/c.d/~e/*', '/%7Bx%7D']) {
    t.equal(compileRule(pattern).ok, true, pattern)
  }
  const { rules, invalid } = compileRules(['/ok/*', 'bad', '/{a}/{b}'])
  t.same(rules.map((r) => r.pattern), ['/ok/*', '/{a}/{b}'])
  t.same(invalid.map((i) => i.pattern), ['bad'])
})

const group = (url: string, patterns: string[]) => groupUrl(url, compileRules(patterns).rules).path

t.test('{name} matches exactly one segment; * matches any deeper path and hands it to the automatic rules', async (t) => {
  t.equal(group('https://s.test/acme-corp/settings/42', ['/{tenant}/settings/*']), '/{tenant}/settings/:id')
  t.equal(group('https://s.test/acme-corp/settings', ['/{tenant}/settings/*']), '/{tenant}/settings')
  t.equal(group('https://s.test/acme/settings/billing/8f14e45fceea167a', ['/{tenant}/settings/*']), '/{tenant}/settings/billing/:hash')
  t.equal(group('https://s.test/acme/settings/x', ['/{tenant}/settings']), '/acme/settings/x', 'no * : deeper paths do not match')
  t.equal(group('https://s.test/blog/my-post', ['/blog/{slug}']), '/blog/{slug}')
  t.equal(group('https://s.test/blog', ['/blog/{slug}']), '/blog', '{slug} needs its segment')
})

t.test('the first matching rule wins: a bare /{a}/{b}/* shadows every rule below it', async (t) => {
  const shadowing = ['/{a}/{b}/*', '/docs/*']
  t.equal(group('https://s.test/docs/guide/install', shadowing), '/{a}/{b}/install')
  const ordered = ['/docs/*', '/{a}/{b}/*']
  t.equal(group('https://s.test/docs/guide/install', ordered), '/docs/guide/install')
  t.equal(group('https://s.test/acme/projects/42', ordered), '/{a}/{b}/:id')
  t.equal(group('https://s.test/only-one', ordered), '/only-one', 'one segment: /{a}/{b}/* needs two')
})

t.test('patterns that do not compile are ignored when grouping', async (t) => {
  t.equal(group('https://s.test/acme/x', ['bad{', '/{tenant}/x']), '/{tenant}/x')
})
