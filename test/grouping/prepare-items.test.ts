/**
 * Page identity as the writer decides it for each item: the preparer
 * remembers pages across batches, so these hold it to the rules as they are
 * at each batch, and to what it remembered before it started over.
 */
import t from 'tap'
import type { WriteItem } from '../../src/supervisor/messages.js'
import { ItemPreparer } from '../../src/grouping/prepare-items.js'
import type { IngestItem, ProjectRecord } from '../../src/store/store.js'

const T0 = 1_800_000_000_000

function preparerWithRules() {
  const project = { pathRules: [] as string[] }
  const preparer = new ItemPreparer({ getProject: () => project as unknown as ProjectRecord })
  return { project, preparer }
}

function signals(urls: string[], receivedAt = T0): WriteItem {
  const clicks = urls.map((url, i) => ({ url, ts: T0 - i, xRatio: 0.5, yDoc: 10, vw: 1000, docH: 2000, kind: 'click' }))
  return { kind: 'signals-body', projectId: 'prj_1', receivedAt, body: Buffer.from(JSON.stringify({ sk: 's', vid: 'v', clicks })) }
}

function prepared(preparer: ItemPreparer, raw: WriteItem): Extract<IngestItem, { kind: 'signals' }> {
  const item = preparer.forBatch()(raw)
  if ('invalid' in item || item.kind !== 'signals') throw new Error('expected a signals item')
  return item
}

t.test('a batch\'s entries carry their page keys, and the item lists each distinct page once with its first sight', async (t) => {
  const { preparer } = preparerWithRules()
  const item = prepared(preparer, signals(['https://a.test/p/1', 'https://a.test/p/2', 'https://a.test/about', 'https://a.test/p/1'], T0 + 5))
  t.same(item.batch.clicks.map((c) => c.page), ['a.test/p/:id', 'a.test/p/:id', 'a.test/about', 'a.test/p/:id'])
  t.same(item.pages, [
    { key: 'a.test/p/:id', host: 'a.test', path: '/p/:id', firstSeenAt: T0 + 5 },
    { key: 'a.test/about', host: 'a.test', path: '/about', firstSeenAt: T0 + 5 },
  ])
  const later = prepared(preparer, signals(['https://a.test/p/1'], T0 + 9))
  t.same(later.pages, [{ key: 'a.test/p/:id', host: 'a.test', path: '/p/:id', firstSeenAt: T0 + 9 }], 'a remembered page, with this item\'s time')
})

t.test('a change of the project\'s rules applies from the next batch, though the URL was seen before', async (t) => {
  const { project, preparer } = preparerWithRules()
  const url = 'https://app.test/acme/settings'
  t.same(prepared(preparer, signals([url])).batch.clicks[0].page, 'app.test/acme/settings')
  project.pathRules = ['/{tenant}/settings']
  t.same(prepared(preparer, signals([url])).batch.clicks[0].page, 'app.test/{tenant}/settings')
  project.pathRules = []
  t.same(prepared(preparer, signals([url])).batch.clicks[0].page, 'app.test/acme/settings')
})

t.test('past the pages it remembers it starts over and still groups every URL', async (t) => {
  const { preparer } = preparerWithRules()
  const urls = Array.from({ length: 2_500 }, (_, i) => `https://a.test/section-${i}/x`)
  for (let i = 0; i < urls.length; i += 100) {
    const item = prepared(preparer, signals(urls.slice(i, i + 100)))
    t.equal(item.pages?.length, 100)
  }
  const again = prepared(preparer, signals([urls[0], urls[2_499]]))
  t.same(again.batch.clicks.map((c) => c.page), ['a.test/section-0/x', 'a.test/section-2499/x'])
})

t.test('a chunk gets its page with the chunk\'s time', async (t) => {
  const { preparer } = preparerWithRules()
  const raw: WriteItem = { kind: 'chunk', projectId: 'prj_1', receivedAt: T0 + 1, meta: { sk: 's', vid: 'v', seq: 0, encoding: 'json', url: 'https://a.test/p/7' }, body: Buffer.from('[]') }
  const item = preparer.forBatch()(raw)
  t.match(item, { kind: 'chunk', page: { key: 'a.test/p/:id', host: 'a.test', path: '/p/:id', firstSeenAt: T0 + 1 } })
})
