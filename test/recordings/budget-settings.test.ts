/**
 * STORAGE_BUDGET as configured, and the bounds a budget check keeps the
 * recordings within: the headroom, the batch, and the file guard (src/recordings/budget.ts).
 */
import t from 'tap'
import { loadConfig } from '../../src/config.js'
import { evictionBounds } from '../../src/recordings/budget.js'

const MB = 1024 * 1024

t.test('STORAGE_BUDGET takes a size or a share of the disk, and refuses anything else by name', async (t) => {
  t.equal(loadConfig({}).storageBudget, null, 'unset: no budget')
  t.same(loadConfig({ STORAGE_BUDGET: '200MB' }).storageBudget, { bytes: 200 * MB })
  t.same(loadConfig({ STORAGE_BUDGET: '50GB' }).storageBudget, { bytes: 50 * 1024 * MB })
  t.same(loadConfig({ STORAGE_BUDGET: '1.5gb' }).storageBudget, { bytes: 1.5 * 1024 * MB })
  t.same(loadConfig({ STORAGE_BUDGET: String(3 * MB) }).storageBudget, { bytes: 3 * MB }, 'plain bytes')
  t.same(loadConfig({ STORAGE_BUDGET: '20 MiB' }).storageBudget, { bytes: 20 * MB }, 'MiB reads as MB')
  t.same(loadConfig({ STORAGE_BUDGET: '80%' }).storageBudget, { percentOfDisk: 80 })
  for (const bad of ['0%', '100%', '512KB', 'lots', '-5GB', '20 MB of disk', 'i']) {
    t.throws(() => loadConfig({ STORAGE_BUDGET: bad }), /STORAGE_BUDGET/, `${JSON.stringify(bad)} is refused, naming the variable`)
  }
  t.throws(() => loadConfig({ STORAGE_BUDGET: '200MB', NATS_URL: 'nats://127.0.0.1:4222', NATS_LOG_SECRET_FILE: '/nonexistent' }), /STORAGE_BUDGET applies to the embedded mode only/, 'refused in the cluster mode')
})

t.test('the bounds: a quarter of the budget as headroom, a tenth per batch, lowered as the files grow past 95% of it', async (t) => {
  t.same(evictionBounds(200 * MB), { above: 150 * MB, to: 130 * MB })
  t.same(evictionBounds(20 * MB), { above: 12 * MB, to: 10 * MB }, 'at least 8 MiB of headroom')
  t.same(evictionBounds(200 * MB, 190 * MB), { above: 150 * MB, to: 130 * MB }, 'files at 95%: as without them')
  t.same(evictionBounds(200 * MB, 195 * MB), { above: 130 * MB, to: 110 * MB }, '5 MB past it: 20 MB lower')
  t.same(evictionBounds(200 * MB, 400 * MB), { above: 80 * MB, to: 60 * MB }, 'never below 40% of the budget')
})
