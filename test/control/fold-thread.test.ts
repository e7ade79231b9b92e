/**
 * The fold thread of the control worker folds what ingest logged with no
 * read to prompt it; a read folds what the fold thread has not got to yet.
 */
import t from 'tap'
import { call } from '../helpers/api.js'
import { until } from '../helpers/until.js'
import { clusterFor } from '../helpers/cluster.js'
import type { ClickHeatmap } from '../../src/store/insights.js'
import { postSignals } from '../helpers/read.js'
import { seedProject, storeAt } from '../helpers/seed.js'

const NOW = Date.now()
const URL = 'https://shop.test/pricing'
const DAY = { since: NOW - 24 * 3600_000, until: NOW + 3600_000 }

const batch = (n: number) => ({ sk: `s${n}`, vid: `v${n}`, clicks: [{ url: URL, ts: NOW - 1000, xRatio: 0.5, yDoc: 100, vw: 1440, selector: '#plan' }] })

t.test('the fold thread folds logged batches by itself, soon after they are acknowledged, deleting nothing', async (t) => {
  const cluster = await clusterFor(t, { workers: 1, env: { FOLD_INTERVAL_MS: '50', FOLD_BATCHES: '7' } })
  const { project } = await seedProject(cluster.dataDir)
  const store = storeAt(cluster.dataDir)
  t.teardown(() => store.close())
  for (let n = 0; n < 30; n++) t.equal(await postSignals(cluster.url, project.publicKey, batch(n)), 200)
  // No read through the API: only the fold thread can fold them (in folds of 7, so several).
  await until('the fold thread to fold every batch', () => store.derivationLag() === 0)
  t.equal((store.heatmap(project.id, { ...DAY, pages: ['shop.test/pricing'], kind: 'click' }) as ClickHeatmap).total, 30, 'every click in the aggregates, once')
  t.equal(Array.from(store.listSignals(project.id)).length, 30, 'the raw batches stay')
})

t.test('a read folds what the fold thread has not folded yet, so a client reads what it sent', async (t) => {
  // The fold thread folds at start-up, then waits a minute: what arrives meanwhile stays marked.
  const cluster = await clusterFor(t, { workers: 1, env: { FOLD_INTERVAL_MS: '60000' } })
  // The thread's fold at start-up may come after the service answers: what it would fold must arrive after it.
  await until('the fold thread\'s first fold', () => cluster.output().includes('fold thread: first fold done'))
  const { apiKey, project } = await seedProject(cluster.dataDir)
  const store = storeAt(cluster.dataDir)
  t.teardown(() => store.close())
  for (let n = 0; n < 5; n++) t.equal(await postSignals(cluster.url, project.publicKey, batch(n)), 200)
  t.equal(store.derivationLag(), 5, 'acknowledged, logged, not folded')
  const heat = await call(cluster.url, '/cli/heatmap', { token: apiKey, body: { projectId: project.id, page: URL, kind: 'click' } })
  t.equal(heat.status, 200)
  t.equal(heat.body.total, 5, 'the read saw all five')
  t.equal(store.derivationLag(), 0, 'because it folded them first')
})
