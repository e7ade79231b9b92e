/** The element leaderboard's cap per bucket (src/store/aggregates/elements.ts). */
import t from 'tap'
import { ELEMENTS_PER_BUCKET, OTHER_ELEMENTS } from '../../../src/store/insights.js'
import { countsAsOther, otherElementIdOf } from '../../../src/store/aggregates/elements.js'
import { elementIdOf } from '../../../src/store/aggregates/ids.js'

t.test('a new element counts as its own until the bucket is full, then under its page\'s (other)', async (t) => {
  t.notOk(countsAsOther(false, 0))
  t.notOk(countsAsOther(false, ELEMENTS_PER_BUCKET - 1), 'the last free place')
  t.ok(countsAsOther(false, ELEMENTS_PER_BUCKET), 'one past the cap')
})

t.test('an element already in a full bucket keeps counting as itself', async (t) => {
  t.notOk(countsAsOther(true, ELEMENTS_PER_BUCKET))
  t.notOk(countsAsOther(true, ELEMENTS_PER_BUCKET + 10))
})

t.test('(other) is an element of its page like any other', async (t) => {
  t.equal(otherElementIdOf('shop.test/cart'), elementIdOf('shop.test/cart', OTHER_ELEMENTS))
  t.not(otherElementIdOf('shop.test/cart'), otherElementIdOf('shop.test/home'))
})
