/** A missing part of a recording in words, as the dashboard and the CLI say it (src/recordings/missing-words.ts). */
import t from 'tap'
import { describeMissing, MISSING_REASONS } from '../../src/recordings/missing-words.js'

const START = 1_700_000_000_000
const part = (p: Partial<Parameters<typeof describeMissing>[0]>) => ({ reason: 'not_received', chunks: 1, url: null, fromTs: null, untilTs: null, ...p })

t.test('says how many chunks, between which moments of the replay, and why', async (t) => {
  t.equal(describeMissing(part({ reason: 'tab_closed', chunks: 2, fromTs: START + 190_000, untilTs: START + 220_000 }), START), '2 chunks missing between 3:10 and 3:40: the tab was closed before they were sent')
  t.equal(describeMissing(part({ reason: 'tab_closed', chunks: 1, fromTs: START + 190_000, untilTs: START + 190_400 }), START), '1 chunk missing at 3:10: the tab was closed before it was sent')
  t.equal(describeMissing(part({ reason: 'refused_too_large', fromTs: START + 3_725_000 }), START), '1 chunk missing from 1:02:05: the service refused it as larger than the chunk cap')
  t.equal(describeMissing(part({ chunks: 1_200, untilTs: START + 5_000 }), START), '1,200 chunks missing before 0:05: the service never received them, and nothing reported why')
})

t.test('names a page view the capture settings left out by its path', async (t) => {
  t.equal(describeMissing(part({ reason: 'excluded', chunks: null, url: 'https://shop.test/account/billing?tab=2', fromTs: START + 65_000 }), START), 'Page /account/billing?tab=2 not recorded from 1:05: the page is excluded by the capture settings')
  t.equal(describeMissing(part({ reason: 'sampled_out', chunks: null }), START), 'A page not recorded: the session was sampled out by the capture settings')
})

t.test('has words for every reason the API answers', async (t) => {
  const { completenessSchema } = await import('../../src/schemas/read-answers.js')
  const reasons = completenessSchema.properties.missing.items.properties.reason.enum
  t.same(Object.keys(MISSING_REASONS).sort(), [...reasons].sort())
})
