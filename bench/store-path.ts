/**
 * The store's own write path, without HTTP or the writer pool: the same 20 KB
 * chunk appended through `appendBatch` (chunk, chunk info, session record,
 * project counters: everything a front's writer does per chunk) from
 * `processes` processes, each keeping `inFlight` batches of `batch` chunks
 * pending, as the fronts' writer threads do. Between the storage ceiling
 * (raw puts, one process) and the cluster, it shows what the bookkeeping and
 * several writing processes cost before any request is parsed.
 *
 * Usage: node dist/bench/store-path.js <dir> <seconds> <processes> <inFlight> <batch>
 * Prints one JSON line of figures (StorageFigures: puts are chunks, latencies per batch).
 */
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { openLmdbStore } from '../src/store/lmdb/index.js'
import type { IngestItem } from '../src/store/store.js'
import { chunkBody } from './payloads.js'
import type { StorageFigures } from './results.js'

const [dir, seconds, processes, inFlight, batch] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5]), Number(process.argv[6])]
if (!dir || !(seconds > 0) || !(processes > 0) || !(inFlight > 0) || !(batch > 0)) {
  console.error('usage: store-path <dir> <seconds> <processes> <inFlight> <batch>')
  process.exit(2)
}

interface Part {
  chunks: number
  latencies: number[]
  elapsed: number
  cpuSeconds: number
}

async function writer(id: string): Promise<Part> {
  const store = openLmdbStore({ path: dir, mapSize: 64 * 1024 ** 3, durability: 'commit' })
  const body = chunkBody()
  const url = 'https://shop.test/products/42'
  const page = { key: 'shop.test/products/:id', host: 'shop.test', path: '/products/:id', firstSeenAt: Date.now() }
  const latencies: number[] = []
  let n = 0
  let stop = false
  const loop = async () => {
    while (!stop) {
      const items: IngestItem[] = []
      for (let i = 0; i < batch; i++, n++) {
        // 20 chunks per session, like the benchmark's requests; every (session, seq) distinct.
        const meta = { sk: `${id}-${Math.floor(n / 20)}`, vid: 'v', seq: n % 20, encoding: 'gzip' as const, url, pageIndex: 0, firstTs: Date.now(), lastTs: Date.now(), eventCount: 40 }
        items.push({ kind: 'chunk', projectId: 'bench', receivedAt: Date.now(), meta, body: new Uint8Array(body), page })
      }
      const started = performance.now()
      await store.appendBatch(items)
      latencies.push(performance.now() - started)
    }
  }
  const cpuBefore = process.cpuUsage()
  const startedAt = performance.now()
  setTimeout(() => (stop = true), seconds * 1000)
  await Promise.all(Array.from({ length: inFlight }, loop))
  const elapsed = (performance.now() - startedAt) / 1000
  const cpu = process.cpuUsage(cpuBefore)
  await store.close()
  return { chunks: latencies.length * batch, latencies, elapsed, cpuSeconds: (cpu.user + cpu.system) / 1e6 }
}

if (process.env.STORE_PATH_WRITER) {
  process.send!(await writer(process.env.STORE_PATH_WRITER))
  process.exit(0)
}

const self = fileURLToPath(import.meta.url)
const parts = await Promise.all(
  Array.from(
    { length: processes },
    (_, i) =>
      new Promise<Part>((resolve, reject) => {
        const child = fork(self, process.argv.slice(2), { env: { ...process.env, STORE_PATH_WRITER: `w${i}` }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
        child.once('message', (m) => resolve(m as Part))
        child.once('exit', (code) => code !== 0 && reject(new Error(`store-path writer exited with ${code}`)))
      }),
  ),
)
const latencies = parts.flatMap((p) => p.latencies).sort((a, b) => a - b)
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0
const chunks = parts.reduce((sum, p) => sum + p.chunks, 0)
const elapsed = Math.max(...parts.map((p) => p.elapsed))
const valueBytes = chunkBody().byteLength
const figures: Omit<StorageFigures, 'otherCpuPct'> = {
  puts: chunks,
  seconds: elapsed,
  putsPerSec: chunks / elapsed,
  p50: pct(50),
  p99: pct(99),
  bytesPerSec: (chunks * valueBytes) / elapsed,
  cpuPct: (parts.reduce((sum, p) => sum + p.cpuSeconds, 0) / elapsed) * 100,
  valueBytes,
}
console.log(JSON.stringify(figures))
