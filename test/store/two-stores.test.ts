/**
 * What a store remembers of its aggregates' registries belongs to that store:
 * two stores opened in one thread (a test, a rebuild) over different data
 * each write their own registries, even for the same project and page.
 */
import t from 'tap'
import type { ClickHeatmap } from '../../src/store/insights.js'
import type { IngestItem, Store } from '../../src/store/store.js'
import { foldAll } from '../helpers/fold.js'
import { tempLmdbStore } from '../helpers/store.js'

const NOW = Date.UTC(2026, 10, 20, 12)
const DAY = { since: NOW - 24 * 3600_000, until: NOW + 3600_000 }
const PAGE = 'shop.test/cart'

function batch(projectId: string, sk: string): IngestItem {
  const url = 'https://shop.test/cart'
  return {
    kind: 'signals',
    projectId,
    receivedAt: NOW,
    batch: {
      sk,
      vid: 'v1',
      dropped: 0,
      views: [{ url, page: PAGE, startedAt: NOW }],
      clicks: [{ url, page: PAGE, ts: NOW, xRatio: 0.5, yDoc: 100, vw: 1440, selector: '#buy', label: 'Buy' }],
      errors: [{ url, page: PAGE, ts: NOW, message: 'TypeError: x is undefined' }],
    },
  }
}

async function seed(store: Store): Promise<string> {
  const project = await store.createProject({ id: 'prj_same', orgId: 'org_1', name: 'Shop', domain: null, pathRules: [], publicKey: 'svc_pk_same', createdAt: NOW })
  // Two folds: the second finds what the first registered, committed, which a store may then remember.
  for (const sk of ['s1', 's2']) {
    t.same(await store.appendBatch([batch(project.id, sk)]), ['stored'])
    await foldAll(store)
  }
  return project.id
}

t.test('a second store in the same thread writes its own page, element and message registries', async (t) => {
  const first = tempLmdbStore(t)
  const second = tempLmdbStore(t)
  for (const store of [first, second]) {
    const projectId = await seed(store)
    t.same(store.listSignalPages(projectId), [PAGE], 'the page is in this store\'s page registry')
    t.equal((store.heatmap(projectId, { ...DAY, pages: [PAGE], kind: 'click' }) as ClickHeatmap).total, 2)
    const [element] = store.topElements(projectId, { ...DAY, limit: 10 })
    t.match(element, { page: PAGE, selector: '#buy', label: 'Buy', clicks: 2 }, 'the element is named in this store')
    const errors = store.listFriction(projectId, { ...DAY, limit: 10 }).items.filter((item) => item.kind === 'jsError')
    t.match(errors, [{ message: 'TypeError: x is undefined', count: 2 }], 'the message is in this store\'s registry')
  }
})
