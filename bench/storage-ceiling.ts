/**
 * The storage ceiling: raw lmdb-js puts of the benchmark's 20 KB chunk, with
 * no HTTP, no validation and no session bookkeeping, in one process. With
 * `signals`, each writer parses the benchmark's 5 KB signals batch from its
 * bytes and puts the parsed object (lmdb-js's msgpack encoding, with shared
 * record structures as the store's signals table has): the least any
 * implementation that stores a batch as data pays besides HTTP. `writers`
 * loops each put one value and wait for it, like `connections` clients each
 * waiting for their answer; lmdb-js gathers the puts issued while a commit is
 * under way into its next transaction (its own batching, which is what the
 * writer pool imitates). Durability as the store's: "commit" waits for the put
 * to resolve (after the commit), "flush" also for `flushed` (after the sync).
 *
 * Usage: node dist/bench/storage-ceiling.js <dir> <commit|flush> <seconds> <writers> [chunk|signals]
 * Prints one JSON line of figures.
 */
import { open } from 'lmdb'
import { environmentOptions } from '../src/store/lmdb/index.js'
import { STRUCTURES } from '../src/store/lmdb/tables.js'
import { chunkBody, signalsBody } from './payloads.js'

const [dir, durability, seconds, writers, kind = 'chunk'] = [process.argv[2], process.argv[3], Number(process.argv[4]), Number(process.argv[5]), process.argv[6]]
if (!dir || (durability !== 'commit' && durability !== 'flush') || !(seconds > 0) || !(writers > 0) || (kind !== 'chunk' && kind !== 'signals')) {
  console.error('usage: storage-ceiling <dir> <commit|flush> <seconds> <writers> [chunk|signals]')
  process.exit(2)
}

// The same environment options as the store's.
const root = open({ path: dir, mapSize: 64 * 1024 ** 3, maxDbs: 32, ...environmentOptions(durability) })
const value = kind === 'chunk' ? chunkBody() : signalsBody()
const chunks = root.openDB<Buffer, [string, number]>('chunks', { encoding: 'binary' })
const signals = root.openDB<unknown, [string, number, number]>('signals', { sharedStructuresKey: STRUCTURES })
const put = (n: number): Promise<boolean> =>
  kind === 'chunk' ? chunks.put([`s${Math.floor(n / 20)}`, n % 20], value) : signals.put(['project-1', Date.now(), n], JSON.parse(value.toString('utf8')))

const latencies: number[] = []
let next = 0
let stop = false

async function writer(): Promise<void> {
  while (!stop) {
    const n = next++
    const started = performance.now()
    await put(n)
    if (durability === 'flush') await root.flushed
    latencies.push(performance.now() - started)
  }
}

const cpuBefore = process.cpuUsage()
const startedAt = performance.now()
setTimeout(() => (stop = true), seconds * 1000)
await Promise.all(Array.from({ length: writers }, writer))
const elapsed = (performance.now() - startedAt) / 1000
const cpu = process.cpuUsage(cpuBefore)
await root.close()

latencies.sort((a, b) => a - b)
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0
console.log(
  JSON.stringify({
    puts: latencies.length,
    seconds: elapsed,
    putsPerSec: latencies.length / elapsed,
    p50: pct(50),
    p99: pct(99),
    bytesPerSec: (latencies.length * value.byteLength) / elapsed,
    cpuPct: ((cpu.user + cpu.system) / 1e6 / elapsed) * 100,
    valueBytes: value.byteLength,
  }),
)
