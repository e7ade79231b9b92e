/**
 * STORAGE_BUDGET as configured, and the bounds a budget check keeps the
 * recordings within: the headroom, the batch, and the file guard (src/recordings/budget.ts).
 */
import t from 'tap'
import { loadConfig } from '../../src/config.js'
import { layoutOf } from '../../src/journal/node.js'
import { streamConfigs } from '../../src/journal/streams.js'
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
})

t.test('in the cluster mode STORAGE_BUDGET is a size (the recording streams\' max_bytes), and NATS_STREAM_MAX_BYTES bounds each other stream', async (t) => {
  const cluster = { NATS_URL: 'nats://127.0.0.1:4222', NATS_LOG_SECRET_FILE: '/nonexistent' }
  t.same(loadConfig({ ...cluster, STORAGE_BUDGET: '200GB' }).storageBudget, { bytes: 200 * 1024 * MB })
  t.throws(() => loadConfig({ ...cluster, STORAGE_BUDGET: '80%' }), /STORAGE_BUDGET must be a size \(200GB\) in the cluster mode/, 'a share of DATA_DIR\'s disk is refused: recordings are on the NATS servers\' disks')
  t.equal(loadConfig(cluster).natsStreamMaxBytes, 0, 'unset: no limit of the streams\' own')
  t.equal(loadConfig({ ...cluster, NATS_STREAM_MAX_BYTES: '20GB' }).natsStreamMaxBytes, 20 * 1024 * MB)
  t.equal(loadConfig({ ...cluster, NATS_STREAM_MAX_BYTES: '0' }).natsStreamMaxBytes, 0)
  for (const bad of ['512KB', '5%', 'lots', '-1']) {
    t.throws(() => loadConfig({ ...cluster, NATS_STREAM_MAX_BYTES: bad }), /NATS_STREAM_MAX_BYTES/, `${JSON.stringify(bad)} is refused, naming the variable`)
  }
})

t.test('the streams\' max_bytes: the budget split over the partitions, NATS_STREAM_MAX_BYTES for the rest', async (t) => {
  const limits = (env: Record<string, string>) => Object.fromEntries(streamConfigs(layoutOf(loadConfig({ NATS_URL: 'nats://127.0.0.1:4222', NATS_LOG_SECRET_FILE: '/nonexistent', NATS_PARTITIONS: '4', ...env }))).map((s) => [s.name, s.max_bytes]))
  t.same(limits({}), { REC_0: -1, REC_1: -1, REC_2: -1, REC_3: -1, SIG: -1, CTL: -1 }, 'neither set: no stream limit (max_file_store alone)')
  t.same(limits({ STORAGE_BUDGET: '400MB' }), { REC_0: 100 * MB, REC_1: 100 * MB, REC_2: 100 * MB, REC_3: 100 * MB, SIG: -1, CTL: -1 })
  t.same(limits({ NATS_STREAM_MAX_BYTES: '10GB' }), { REC_0: 10 * 1024 * MB, REC_1: 10 * 1024 * MB, REC_2: 10 * 1024 * MB, REC_3: 10 * 1024 * MB, SIG: 10 * 1024 * MB, CTL: 10 * 1024 * MB })
  t.same(limits({ STORAGE_BUDGET: '400MB', NATS_STREAM_MAX_BYTES: '1GB' }), { REC_0: 100 * MB, REC_1: 100 * MB, REC_2: 100 * MB, REC_3: 100 * MB, SIG: 1024 * MB, CTL: 1024 * MB })
})

t.test('the bounds: a quarter of the budget as headroom, a tenth per batch, lowered as the files grow past 95% of it', async (t) => {
  t.same(evictionBounds(200 * MB), { above: 150 * MB, to: 130 * MB })
  t.same(evictionBounds(20 * MB), { above: 12 * MB, to: 10 * MB }, 'at least 8 MiB of headroom')
  t.same(evictionBounds(200 * MB, 190 * MB), { above: 150 * MB, to: 130 * MB }, 'files at 95%: as without them')
  t.same(evictionBounds(200 * MB, 195 * MB), { above: 130 * MB, to: 110 * MB }, '5 MB past it: 20 MB lower')
  t.same(evictionBounds(200 * MB, 400 * MB), { above: 80 * MB, to: 60 * MB }, 'never below 40% of the budget')
})
