/** The ids every backend derives alike (src/store/aggregates/ids.ts): stable, short, and the same for the same input. */
import t from 'tap'
import { clickItemId, elementIdOf, errorItemId, quickBackItemId, shortId } from '../../../src/store/aggregates/ids.js'

t.test('a short id is 16 base64url characters, the same for the same text and different for another', async (t) => {
  const long = `/${'x'.repeat(2000)}`
  t.match(shortId(long), /^[A-Za-z0-9_-]{16}$/)
  t.equal(shortId(long), shortId(`/${'x'.repeat(2000)}`))
  t.not(shortId('/a'), shortId('/b'))
})

t.test('an element id is exact in a double and depends on both its page and its selector', async (t) => {
  const id = elementIdOf('shop.test/cart', '#buy')
  t.ok(Number.isSafeInteger(id) && id >= 0 && id < 2 ** 52)
  t.equal(elementIdOf('shop.test/cart', '#buy'), id)
  t.not(elementIdOf('shop.test/home', '#buy'), id, 'the same selector on another page is another element')
  t.not(elementIdOf('shop.test/cart', '#sell'), id)
})

t.test('friction ids name the entry of the batch, so that a batch counted again makes the same items', async (t) => {
  t.equal(clickItemId('1700.1.2.3', 4), '1700.1.2.3.c4')
  t.equal(errorItemId('1700.1.2.3', 4), '1700.1.2.3.e4')
  t.not(clickItemId('b', 1), errorItemId('b', 1), 'a click and an error of one batch never share an id')
})

t.test('a quick back is one item per view, whichever batch carried it', async (t) => {
  const id = quickBackItemId('s1', 'https://shop.test/cart', 1000)
  t.equal(quickBackItemId('s1', 'https://shop.test/cart', 1000), id)
  t.not(quickBackItemId('s2', 'https://shop.test/cart', 1000), id, 'another session')
  t.not(quickBackItemId('s1', 'https://shop.test/cart', 2000), id, 'another view of the same URL')
})
