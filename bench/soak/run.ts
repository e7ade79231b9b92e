/**
 * `npm run soak`: the soak and fault scenarios, each against a
 * fresh cluster of the service's own build (dist/main.js) on loopback:
 *   kill     50 SIGKILLs of the whole cluster under ingest load (kill-cycles.ts)
 *   front    20 SIGKILLs of one front under ingest load (front-kill.ts)
 *   overload 2,000 connections of 20 KB chunks for 20 s (overload.ts)
 *   disk     DATA_DIR on a filesystem that fills up (disk-full.ts)
 * then writes bench/SOAK.md and exits 1 if any target failed.
 *
 * Flags: --quick (fewer cycles, shorter loads: a check of the script),
 * --only=kill,front,overload,disk (those scenarios), --out=FILE, --no-pin (the
 * overload scenario's cluster and load generator share both cores). A --quick or
 * --only run prints its report instead of writing bench/SOAK.md, unless
 * --out is given. Every loop is bounded in count and time; clusters are
 * killed and filesystems unmounted on the way out, Ctrl-C included.
 */
import { execSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { availableParallelism, cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../../test/helpers/cluster.js'
import { progress, QUICK } from './common.js'
import { diskFull } from './disk-full.js'
import { frontKill } from './front-kill.js'
import { killCycles } from './kill-cycles.js'
import { overload } from './overload.js'
import { renderSoak, targets, type SoakResults } from './report.js'

const SCENARIOS = ['kill', 'front', 'overload', 'disk'] as const
const ONLY = process.argv.find((a) => a.startsWith('--only='))?.slice(7).split(',')
const OUT = process.argv.find((a) => a.startsWith('--out='))?.slice(6)

function commit(): string {
  const head = execSync('git rev-parse HEAD', { cwd: ROOT }).toString().trim()
  const dirty = execSync('git status --porcelain -- src workers package.json', { cwd: ROOT }).toString().trim()
  return dirty ? `${head} (with uncommitted changes to src/, workers/ or package.json)` : head
}

async function main(): Promise<void> {
  const unknown = ONLY?.filter((name) => !(SCENARIOS as readonly string[]).includes(name)) ?? []
  if (unknown.length) throw new Error(`--only: unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.join(', ')}`)
  const began = performance.now()
  const results: SoakResults = {
    quick: QUICK,
    date: new Date().toISOString(),
    commit: commit(),
    machine: { nproc: availableParallelism(), cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: totalmem() / 1024 ** 3, kernel: execSync('uname -sr').toString().trim(), node: process.version },
    seconds: 0,
    crashed: {},
  }
  progress(`soak${QUICK ? ' --quick' : ''}: ${(ONLY ?? SCENARIOS).join(', ')}; commit ${results.commit}`)
  const run = async <K extends 'kill' | 'front' | 'overload' | 'disk'>(name: K, scenario: () => Promise<NonNullable<SoakResults[K]>>) => {
    if (ONLY && !ONLY.includes(name)) return
    progress(`scenario ${name}…`)
    try {
      results[name] = (await scenario()) as SoakResults[K]
    } catch (error) {
      // One scenario failing to run is a result too; the others still run.
      results.crashed[name] = error instanceof Error ? (error.stack ?? error.message) : String(error)
      progress(`scenario ${name} did not finish: ${results.crashed[name]}`)
    }
  }
  await run('kill', killCycles)
  await run('front', frontKill)
  await run('overload', overload)
  await run('disk', diskFull)
  results.seconds = (performance.now() - began) / 1000

  const report = renderSoak(results)
  const failed = targets(results).filter((t) => !t.pass)
  const out = OUT ?? (QUICK || ONLY ? undefined : join(ROOT, 'bench', 'SOAK.md'))
  if (out) {
    writeFileSync(out, report)
    progress(`wrote ${out}`)
  } else {
    process.stdout.write(`\n${report}`)
  }
  progress(failed.length ? `${failed.length} target(s) FAIL: ${failed.map((t) => `${t.scenario}: ${t.what}`).join('; ')}` : 'every target PASS')
  process.exitCode = failed.length ? 1 : 0
}

await main()
