/**
 * Scenario 3: more ingest than the service can write. 2,000 connections send
 * 20 KB gzip chunks for 20 s from autocannon in its own process, pinned to
 * another core than the cluster. Figures: acknowledgements per second and
 * their p99, every status and code answered (the bounded write queue answers
 * 429 `overloaded`), the memory of every process before, at its peak and
 * after, /health probed every 250 ms throughout, and every acknowledged chunk
 * read back.
 */
import { execFileSync, spawn } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { tempDataDir } from '../../test/helpers/cluster.js'
import { chunkBody } from '../payloads.js'
import { childrenOf, rss } from '../proc.js'
import { childExits, healthProbe, percentile, progress, QUICK, seed, start, verifyAcked, type Sent } from './common.js'

export interface Memory {
  /** VmRSS: includes the pages of LMDB's map of data.mdb that the process touched. */
  rss: number
  /** Anonymous memory (smaps_rollup `Anonymous`): heaps and buffers, what unbounded queueing grows. */
  anon: number
}

export interface ProcessMemory {
  name: string
  before: Memory
  peak: Memory
  after: Memory
}

export interface OverloadResult {
  connections: number
  seconds: number
  pinned: string
  bodyBytes: number
  sent: number
  acked: number
  acksPerSec: number
  ackP50: number
  ackP99: number
  latencyP99: number
  statusCodes: Record<string, number>
  codes: Record<string, number>
  overloaded: number
  serverErrors: number
  retryAfterMissing: number
  errors: number
  timeouts: number
  health: { probes: number; failed: number; maxMs: number; over1s: number }
  memory: ProcessMemory[]
  lost: number
  corrupted: number
  exits: ReturnType<typeof childExits>
}

const CLIENT = fileURLToPath(new URL('./overload-client.js', import.meta.url))
const HEALTH_EVERY_MS = 250

function anonymous(pid: number): number {
  try {
    return Number(/^Anonymous:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) * 1024
  } catch {
    return 0 // the process is gone
  }
}

function memoryOf(pid: number): Memory | undefined {
  const status = rss(pid)
  return status && { rss: status.total, anon: anonymous(pid) }
}

/** Pins every thread of `pid` to `cpus` (taskset -a); false where taskset is missing or refused. */
function pin(pid: number, cpus: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

export async function overload(): Promise<OverloadResult> {
  const connections = QUICK ? 200 : 2000
  const seconds = QUICK ? 5 : 20
  const dataDir = tempDataDir('svc-soak-overload-')
  const { project } = await seed(dataDir)
  const { cluster } = await start({ workers: 2, dataDir })
  const primary = cluster.child.pid!
  const outFile = join(tmpdir(), `svc-soak-overload-${process.pid}.json`)
  try {
    const named = () => childrenOf(primary).map((c) => ({ pid: c.pid, name: c.cmdline.includes('front.js') ? 'front' : c.cmdline.includes('control.js') ? 'control' : 'child' }))
    const processes = [{ pid: primary, name: 'primary' }, ...named()].map((p, i, all) => ({ ...p, name: all.filter((q) => q.name === p.name).length > 1 ? `${p.name} ${p.pid}` : p.name }))
    // Two cores or more: the cluster on core 0, the load generator on the last one, so they do not take each other's time.
    // --no-pin shares both cores, as a measurement from outside the machine's own scheduling would.
    const cores = Number(execFileSync('nproc').toString().trim())
    const pinnedServer = cores > 1 && !process.argv.includes('--no-pin') && [primary, ...processes.map((p) => p.pid)].every((pid) => pin(pid, '0'))
    const clientCpus = cores > 1 ? String(cores - 1) : '0'
    const pinned = pinnedServer ? `cluster on CPU 0, load generator on CPU ${clientCpus}` : 'not pinned (--no-pin, one core, or taskset refused)'
    await sleep(1000)
    const before = new Map(processes.map((p) => [p.pid, memoryOf(p.pid) ?? { rss: 0, anon: 0 }]))
    const peak = new Map(processes.map((p) => [p.pid, { ...before.get(p.pid)! }]))
    progress(`overload: ${connections} connections × 20 KB chunks for ${seconds} s, ${pinned}`)

    const args = [CLIENT, cluster.url, project.publicKey, String(connections), String(seconds), outFile]
    const client = pinnedServer ? spawn('taskset', ['-c', clientCpus, process.execPath, ...args], { stdio: 'inherit' }) : spawn(process.execPath, args, { stdio: 'inherit' })
    const clientExited = new Promise<number | null>((resolve) => client.once('exit', (code) => resolve(code)))
    let running = true
    void clientExited.then(() => (running = false))

    const sampler = setInterval(() => {
      for (const p of processes) {
        const now = memoryOf(p.pid)
        const top = peak.get(p.pid)!
        if (now) peak.set(p.pid, { rss: Math.max(top.rss, now.rss), anon: Math.max(top.anon, now.anon) })
      }
    }, 250)
    const health = { probes: 0, failed: 0, maxMs: 0, over1s: 0 }
    // Bounded: the client's duration plus its 20 s request timeout, whatever happens to it.
    const healthDeadline = performance.now() + (seconds + 40) * 1000
    while (running && performance.now() < healthDeadline) {
      const started = performance.now()
      try {
        if ((await healthProbe(cluster.url)).status !== 200) health.failed += 1
      } catch {
        health.failed += 1 // no answer within 5 s, or the connection refused or reset
      }
      const ms = performance.now() - started
      health.probes += 1
      health.maxMs = Math.max(health.maxMs, ms)
      if (ms > 1000) health.over1s += 1
      await sleep(Math.max(0, HEALTH_EVERY_MS - ms))
    }
    const code = await clientExited
    if (code !== 0) throw new Error(`the overload client exited with ${code}`)
    // Memory a few seconds after the load: what the queue and buffers give back.
    await sleep(5000)
    clearInterval(sampler)
    const memory = processes.map((p) => ({ name: p.name, before: before.get(p.pid)!, peak: peak.get(p.pid)!, after: memoryOf(p.pid) ?? { rss: 0, anon: 0 } }))
    const out = JSON.parse(readFileSync(outFile, 'utf8')) as {
      bodyBytes: number; duration: number; sent: number; errors: number; timeouts: number; latencyP99: number
      statusCodes: Record<string, number>; codes: Record<string, number>; retryAfterMissing: number; acked: [string, number][]; ackMs: number[]
    }
    const body = chunkBody()
    const acked: Sent[] = out.acked.map(([sk, seq]) => ({ sk, seq }))
    const verdict = await verifyAcked(dataDir, project.id, acked, () => body)
    const count = (match: (code: string) => boolean) => Object.entries(out.codes).filter(([c]) => match(c)).reduce((sum, [, n]) => sum + n, 0)
    const result: OverloadResult = {
      connections,
      seconds,
      pinned,
      bodyBytes: out.bodyBytes,
      sent: out.sent,
      acked: acked.length,
      acksPerSec: acked.length / out.duration,
      ackP50: percentile(out.ackMs, 50),
      ackP99: percentile(out.ackMs, 99),
      latencyP99: out.latencyP99,
      statusCodes: out.statusCodes,
      codes: out.codes,
      overloaded: count((c) => c === '429 overloaded'),
      serverErrors: count((c) => c.startsWith('5')),
      retryAfterMissing: out.retryAfterMissing,
      errors: out.errors,
      timeouts: out.timeouts,
      health,
      memory,
      lost: verdict.missing,
      corrupted: verdict.corrupted,
      exits: childExits(cluster.output()),
    }
    progress(`overload: ${Math.round(result.acksPerSec)} acks/s, ack p99 ${Math.round(result.ackP99)} ms, answers ${JSON.stringify(out.codes)}, /health max ${Math.round(health.maxMs)} ms, lost ${verdict.missing}, corrupted ${verdict.corrupted}`)
    return result
  } finally {
    await cluster.stop()
    rmSync(outFile, { force: true })
    rmSync(dataDir, { recursive: true, force: true })
  }
}
