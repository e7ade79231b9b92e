/**
 * The `lost` member of a signals batch (issue 35): each report is checked
 * alone, one that does not validate is dropped without the batch, and nothing
 * beyond the documented fields is kept.
 */
import t from 'tap'
import { parseSignals } from '../../src/contract/signals-checks.js'
import { MAX_LOSSES_PER_BATCH } from '../../src/schemas/tracker-payloads.js'

const NOW = 1_700_000_000_000
const parse = (batch: Record<string, unknown>) => parseSignals(Buffer.from(JSON.stringify({ sk: 's', vid: 'v', ...batch })), NOW)

t.test('keeps valid reports and drops an invalid one alone, the batch and its entries kept', async (t) => {
  const good = { reason: 'dropped', pageIndex: 2, fromTs: NOW, untilTs: NOW + 10, events: 3 }
  const result = parse({
    views: [{ url: 'https://shop.test/', startedAt: NOW }],
    lost: [good, { reason: 'gone_fishing' }, { reason: 'tab_closed', seq: -1 }, { reason: 'excluded', extra: 'not documented' }, 'not an object'],
  })
  t.ok(result.ok)
  if (!result.ok) return
  t.same(result.batch.lost, [good])
  t.equal(result.batch.views.length, 1, 'the view is kept')
  t.equal(result.batch.dropped, 0, 'reports are not signals: not counted in dropped')
})

t.test('keeps no more reports than a batch may carry, and none when none validates', async (t) => {
  const many = Array.from({ length: MAX_LOSSES_PER_BATCH + 5 }, (_, i) => ({ reason: 'sampled_out', pageIndex: i }))
  const result = parse({ lost: many })
  t.ok(result.ok && result.batch.lost?.length === MAX_LOSSES_PER_BATCH)
  const none = parse({ lost: [{ reason: 'nope' }] })
  t.ok(none.ok && none.batch.lost === undefined)
})

t.test('a report carrying __proto__ is dropped, not merged into an object', async (t) => {
  const result = parseSignals(Buffer.from(`{"sk":"s","vid":"v","lost":[{"reason":"dropped","__proto__":{"polluted":true}}]}`), NOW)
  t.ok(result.ok)
  if (!result.ok) return
  t.equal(result.batch.lost, undefined)
  t.equal(({} as Record<string, unknown>).polluted, undefined)
})

t.test('a `lost` that is not an array refuses the batch, as any envelope member of the wrong type does', async (t) => {
  const result = parse({ lost: { reason: 'dropped' } })
  t.notOk(result.ok)
})
