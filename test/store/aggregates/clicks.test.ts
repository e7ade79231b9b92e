/** How a click counts in heatmaps, sessions, the element leaderboard and the friction feed (src/store/aggregates/clicks.ts). */
import t from 'tap'
import { emptySessionSignals } from '../../../src/store/insights.js'
import type { Click } from '../../../src/store/records.js'
import { clickKindOf, countClick, countElementClick, frictionOfClick, heatLayersOf } from '../../../src/store/aggregates/clicks.js'

const click = (fields: Partial<Click> = {}): Click => ({ url: 'https://shop.test/cart', ts: 1, xRatio: 0.5, yDoc: 100, ...fields })

t.test('every click heats the click layer; a rage or dead click its own layer too', async (t) => {
  t.same(heatLayersOf('click'), ['click'])
  t.same(heatLayersOf('error'), ['click'], 'an error click has no heat layer of its own')
  t.same(heatLayersOf('rage'), ['click', 'rage'])
  t.same(heatLayersOf('dead'), ['click', 'dead'])
  t.equal(clickKindOf(click()), 'click', 'a click without a kind is a plain click')
})

t.test('a session counts every click and each kind apart', async (t) => {
  const session = emptySessionSignals()
  for (const kind of ['click', 'rage', 'dead', 'error', 'rage'] as const) countClick(session, kind)
  t.same(session, { ...emptySessionSignals(), clicks: 5, rage: 2, dead: 1, errorClicks: 1 })
})

t.test('an element counts every click and each kind apart', async (t) => {
  const count = { page: 'p', clicks: 0, rage: 0, dead: 0, errors: 0 }
  for (const kind of ['click', 'rage', 'dead', 'error'] as const) countElementClick(count, kind)
  t.same(count, { page: 'p', clicks: 4, rage: 1, dead: 1, errors: 1 })
})

t.test('rage, dead and error clicks are friction items; a plain click is not', async (t) => {
  t.equal(frictionOfClick(click(), 's1', 'p'), undefined)
  t.same(frictionOfClick(click({ kind: 'rage', n: 4, selector: '#buy', label: 'Buy' }), 's1', 'p'), {
    kind: 'rage', sk: 's1', page: 'p', url: 'https://shop.test/cart', xRatio: 0.5, yDoc: 100, selector: '#buy', label: 'Buy', n: 4,
  })
  t.equal(frictionOfClick(click({ kind: 'error' }), 's1', 'p')?.kind, 'errorClick', 'named as the feed names it')
  t.equal(frictionOfClick(click({ kind: 'dead' }), 's1', 'p')?.kind, 'dead')
  t.notOk('tag' in frictionOfClick(click({ kind: 'dead' }), 's1', 'p')!, 'absent fields stay absent')
})
