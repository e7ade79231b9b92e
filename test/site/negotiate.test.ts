import t from 'tap'
import { negotiateEncoding, negotiateType } from '../../src/site/negotiate.js'

const offers = ['text/html', 'text/markdown']

t.test('Accept picks the representation the client prefers, and none when it accepts neither', async (t) => {
  const cases: [string | undefined, string | undefined][] = [
    [undefined, 'text/html'],
    ['', 'text/html'],
    ['*/*', 'text/html'],
    ['text/*', 'text/html'],
    ['text/html', 'text/html'],
    ['text/markdown', 'text/markdown'],
    ['TEXT/MARKDOWN', 'text/markdown'],
    ['text/markdown; charset=utf-8', 'text/markdown'],
    ['text/markdown, text/html;q=0.9', 'text/markdown'],
    ['text/html;q=0.5, text/markdown', 'text/markdown'],
    ['text/markdown, text/html', 'text/markdown'],
    ['text/html, text/markdown', 'text/html'],
    ['text/markdown, */*;q=0.1', 'text/markdown'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8', 'text/html'],
    ['text/markdown;q=0, */*', 'text/html'],
    ['text/html;q=0, text/*', 'text/markdown'],
    ['application/json', undefined],
    ['image/png, application/xml', undefined],
    ['text/markdown;q=0', undefined],
    ['*/*;q=0', undefined],
    ['garbage', undefined],
  ]
  for (const [accept, expected] of cases) t.equal(negotiateType(accept, offers), expected, `Accept: ${accept}`)
})

t.test('Accept-Encoding picks br, then gzip, else identity', async (t) => {
  const cases: [string | undefined, string][] = [
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['*', 'br'],
    ['identity', 'identity'],
    ['deflate', 'identity'],
    ['x-gzip', 'gzip'],
    ['gzip;q=0', 'identity'],
  ]
  for (const [header, expected] of cases) t.equal(negotiateEncoding(header), expected, `Accept-Encoding: ${header}`)
})
