/** How views count in their page's bucket (src/store/aggregates/views.ts). */
import t from 'tap'
import { CLAMP_PAST_MS, HOUR_MS } from '../../../src/store/insights.js'
import type { View } from '../../../src/store/records.js'
import { contributeView, emptyPageBucket, mergeView, movesFirstView, sameView, viewHour } from '../../../src/store/aggregates/views.js'

const T0 = 1_700_000_000_000
const view = (fields: Partial<View> = {}): View => ({ url: 'https://shop.test/cart', startedAt: T0, ...fields })

t.test('copies of a view merge to the same state whatever order they arrive in', async (t) => {
  const copies = [view({ activeMs: 500, vw: 1440 }), view({ activeMs: 2000, maxScrollPct: 40 }), view({ maxScrollPct: 75, exit: true })]
  const forward = copies.reduce<ReturnType<typeof mergeView> | undefined>((state, copy) => mergeView(state, copy, 'shop.test/cart', T0), undefined)!
  const backward = [...copies].reverse().reduce<ReturnType<typeof mergeView> | undefined>((state, copy) => mergeView(state, copy, 'shop.test/cart', T0), undefined)!
  t.same(forward, { at: T0, page: 'shop.test/cart', vw: 1440, activeMs: 2000, maxScrollPct: 75, exit: true })
  t.ok(sameView(forward, backward))
})

t.test('a view keeps the page it was first counted under, and the earliest clamped start', async (t) => {
  const first = mergeView(undefined, view({ startedAt: T0 }), 'old-page', T0)
  const later = mergeView(first, view({ startedAt: T0 - 1000 }), 'new-page', T0)
  t.equal(later.page, 'old-page')
  t.equal(later.at, T0 - 1000)
  const clamped = mergeView(undefined, view({ startedAt: 0 }), 'p', T0)
  t.equal(clamped.at, T0 - CLAMP_PAST_MS, 'a start years ago is clamped to the window before receipt')
  t.equal(viewHour(clamped), Math.floor((T0 - CLAMP_PAST_MS) / HOUR_MS))
})

t.test('a view withdrawn after it was added leaves its bucket as it was', async (t) => {
  const state = mergeView(undefined, view({ activeMs: 1234, maxScrollPct: 33.3, vw: 400, exit: true, quickBack: true }), 'p', T0)
  const bucket = emptyPageBucket()
  contributeView(bucket, state, 1)
  t.same({ v: bucket.v, am: bucket.am, av: bucket.av, sp: bucket.sp, sv: bucket.sv, ex: bucket.ex, qb: bucket.qb }, { v: 1, am: 1234, av: 1, sp: 3330, sv: 1, ex: 1, qb: 1 })
  t.equal(bucket.sh.m?.[33], 1, 'scroll depth counted in the mobile histogram at its whole percent')
  contributeView(bucket, state, -1)
  t.same({ ...bucket, sh: {} }, emptyPageBucket())
  t.ok(bucket.sh.m?.every((n) => n === 0))
})

t.test('a view without a width counts in the unknown slot; without a depth, in no histogram', async (t) => {
  const bucket = emptyPageBucket()
  contributeView(bucket, mergeView(undefined, view({ maxScrollPct: 100 }), 'p', T0), 1)
  contributeView(bucket, mergeView(undefined, view({ startedAt: T0 + 1 }), 'p', T0), 1)
  t.equal(bucket.sh.u?.[100], 1)
  t.equal(bucket.v, 2)
  t.equal(bucket.sv, 1)
})

t.test('a session counts for a page once, in the hour of its first view of it', async (t) => {
  t.ok(movesFirstView(undefined, 10), 'the first view counts')
  t.ok(movesFirstView(10, 9), 'an earlier view moves the count')
  t.notOk(movesFirstView(10, 10))
  t.notOk(movesFirstView(10, 11), 'a later view adds nothing')
})
