import { readdirSync, readFileSync } from 'node:fs'
import { ingestSpec, measure, signalsSpec, warm, SERVICE_NODE_ARGS } from './scenarios.js'
import { startBenchCluster, startPlainPeer } from './targets.js'
import { cpuPerRequestUs } from './results.js'
const kind = process.argv.find((a) => a.startsWith('--kind='))?.slice(7) ?? 'ingest'
const main = process.argv.find((a) => a.startsWith('--main='))?.slice(7)
const extra = Object.fromEntries((process.argv.find((a) => a.startsWith('--env='))?.slice(6) ?? '').split(',').filter(Boolean).map((kv) => kv.split('=')))
const env: Record<string, string> = { DURABILITY: 'commit', ...extra, ...(main ? { BENCH_MAIN: main } : {}) }
const c = process.argv.includes('--peer') ? await startPlainPeer() : await startBenchCluster(undefined, env, process.env.ZZ_ARGS ? process.env.ZZ_ARGS.split(' ') : SERVICE_NODE_ARGS)
const spec = (s: number) => (kind === 'ingest' ? ingestSpec('x', c.publicKey, s) : signalsSpec('x', c.publicKey, s))
function threads(): Map<string, number> {
  const out = new Map<string, number>()
  for (const pid of c.pids()) {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).pop()!.split('/').pop()
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        const ticks = Number(f[11]) + Number(f[12])
        const key = `${cmd} ${name} ${tid}`
        out.set(key, (out.get(key) ?? 0) + ticks)
      } catch {}
    }
  }
  return out
}
await warm(c, spec(2))
const before = threads()
const f = await measure(c, spec(10))
const after = threads()
const n = f.answersPerSec * 10
console.log(kind, Math.round(f.answersPerSec), 'req/s', Math.round(cpuPerRequestUs(f)), 'us/req', f.p99)
for (const [k, v] of [...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const).filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1])) console.log(`${((v * 10000) / n).toFixed(1).padStart(7)} us/req  ${k}`)
await c.stop()
