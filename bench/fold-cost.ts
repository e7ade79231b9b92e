/**
 * What folding one signals batch into the aggregates costs, by what the batch
 * holds: the benchmark's 5 KB batch, then the same batch without each kind of
 * entry in turn. Each variant's batches are stored as an ingest writer stores
 * them (parsed, validated, pages assigned, appended 64 to a transaction) into
 * a fresh store, then folded by the store's own fold, FOLD_BATCHES (the
 * environment's, else its default) to a transaction like the fold thread; the CPU of the folds alone is counted,
 * in this one process on one core, with no HTTP and no other thread, after
 * a warm-up fold that is not counted.
 *
 * Usage: node dist/bench/fold-cost.js <dir> <batches per variant> [variant,...]
 * (every variant, in the order below, unless named: `texts,full` measures
 * those two, in that order, to see what the order costs.)
 * Prints one JSON line: FoldCost[].
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig } from '../src/config.js'
import { ItemPreparer } from '../src/grouping/prepare-items.js'
import { openStore } from '../src/store/open.js'
import type { IngestItem } from '../src/store/store.js'
import { signalsBody, signalsBodyWithTexts } from './payloads.js'
import type { FoldCost } from './results.js'

const [dir, batches, only] = [process.argv[2], Number(process.argv[3]), process.argv[4]]
if (!dir || !(batches > 0)) {
  console.error('usage: fold-cost <dir> <batches per variant>')
  process.exit(2)
}

interface BenchBatch {
  views: unknown[]
  clicks: { kind?: string }[]
  errors: unknown[]
  console?: unknown[]
  requests?: unknown[]
}

const plainClicks = (b: BenchBatch) => b.clicks.forEach((click) => (click.kind = 'click'))

/** The variants: what each changes in the benchmark's batch. */
const VARIANTS: Record<FoldCost['variant'], { name: string; change: (batch: BenchBatch) => void; from?: () => Buffer }> = {
  full: { name: 'the benchmark batch', change: () => {} },
  noRage: { name: 'its rage clicks made plain clicks', change: plainClicks },
  noErrors: { name: 'without its JS error', change: (b) => (b.errors = []) },
  noViews: { name: 'without its views', change: (b) => (b.views = []) },
  clicksOnly: { name: 'plain clicks only', change: (b) => ((b.errors = []), (b.views = []), plainClicks(b)) },
  empty: { name: 'no entry at all', change: (b) => ((b.errors = []), (b.views = []), (b.clicks = [])) },
  texts: { name: 'with 5 console and 5 failed-request texts and a referrer, as many as the tracker sends', change: () => {}, from: signalsBodyWithTexts },
}

const APPEND_BATCH = 64
/** Batches per fold: the fold thread's, FOLD_BATCHES from the environment or its default. */
const { foldBatches } = loadConfig(process.env)

async function measure(variant: FoldCost['variant'], n: number, dirName: string = variant): Promise<FoldCost> {
  const { name, change, from = signalsBody } = VARIANTS[variant]
  const batch = JSON.parse(from().toString('utf8')) as BenchBatch
  change(batch)
  const body = Buffer.from(JSON.stringify(batch))
  const dataDir = join(dir, dirName)
  mkdirSync(dataDir)
  const store = openStore({ dataDir, mapSizeBytes: 16 * 1024 ** 3, durability: 'commit' })
  try {
    const projectId = 'prj_fold_cost'
    await store.createProject({ id: projectId, orgId: 'org_fold_cost', name: 'Fold cost', domain: null, pathRules: [], publicKey: 'svc_pk_f01d', createdAt: Date.now() })
    const preparer = new ItemPreparer(store)
    for (let stored = 0; stored < n; stored += APPEND_BATCH) {
      const prepare = preparer.forBatch()
      const items = Array.from({ length: APPEND_BATCH }, () => prepare({ kind: 'signals-body', projectId, receivedAt: Date.now(), body }) as IngestItem)
      await store.appendBatch(items)
    }
    const before = process.cpuUsage()
    let folded = 0
    while (store.derivationLag() > 0) folded += await store.applyDerivations(foldBatches)
    const cpu = process.cpuUsage(before)
    const entries = { views: batch.views.length, clicks: batch.clicks.length, rage: batch.clicks.filter((click) => click.kind === 'rage').length, errors: batch.errors.length, texts: (batch.console?.length ?? 0) + (batch.requests?.length ?? 0) }
    return { variant, name, bytes: body.byteLength, entries, batches: folded, usPerBatch: (cpu.user + cpu.system) / folded }
  } finally {
    await store.close()
  }
}

// Not counted: the first variant measured would otherwise pay for compiling the fold.
await measure('full', Math.min(batches, 4_000), 'warm-up')
const costs: FoldCost[] = []
for (const variant of (only ? only.split(',') : Object.keys(VARIANTS)) as FoldCost['variant'][]) {
  if (!VARIANTS[variant]) throw new Error(`no variant ${variant}: ${Object.keys(VARIANTS).join(', ')}`)
  costs.push(await measure(variant, batches))
}
console.log(JSON.stringify(costs))
