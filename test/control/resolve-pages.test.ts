/**
 * A `page` parameter given as a display path names that path on every host
 * that has it; a read merges at most MAX_MERGED_PAGES of them, so that a
 * public key that sent one path from thousands of hosts cannot make one
 * heatmap or overview read them all (bench/RESULTS.md, "The longest read").
 */
import t from 'tap'
import { MAX_MERGED_PAGES, resolvePages } from '../../src/control/reading.js'
import { ApiError, statusOf } from '../../src/errors.js'
import { openMemoryStore } from '../../src/store/memory/index.js'
import { foldAll } from '../helpers/fold.js'
import { signals } from '../store/insights.case.js'

t.test('a display path naming more pages than a read merges is 400 invalid_request naming the bound; at the bound it resolves', async (t) => {
  const store = openMemoryStore()
  const now = Date.UTC(2026, 0, 5, 10)
  const project = (await store.createProject({ id: 'prj_hosts', orgId: 'org_1', name: 'Site', domain: null, pathRules: [], publicKey: 'svc_pk_0123456789abcdef', createdAt: now }))!
  const views = (path: string, hosts: number) => Array.from({ length: hosts }, (_, i) => ({ url: `https://h${i}.shop.test${path}`, startedAt: now + i }))
  await store.appendBatch([signals(project.id, now, { sk: 's1', views: views('/many', MAX_MERGED_PAGES + 1) }), signals(project.id, now, { sk: 's2', views: views('/some', MAX_MERGED_PAGES) })])
  await foldAll(store)

  t.equal(resolvePages(store, project, '/some').length, MAX_MERGED_PAGES, 'the path on each of its hosts')
  t.same(resolvePages(store, project, 'h7.shop.test/many'), ['h7.shop.test/many'], 'a page key names its page alone')
  const error = (() => {
    try {
      resolvePages(store, project, '/many')
    } catch (e) {
      return e as ApiError
    }
  })()
  t.ok(error instanceof ApiError)
  t.equal(error?.code, 'invalid_request')
  t.equal(statusOf(error!.code), 400)
  t.match(error?.message, `names ${MAX_MERGED_PAGES + 1} pages, one per host; a read merges at most ${MAX_MERGED_PAGES}`)
})
